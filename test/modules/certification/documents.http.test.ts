import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { siiDate } from '../../../src/dte/index.ts';
import { createCertificationService } from '../../../src/modules/certification/index.ts';
import type { InProcessEmulator } from '../../../src/provider/emulator/inprocess.ts';
import { describeEachDb } from '../../support/db.ts';
import { runCheckSiiXml } from '../../support/dte/check-sii-xml.ts';
import { readyTenant, requestFolios, startIssuingApp, waitFinal, type IssuingApp } from '../../support/issuing.ts';

/**
 * A test set's documents, made through the real app on the embedded default provider
 * (docs/certification.md, "Making the documents"): set 01 whole (every case's DTE, references
 * resolved to the folios made, amounts computed by hand below, every XML through the project's
 * checker, sent in one envelope and accepted by the emulator), the call again (idempotent), a call after one that
 * failed midway (the rest made, no case twice), set 02 whole (liquidaciones with negative lines and
 * commissions), folios missing, and a tenant outside certification.
 */
const fixture = (n: string) => readFileSync(new URL(`../../fixtures/certification/SIISetDePruebas-${n}.txt`, import.meta.url));
// Today in Chile: the emulator's CAFs are authorised today, and no document may predate its CAF.
const FECHA = siiDate(new Date());

interface SetView {
  id: string;
  cases: { id: string; section: string; dteId: string | null }[];
  progress: { cases: number; documents: number };
}
interface DteView {
  id: string;
  tipoDte: number;
  folio: number;
  fechaEmision: string;
  montoNeto: number;
  iva: number;
  montoExento: number;
  montoTotal: number;
  detalle: { nombre: string; cantidad: number | null; precioUnitario: number | null; montoItem: number }[];
  referencias: { tipoDocRef: string; folioRef: string; fechaRef: string; codRef: number | null; razonRef: string | null }[];
}

describeEachDb('certification: making a set’s documents', (backend) => {
  let t: IssuingApp;
  let key: string;

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
  });
  afterAll(() => t?.close());

  const certTenant = async (folios: Record<number, number>) => {
    const tenantId = await readyTenant(t, key, { ambiente: 'certificacion' });
    for (const [tipo, n] of Object.entries(folios)) await requestFolios(t, key, tenantId, Number(tipo), n);
    return tenantId;
  };
  const upload = async (tenantId: string, n: string): Promise<SetView> => {
    const r = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/certification/sets`,
      payload: fixture(n),
      headers: { 'content-type': 'text/plain' },
    });
    expect(r.statusCode, r.body).toBe(201);
    return r.json();
  };
  const make = (tenantId: string, setId: string) =>
    t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/certification/sets/${setId}/documents`,
      payload: { fechaEmision: FECHA },
    });
  const dte = async (tenantId: string, id: string): Promise<DteView> =>
    (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${id}` })).json();
  const dteCount = async (tenantId: string) =>
    Number((await t.ctx.db.query<{ n: string }>('select count(*)::text as n from dtes where tenant_id = $1', [tenantId])).rows[0]!.n);
  const stock = async (tenantId: string) =>
    (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` }))
      .json()
      .data.map((i: { tipoDte: number; disponibles: number }) => [i.tipoDte, i.disponibles]);

  it('set 01: every case made in order, references resolved, amounts as computed by hand, checked, sent and accepted', async () => {
    const tenantId = await certTenant({ 33: 5, 34: 5, 52: 5, 56: 5, 61: 10 });
    const set = await upload(tenantId, '01');
    const r = await make(tenantId, set.id);
    expect(r.statusCode, r.body).toBe(201);
    const made: SetView = r.json();
    expect(made.progress).toEqual({ cases: 19, documents: 19 });
    expect(made.cases.every((c) => typeof c.dteId === 'string')).toBe(true);
    expect((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/certification/sets/${set.id}` })).json()).toEqual(made);

    const docs = new Map<string, DteView>();
    for (const c of made.cases) docs.set(c.id, await dte(tenantId, c.dteId!));
    const doc = (k: string) => docs.get(k)!;

    // Every document's first reference is the set's, naming its case (instructions, I.6).
    for (const [caseId, d] of docs) expect(d.referencias[0]).toMatchObject({ tipoDocRef: 'SET', razonRef: `CASO ${caseId}` });
    // The set's order: facturas 1–4 are folios 1–4, the credit notes 1–3, the debit note 1.
    expect(['4244618-1', '4244618-2', '4244618-3', '4244618-4'].map((k) => [doc(k).tipoDte, doc(k).folio])).toEqual([
      [33, 1],
      [33, 2],
      [33, 3],
      [33, 4],
    ]);
    // Notes name the folio and date of the document made for the case they modify.
    const refOf = (k: string) => doc(k).referencias[1]!;
    expect(refOf('4244618-5')).toMatchObject({ tipoDocRef: '33', folioRef: String(doc('4244618-1').folio), fechaRef: FECHA, codRef: 2 });
    expect(refOf('4244618-6')).toMatchObject({ tipoDocRef: '33', folioRef: String(doc('4244618-2').folio), codRef: 3 });
    expect(refOf('4244618-7')).toMatchObject({ tipoDocRef: '33', folioRef: String(doc('4244618-3').folio), codRef: 1 });
    expect(refOf('4244618-8')).toMatchObject({ tipoDocRef: '61', folioRef: String(doc('4244618-5').folio), codRef: 1 });
    expect(doc('4244618-8').tipoDte).toBe(56);

    // By hand, IVA 19 % rounded half up:
    // CASO 1: 139 × 1812 = 251 868; 59 × 2976 = 175 584; neto 427 452; IVA 81 215.88 → 81 216; 508 668.
    expect(doc('4244618-1')).toMatchObject({ montoNeto: 427452, iva: 81216, montoExento: 0, montoTotal: 508668 });
    // CASO 3: 32 × 3767 = 120 544; 179 × 3251 = 581 929; neto 702 473; IVA 133 469.87 → 133 470;
    // exempt 34 908; total 870 851.
    expect(doc('4244618-3')).toMatchObject({ montoNeto: 702473, iva: 133470, montoExento: 34908, montoTotal: 870851 });
    // CASO 6, credit note returning goods at the invoice's price and discount: 153 × 3293 = 503 829,
    // 6 % = 30 229.74 → 30 230, line 473 599; 236 × 2352 = 555 072, 11 % = 61 057.92 → 61 058,
    // line 494 014; neto 967 613; IVA 183 846.47 → 183 846; total 1 151 459.
    expect(doc('4244618-6').detalle.map((l) => l.montoItem)).toEqual([473599, 494014]);
    expect(doc('4244618-6')).toMatchObject({ tipoDte: 61, montoNeto: 967613, iva: 183846, montoTotal: 1151459 });
    // CASO 7 cancels CASO 3: the same 870 851. CASO 5 corrects text: 0; CASO 8 cancels it: 0.
    expect(doc('4244618-7')).toMatchObject({ tipoDte: 61, montoNeto: 702473, iva: 133470, montoExento: 34908, montoTotal: 870851 });
    expect([doc('4244618-5').montoTotal, doc('4244618-8').montoTotal]).toEqual([0, 0]);
    // The guía that moves goods between premises: no prices, amounts 0.
    const move = doc('4244621-1');
    expect(move).toMatchObject({ tipoDte: 52, montoTotal: 0 });
    expect(move.detalle.every((l) => l.precioUnitario === null && l.montoItem === 0)).toBe(true);

    // Every document's XML passes the project's checker (schema, signatures, TED).
    const files: { name: string; bytes: Buffer }[] = [];
    for (const [caseId, d] of docs) {
      const x = await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${d.id}/xml` });
      files.push({ name: `caso-${caseId}.xml`, bytes: x.rawPayload });
    }
    const check = runCheckSiiXml(files, { cafKeyPem: (t.ctx.provider as InProcessEmulator).siiKey.publicKeyPem });
    expect(check.failures, check.output).toEqual([]);
    expect(check.exitCode).toBe(0);
    expect(check.lines.filter((l) => l.startsWith('ok')).length).toBeGreaterThanOrEqual(19);

    // Sent in the envelope the SII asks for (básico, guías and exenta together), accepted by the emulator.
    const ids = made.cases.map((c) => c.dteId!);
    const sendUrl = `/api/v1/tenants/${tenantId}/certification/sets/${set.id}/send`;
    const sent = await t.call(key, { method: 'POST', url: sendUrl });
    expect(sent.statusCode, sent.body).toBe(202);
    const envios = sent.json().envios as { tipoEnvio: string; dteIds: string[] }[];
    expect(envios.map((e) => e.tipoEnvio)).toEqual(['EnvioDTE']);
    expect([...envios[0]!.dteIds].sort()).toEqual([...ids].sort());
    for (const id of ids) {
      const s = await waitFinal(t, key, id);
      expect(s, `${id}: ${JSON.stringify(s)}`).toMatchObject({ status: 'accepted' });
    }

    // Sending again sends nothing: every document is past sending.
    const resent = await t.call(key, { method: 'POST', url: sendUrl });
    expect([resent.statusCode, resent.json().envios], resent.body).toEqual([202, []]);

    // Again: the same documents, nothing new (200).
    const before = await dteCount(tenantId);
    const again = await make(tenantId, set.id);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().cases).toEqual(made.cases);
    expect(await dteCount(tenantId)).toBe(before);
  });

  it('a call that failed midway leaves whole documents; the next makes the rest, never a case twice', async () => {
    const tenantId = await certTenant({ 33: 5, 34: 5, 52: 5, 56: 5, 61: 10 });
    const set = await upload(tenantId, '01');
    const { dte: real, folios, dteSend } = t.ctx.services;
    let creates = 0;
    const failing = createCertificationService({
      db: t.ctx.db,
      clock: t.ctx.clock,
      folios,
      dteSend,
      dte: {
        ...real,
        create: async (...a: Parameters<typeof real.create>) => {
          if (++creates === 6) throw new Error('the process died here');
          return real.create(...a);
        },
      },
    });
    const accountId = (await t.ctx.db.query<{ account_id: string }>('select account_id from tenants where id = $1', [tenantId])).rows[0]!
      .account_id;
    const tenant = await t.ctx.services.tenants.getRow(accountId, tenantId);
    await expect(failing.makeDocuments(tenant, set.id, { fechaEmision: FECHA })).rejects.toThrow('the process died here');
    const half = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/certification/sets/${set.id}` })).json();
    expect(half.progress.documents).toBe(5);
    expect(await dteCount(tenantId)).toBe(5);

    // While another call holds the set (its lease), a second is refused rather than run alongside.
    await t.ctx.db.query(`update certification_sets set documents_lease_until = now() + interval '1 hour' where id = $1`, [set.id]);
    const busy = await make(tenantId, set.id);
    expect([busy.statusCode, busy.json().error.code], busy.body).toEqual([409, 'certification_documents_in_progress']);
    expect(await dteCount(tenantId)).toBe(5);
    // A lease that lapsed (a process that died holding it) no longer stands in the way.
    await t.ctx.db.query(`update certification_sets set documents_lease_until = now() - interval '1 second' where id = $1`, [set.id]);

    const rest = await make(tenantId, set.id);
    expect(rest.statusCode, rest.body).toBe(201);
    expect(rest.json().progress).toEqual({ cases: 19, documents: 19 });
    expect(rest.json().cases.slice(0, 5)).toEqual(half.cases.slice(0, 5));
    expect(await dteCount(tenantId)).toBe(19);
    const ids = rest.json().cases.map((c: { dteId: string }) => c.dteId);
    expect(new Set(ids).size).toBe(19);
    // The note made after the break still names the folio of the invoice made before it.
    const nc = await dte(tenantId, ids[5]);
    const inv = await dte(tenantId, ids[1]);
    expect(nc.referencias[1]).toMatchObject({ folioRef: String(inv.folio), codRef: 3 });
  });

  it('folios missing for some type: 409 naming each type, how many are needed and available; nothing spent', async () => {
    const tenantId = await certTenant({ 33: 5, 61: 2 });
    const set = await upload(tenantId, '01');
    const before = await stock(tenantId);
    const r = await make(tenantId, set.id);
    expect(r.statusCode, r.body).toBe(409);
    expect(r.json().error).toMatchObject({
      code: 'certification_folios_missing',
      details: {
        missing: [
          { tipoDte: 34, needed: 3, available: 0 },
          { tipoDte: 52, needed: 3, available: 0 },
          { tipoDte: 56, needed: 3, available: 0 },
          { tipoDte: 61, needed: 6, available: 2 },
        ],
      },
    });
    expect(await stock(tenantId)).toEqual(before);
    expect(await dteCount(tenantId)).toBe(0);
  });

  it('set 02 whole: exports, liquidaciones (negative lines and commissions), factura de compra; checked, sent, accepted', async () => {
    // Every case can be built: the folios are what is asked first, each type short named (409).
    const tenantId = await certTenant({});
    const set = await upload(tenantId, '02');
    const short = await make(tenantId, set.id);
    expect([short.statusCode, short.json().error?.code], short.body).toEqual([409, 'certification_folios_missing']);
    const missing = short.json().error.details.missing as { tipoDte: number; needed: number }[];
    expect(missing.map((m) => m.tipoDte)).toContain(43);
    for (const m of missing) await requestFolios(t, key, tenantId, m.tipoDte, m.needed);
    const r = await make(tenantId, set.id);
    expect(r.statusCode, r.body).toBe(201);
    const made: SetView = r.json();
    expect(made.progress.documents).toBe(made.progress.cases);

    const docs = new Map<string, DteView>();
    for (const c of made.cases) docs.set(c.id, await dte(tenantId, c.dteId!));
    // The liquidaciones, as worked out by hand in case-request.test.ts.
    expect(docs.get('4267225-1')).toMatchObject({ tipoDte: 43, montoNeto: 937682, montoExento: 323234, iva: 178160, montoTotal: 1439076 });
    expect(docs.get('4267225-2')).toMatchObject({ tipoDte: 43, montoNeto: 8270402, montoExento: 446270, montoTotal: 10288048 });
    expect(docs.get('4267225-2')!.detalle.map((l) => l.montoItem)).toContain(-59379);
    expect(docs.get('4267225-4')).toMatchObject({ tipoDte: 43, montoNeto: 822912, iva: 156353, montoTotal: 2872079 });

    const files: { name: string; bytes: Buffer }[] = [];
    for (const [caseId, d] of docs) {
      const x = await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${d.id}/xml` });
      files.push({ name: `caso-${caseId}.xml`, bytes: x.rawPayload });
    }
    const neg = files.find((f) => f.name === 'caso-4267225-4.xml')!.bytes.toString('latin1');
    expect(neg).toContain('<TpoDocLiq>99</TpoDocLiq>');
    expect(neg).toContain('<MontoItem>-169039</MontoItem>');
    expect(neg).toContain('<ValComNeto>-8452</ValComNeto>');
    const check = runCheckSiiXml(files, { cafKeyPem: (t.ctx.provider as InProcessEmulator).siiKey.publicKeyPem });
    expect(check.failures, check.output).toEqual([]);
    expect(check.exitCode).toBe(0);

    const sent = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/certification/sets/${set.id}/send` });
    expect(sent.statusCode, sent.body).toBe(202);
    for (const c of made.cases) {
      const s = await waitFinal(t, key, c.dteId!);
      expect(s, `${c.id}: ${JSON.stringify(s)}`).toMatchObject({ status: 'accepted' });
    }
  });

  it('a tenant outside certification: 409; an unknown set: 404', async () => {
    const prod = await readyTenant(t, key);
    const set = await upload(prod, '01');
    // No body at all is fine (every field has a default); an unknown field is not.
    const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${prod}/certification/sets/${set.id}/documents` });
    expect(r.statusCode, r.body).toBe(409);
    expect(r.json().error.code).toBe('certification_tenant_not_in_certification');
    const early = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${prod}/certification/sets/${set.id}/send` });
    expect([early.statusCode, early.json().error.code], early.body).toEqual([409, 'certification_documents_missing']);
    const unknown = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${prod}/certification/sets/${set.id}/documents`,
      payload: { fecha: FECHA },
    });
    expect([unknown.statusCode, unknown.json().error.code], unknown.body).toEqual([400, 'invalid_field']);
    const missing = await make(prod, '00000000-0000-4000-8000-000000000000');
    expect([missing.statusCode, missing.json().error.code]).toEqual([404, 'certification_set_not_found']);
  });
});
