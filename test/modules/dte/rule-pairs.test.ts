import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueDte, prepareDte, siiDate, type Caf, type DteInput, type NormalizedDocument, type TipoDte } from '../../../src/dte/index.ts';
import { manualClock } from '../../../src/lib/clock.ts';
import type { EnvioResponse } from '../../../src/provider/simpleapi/protocol.ts';
import { emulatorHarness, issuer, type Harness } from '../../../src/provider/emulator/http.test-support.ts';
import { schemaValidatorFrom } from '../../../src/provider/emulator/schemas.ts';
import { ephemeralSiiKey } from '../../../src/provider/emulator/sii-key.ts';
import { emulatorStore } from '../../../src/provider/emulator/store.ts';
import { openTestDb, type TestDb } from '../../support/db.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, type IssuingApp } from '../../support/issuing.ts';

/**
 * Issue 14: each SII rule the API enforces before a folio, paired with the SII's answer to the same
 * fault. The API side posts the faulty request and gets its code; the SII side is a client that
 * bypasses our validation — the engine prepares a valid document, the fault is written into the
 * prepared document, and it is stamped, signed and uploaded to the emulator like any other — and
 * gets the SII's code (docs/dte.md, "The SII's rules, before a folio is spent").
 */
type Body = Record<string, unknown>;
type Doc = NormalizedDocument;
interface Pair {
  rule: string;
  tipo: TipoDte;
  apiCode: string;
  body: (b: Body, ctx: { today: string; tomorrow: string; f33: number }) => Body;
  siiCode: string;
  doc: (d: Doc, ctx: { today: string; tomorrow: string; f33: number }) => Doc;
  /** The SII side's valid input, when the sample of the type does not do. */
  input?: Partial<DteInput>;
}

const receptor = (b: Body) => b.receptor as Body;
const ref33 = (f33: number, today: string, codRef: 1 | 2 | 3) => ({
  tipoDocRef: '33',
  folioRef: String(f33),
  fechaRef: today,
  codRef,
  razonRef: 'Referencia',
  indGlobal: false,
});

const PAIRS: Pair[] = [
  {
    rule: "a factura without the receptor's giro",
    tipo: 33,
    apiCode: 'receptor_incomplete',
    body: (b) => ({ ...b, receptor: { ...receptor(b), giro: undefined } }),
    siiCode: 'HED-3-312',
    doc: (d) => ({ ...d, receptor: { ...d.receptor, giro: undefined } }),
  },
  {
    rule: 'consumidor final on a factura',
    tipo: 33,
    apiCode: 'anonymous_receptor_not_allowed',
    body: (b) => ({ ...b, receptor: { ...receptor(b), rut: '66.666.666-6' } }),
    siiCode: 'HED-3-311',
    doc: (d) => ({ ...d, receptor: { ...d.receptor, rut: '66666666-6' } }),
  },
  {
    rule: 'a receptor RUT with a wrong check digit',
    tipo: 33,
    apiCode: 'invalid_rut',
    body: (b) => ({ ...b, receptor: { ...receptor(b), rut: '77.777.777-8' } }),
    siiCode: 'HED-3-310',
    doc: (d) => ({ ...d, receptor: { ...d.receptor, rut: '77777777-8' } }),
  },
  {
    rule: 'an export to a Chilean RUT',
    tipo: 110,
    apiCode: 'foreign_receptor_required',
    body: (b) => ({ ...b, receptor: { ...receptor(b), rut: '77.777.777-7' } }),
    siiCode: 'HED-3-314',
    doc: (d) => ({ ...d, receptor: { ...d.receptor, rut: '77777777-7' } }),
  },
  {
    rule: "a factura de exportación without the receptor's city",
    tipo: 110,
    apiCode: 'receptor_incomplete',
    body: (b) => ({ ...b, receptor: { ...receptor(b), ciudad: undefined } }),
    siiCode: 'HED-2-804',
    doc: (d) => ({ ...d, receptor: { ...d.receptor, ciudad: undefined } }),
  },
  {
    rule: 'a credit note without references',
    tipo: 61,
    apiCode: 'references_required',
    body: (b) => ({ ...b, referencias: [] }),
    siiCode: 'REF-3-415',
    doc: (d) => ({ ...d, referencias: [] }),
  },
  {
    rule: 'a credit note that cancels two documents',
    tipo: 61,
    apiCode: 'reference_multiple_cancellations',
    body: (b, c) => ({
      ...b,
      referencias: [
        { ...ref33(c.f33, c.today, 1), razonRef: 'Anula' },
        { ...ref33(c.f33 + 1, c.today, 1), razonRef: 'Anula' },
      ],
    }),
    siiCode: 'REF-3-759',
    doc: (d, c) => ({ ...d, referencias: [ref33(c.f33, c.today, 1), { ...ref33(c.f33, c.today, 1), folioRef: String(c.f33 + 1) }] }),
  },
  {
    rule: 'a text correction with amounts',
    tipo: 61,
    apiCode: 'reference_text_correction_with_amounts',
    body: (b, c) => ({ ...b, referencias: [ref33(c.f33, c.today, 2)] }),
    siiCode: 'REF-3-761',
    doc: (d, c) => ({ ...d, referencias: [ref33(c.f33, c.today, 2)] }),
  },
  {
    rule: 'a reference dated after the document',
    tipo: 61,
    apiCode: 'reference_date_after_document',
    body: (b, c) => ({ ...b, referencias: [ref33(c.f33, c.tomorrow, 3)] }),
    siiCode: 'REF-3-762',
    doc: (d, c) => ({ ...d, referencias: [ref33(c.f33, c.tomorrow, 3)] }),
  },
  {
    rule: 'a note that cancels a factura for another amount',
    tipo: 61,
    apiCode: 'reference_amount_mismatch',
    body: (b, c) => ({
      ...dteBody(61, { detalle: [{ nombre: 'Servicio de desarrollo', cantidad: 1, precioUnitario: 35000 }] }),
      referencias: [{ ...ref33(c.f33, c.today, 1), razonRef: 'Anula' }],
    }),
    siiCode: 'REF-2-780',
    // A note of one line, cancelling the whole factura: checked against the stored factura by the
    // issuing module, which a client building its own XML bypasses.
    input: { detalle: [{ nombre: 'Servicio de desarrollo', cantidad: 1, precioUnitario: 35000 }] },
    doc: (d, c) => ({ ...d, referencias: [ref33(c.f33, c.today, 1)] }),
  },
];

describe('each SII rule: refused by the API with its code, and by the emulated SII with its own', () => {
  // The API side (the issuing app with its in-process emulator).
  let t: IssuingApp;
  let key: string;
  let tenantId: string;
  let apiF33: number;
  // The SII side (an emulator over HTTP, and a client with its own CAFs).
  let tdb: TestDb;
  let h: Harness;
  const clock = manualClock(new Date().toISOString());
  const co = issuer(() => h, clock);
  const cafs = new Map<number, { caf: Caf; next: number }>();
  let siiF33: number;
  const today = siiDate(clock.now());
  const tomorrow = siiDate(new Date(clock.now().getTime() + 86_400_000));

  const upload = async (docs: Buffer[]) => {
    const up = await co.send(co.envelope(docs), 1);
    expect(up.status, up.text).toBe(200);
    return (await emulatorStore.getEnvio(tdb.db, up.json<EnvioResponse>().trackId))!.detalle;
  };
  const nextFolio = async (tipo: TipoDte) => {
    if (!cafs.has(tipo)) {
      const caf = await co.caf(tipo, 20);
      cafs.set(tipo, { caf, next: caf.desde });
    }
    const c = cafs.get(tipo)!;
    return { caf: c.caf, folio: c.next++ };
  };

  beforeAll(async () => {
    t = await startIssuingApp('pglite');
    ({ key } = await t.account());
    tenantId = await readyTenant(t, key);
    for (const tipo of new Set(PAIRS.map((p) => p.tipo))) await requestFolios(t, key, tenantId, tipo, 10);
    const f = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(33) });
    apiF33 = f.json().folio;

    tdb = await openTestDb('pglite');
    h = await emulatorHarness({
      db: tdb.db,
      clock,
      siiKey: ephemeralSiiKey(),
      processingDelayMs: 0,
      schemaValidator: schemaValidatorFrom(),
    });
    // The factura the notes reference, received by the SII (so REF-3-750 stays out of the way).
    const { caf, folio } = await nextFolio(33);
    siiF33 = folio;
    expect((await upload([co.build(caf, co.input(33, folio)).xml]))[0]).toMatchObject({ estado: 'DOK' });
  });
  afterAll(async () => {
    await t?.close();
    await h?.close();
    await tdb?.close();
  });

  it.each(PAIRS)('$rule: API $apiCode, SII $siiCode', async (p) => {
    const before = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` })).json();
    const r = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/dte`,
      payload: p.body(dteBody(p.tipo), { today, tomorrow, f33: apiF33 }),
    });
    expect(r.statusCode, r.body).toBeGreaterThanOrEqual(400);
    expect(r.statusCode, r.body).toBeLessThan(500);
    expect(r.json().error.code).toBe(p.apiCode);
    expect((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` })).json()).toEqual(before);

    const { caf, folio } = await nextFolio(p.tipo);
    const valid = prepareDte(co.input(p.tipo, folio, { ...(p.tipo === 61 ? { referencias: [ref33(siiF33, today, 3)] } : {}), ...p.input }));
    const faulty = { ...valid, document: p.doc(valid.document, { today, tomorrow, f33: siiF33 }) };
    const built = issueDte(faulty, { folio, caf, signer: co.cert.signer, now: clock.now() });
    const [outcome] = await upload([built.xml]);
    expect(
      outcome!.errores.map((e) => e.codigo),
      JSON.stringify(outcome),
    ).toContain(p.siiCode);
    expect(outcome!.estado).toBe(p.siiCode.includes('-2-') ? 'RPR' : 'RCH');
  });
});
