import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../lib/clock.ts';
import { openTestDb, type TestDb } from '../../../test/support/db.ts';
import type { EnvioResponse } from '../simpleapi/protocol.ts';
import { emulatorHarness, issuer, keyPaths, type Answer, type Harness } from './http.test-support.ts';
import { schemaValidatorFrom } from './schemas.ts';
import { ephemeralSiiKey } from './sii-key.ts';

/**
 * The emulator cannot drift from production's shapes: for every response recorded in the
 * provider's Postman collection (test/fixtures/simpleapi/recorded.json, passwords stripped), the
 * emulator's answer to the same route and case has the same status, media type and JSON keys —
 * recursively, in the same order, arrays by their first element — with values of the same JSON
 * type wherever the recording has a value. A new recording without a case here fails the test.
 */
interface Recorded {
  route: string;
  case: string;
  source: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

const FIXTURES = path.join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'simpleapi', 'recorded.json');
const recorded = JSON.parse(fs.readFileSync(FIXTURES, 'utf8')) as Recorded[];

/**
 * Recordings whose shape the provider has since replaced, compared with the current one instead:
 * "Error interno SII" (2021-09-22) still has the flat `tipoDocumento`, `cantidad*` members that the
 * 2023 answers carry as `estados[]` (same route, same SDK class, EstadoDTETrackIdResult).
 */
const SUPERSEDED: Record<string, { comparedWith: string }> = {
  'envioStatus|Error interno SII': { comparedWith: 'envioStatus|Usuario sin permiso en empresa' },
};

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
/** path → JSON type of its value (first array element), for the paths the recording has a value at. */
function types(v: unknown, prefix = '', out = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(v)) {
    if (v.length > 0) types(v[0], `${prefix}[]`, out);
  } else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      const p = prefix ? `${prefix}.${k}` : k;
      out.set(p, typeOf(x));
      types(x, p, out);
    }
  }
  return out;
}
const mediaType = (t: string | undefined) => (t ?? '').toLowerCase().replace(/\s+/g, '');

describe('the emulator answers every recorded SimpleAPI response in the same shape', () => {
  let tdb: TestDb;
  let h: Harness;
  const clock = manualClock('2026-03-02T12:30:00.000Z');
  const co = issuer(() => h, clock);
  const cases = new Map<string, () => Promise<Answer>>();

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

  const sent = async (tipoDte: 33 | 39, razonSocial?: string) => {
    const c = await co.caf(tipoDte, 2);
    const input = co.input(tipoDte, c.desde, razonSocial ? { receptor: { rut: '77.777.777-7', razonSocial } } : {});
    const d = co.build(c, input);
    const up = await co.send(co.envelope([d.xml]), tipoDte === 39 ? 2 : 1);
    return { caf: c, doc: d, input, trackId: up.json<EnvioResponse>().trackId };
  };

  cases.set('send|Enviar EnvioBoleta', async () => {
    const c = await co.caf(39, 1);
    return co.send(co.envelope([co.build(c, co.input(39, c.desde)).xml]), 2);
  });
  cases.set('send|Enviar EnvioDTE', async () => {
    const c = await co.caf(33, 1);
    return co.send(co.envelope([co.build(c, co.input(33, c.desde)).xml]), 1);
  });
  cases.set('send|Erro en el tipo de envío', async () => {
    const c = await co.caf(33, 1);
    return co.send(co.envelope([co.build(c, co.input(33, c.desde)).xml]), 6);
  });
  cases.set('envioStatus|Consulta Exitosa', async () => co.envioStatus((await sent(33)).trackId, false));
  cases.set('envioStatus|Consulta Exitosa Boleta', async () => co.envioStatus((await sent(39)).trackId, true));
  cases.set('envioStatus|Error interno SII', async () =>
    h.call('POST', '/api/v1/consulta/envio', {
      input: {
        CertificadoDigital: co.certificado,
        RutEmpresa: co.rut,
        TrackId: (await sent(33)).trackId,
        Ambiente: 0,
        ServidorBoletaREST: false,
      },
      files: [co.pfx],
    }),
  );
  cases.set('envioStatus|Usuario sin permiso en el SII', async () =>
    co.envioStatus((await sent(39)).trackId, true, { RutEmpresa: '76253572-6' }),
  );
  cases.set('envioStatus|Usuario sin permiso en empresa', async () =>
    co.envioStatus((await sent(33)).trackId, false, { RutEmpresa: '76253572-6' }),
  );
  cases.set('envioStatus|Envio con boletas rechazadas', async () => co.envioStatus((await sent(39, 'Prueba RECHAZO SpA')).trackId, true));
  cases.set('envioStatus|Envio con boletas aceptado con reparo', async () =>
    co.envioStatus((await sent(39, 'Prueba REPARO SpA')).trackId, true),
  );
  cases.set('dteStatus|DTE no recibido', async () => {
    const c = await co.caf(33, 2);
    await co.annul(33, c.desde, c.desde);
    return co.dteStatus({ tipo: 33, folio: c.desde, total: 1000 });
  });
  cases.set('dteStatus|Consulta Exitosa', async () => {
    const s = await sent(33);
    return co.dteStatus({ tipo: 33, folio: s.caf.desde, total: s.doc.totals.montoTotal });
  });
  cases.set('dteStatus|Boleta no recibida', async () => co.dteStatus({ tipo: 39, folio: 999_999, total: 9900, boleta: true }));
  cases.set('folios|Exito', async () => h.call('POST', '/api/folios/get/33/1', { input: co.foliosInput(), files: [co.pfx] }));
  cases.set('foliosAvailable|Exito', async () =>
    h.call('POST', '/api/folios/get/33/', { input: co.foliosInput({ Ambiente: 1 }), files: [co.pfx] }),
  );
  cases.set('annul|Exito', async () => {
    const c = await co.caf(61, 5);
    return co.annul(61, c.hasta - 1, c.hasta);
  });
  cases.set('annul|Error de anulación', async () => {
    const a = await co.caf(52, 1);
    const b = await co.caf(52, 3);
    await co.annul(52, b.desde, b.desde + 1);
    await co.send(co.envelope([co.build(a, co.input(52, a.desde)).xml]), 1);
    return co.annul(52, a.desde, b.desde + 1);
  });

  const acceptance = (input: Record<string, unknown>) =>
    h.call('POST', '/api/v1/compras/aceptacionreclamo', {
      input: { Certificado: co.certificado, Tipo: 33, Accion: 'ACD', Ambiente: 1, ...input },
      files: [co.pfx],
    });
  cases.set('acceptance|Exito', async () => {
    const s = await sent(33);
    return acceptance({ Folio: s.caf.desde, RutEmpresa: co.rut });
  });
  cases.set('acceptance|No ha registrado Aceptación Previa o los datos no coinciden', async () =>
    acceptance({ Folio: 21495, Accion: 'ERM', RutEmpresa: '96568970-2' }),
  );

  it('has a case for every recording', () => {
    expect(recorded.map((r) => `${r.route}|${r.case}`).filter((k) => !cases.has(k))).toEqual([]);
  });

  for (const r of recorded) {
    const id = `${r.route}|${r.case}`;
    it(`${r.route}: ${r.case} (${r.status})`, async () => {
      const a = await cases.get(id)!();
      expect(a.status, a.text).toBe(r.status);
      expect(mediaType(a.type)).toBe(mediaType(r.headers['content-type']));
      const superseded = SUPERSEDED[id];
      const expected = superseded ? recorded.find((x) => `${x.route}|${x.case}` === superseded.comparedWith)! : r;
      if (r.headers['content-type']?.startsWith('application/xml')) {
        const tags = (x: string) => [...x.matchAll(/<\/?([A-Za-z]+)/g)].map((m) => m[0]);
        expect(tags(a.body.toString('latin1'))).toEqual(tags(r.body));
        return;
      }
      if (r.headers['content-type']?.startsWith('text/plain')) {
        expect(a.text).toBe(r.body);
        return;
      }
      const mine: unknown = a.json();
      const theirs: unknown = JSON.parse(expected.body);
      expect(typeOf(mine)).toBe(typeOf(theirs));
      expect(keyPaths(mine)).toEqual(keyPaths(theirs));
      const t = types(theirs);
      const m = types(mine);
      for (const [p, type] of t) if (type !== 'null' && m.get(p) !== 'null') expect(`${p}: ${m.get(p)}`).toBe(`${p}: ${type}`);
    });
  }
});
