import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueDte, prepareDte } from '../../dte/index.ts';
import { manualClock } from '../../lib/clock.ts';
import { openTestDb, type TestDb } from '../../../test/support/db.ts';
import type { EnvioResponse } from '../simpleapi/protocol.ts';
import { emulatorHarness, issuer, type Harness } from './http.test-support.ts';
import { schemaValidatorFrom } from './schemas.ts';
import { ephemeralSiiKey } from './sii-key.ts';
import { emulatorStore } from './store.ts';

/**
 * The review reads every root a DTE may have [XSD-DTE]: `Liquidacion` (43) and `Exportaciones`
 * (110, 111, 112) beside `Documento`, signed, stamped and enveloped by the engine, and judges
 * them with the rules of rules/ (a 110 without the receptor's city gets its reparo).
 */
describe('the emulator reviews Liquidacion and Exportaciones documents', () => {
  let tdb: TestDb;
  let h: Harness;
  const clock = manualClock('2026-03-02T12:30:00.000Z');
  const co = issuer(() => h, clock);

  beforeAll(async () => {
    tdb = await openTestDb('pglite');
    h = await emulatorHarness({
      db: tdb.db,
      clock,
      siiKey: ephemeralSiiKey(),
      processingDelayMs: 0,
      schemaValidator: schemaValidatorFrom(),
    });
  });
  afterAll(async () => {
    await h.close();
    await tdb.close();
  });

  it('accepts a 43 and a 110, annuls the 110 with a 112, and gives a 110 without CiudadRecep its HED-2-804', async () => {
    const [c43, c110, c112] = [await co.caf(43, 1), await co.caf(110, 2), await co.caf(112, 1)];
    const city = (tipo: 110 | 112, folio: number) => {
      const base = co.input(tipo, folio);
      return { ...base, receptor: { ...base.receptor!, ciudad: 'Springfield' } };
    };
    const f110 = co.build(c110, city(110, c110.desde));
    const annul = co.input(112, c112.desde, {
      receptor: city(112, c112.desde).receptor,
      referencias: [{ tipoDocRef: 110, folioRef: c110.desde, fechaRef: '2026-03-02', codRef: 1, razonRef: 'Anula' }],
    });
    // The engine refuses a 110 without CiudadRecep before a folio (receptor_incomplete): the fault
    // is written into a prepared document, as a client that bypasses our validation would send it.
    const prepared = prepareDte(co.input(110, c110.desde + 1));
    const noCity = { ...prepared, document: { ...prepared.document, receptor: { ...prepared.document.receptor, ciudad: undefined } } };
    const docs = [
      co.build(c43, co.input(43, c43.desde)).xml,
      f110.xml,
      issueDte(noCity, { folio: c110.desde + 1, caf: c110, signer: co.cert.signer, now: clock.now() }).xml,
    ];
    const up = await co.send(co.envelope(docs), 1);
    expect(up.status, up.text).toBe(200);
    const first = (await emulatorStore.getEnvio(tdb.db, up.json<EnvioResponse>().trackId))!;
    expect(first.detalle.map((d) => [d.tipo, d.estado, d.errores.map((e) => `${e.codigo} ${e.detalle}`)])).toEqual([
      [43, 'DOK', []],
      [110, 'DOK', []],
      [110, 'RPR', ['HED-2-804 falta CiudadRecep']],
    ]);
    const up2 = await co.send(co.envelope([co.build(c112, annul).xml]), 1);
    const second = (await emulatorStore.getEnvio(tdb.db, up2.json<EnvioResponse>().trackId))!;
    expect(second.detalle).toEqual([expect.objectContaining({ tipo: 112, estado: 'DOK', errores: [] })]);
  });
});
