import { afterAll, beforeAll, expect, it } from 'vitest';
import { computeTotals, siiDate, type TipoDte } from '../../../src/dte/index.ts';
import { describeEachDb } from '../../support/db.ts';
import { readyTenant, requestFolios, startIssuingApp, waitFinal, type IssuingApp } from '../../support/issuing.ts';
import { SAMPLE_CASES, type SampleCase } from './samples.cases.ts';

/**
 * The document model over HTTP (docs/dte.md): each of the project's sample documents
 * (samples.cases.ts, one per feature, totals worked out by hand there) is created over HTTP and its
 * echoed totals compared with the hand-worked ones. The API refuses a montoTotal that is not its
 * own, so a 201 with the hand-worked total is the check; then the emulated SII reviews them all.
 */
type Obj = Record<string, unknown>;
const samples = SAMPLE_CASES;

/** The case's body with its date, each line's montoItem (the API refuses any other) and the hand-worked total. */
function toBody(c: SampleCase, fecha: string): Obj {
  const body: Obj = { fechaEmision: fecha, ...c.body(fecha) };
  const detalle = body.detalle as Obj[];
  const exportacion = body.exportacion as { moneda: string; otraMoneda?: { moneda: string; tipoCambio: number } } | undefined;
  const totals = computeTotals(body.tipoDte as TipoDte, detalle as never, {
    descuentosGlobales: body.descuentosGlobales as never,
    moneda: exportacion?.moneda,
    otraMoneda: exportacion?.otraMoneda,
  });
  body.detalle = detalle.map((l, i) => ({ ...l, montoItem: totals.lineas[i] }));
  body.montoTotal = c.want.montoTotal;
  return body;
}

describeEachDb('the sample documents over HTTP', (backend) => {
  let t: IssuingApp;
  let key: string;
  let tenantId: string;
  const created: { name: string; id: string; tipoDte: number; folio: number }[] = [];
  // Today: the folios are authorised today, and the SII refuses a document dated before its CAF (HED-3-305).
  const fecha = siiDate(new Date());

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
    tenantId = await readyTenant(t, key);
    for (const tipo of new Set(samples.map((s) => Number(s.body('2026-01-01').tipoDte)))) await requestFolios(t, key, tenantId, tipo, 10);
  });
  afterAll(() => t?.close());

  it(`creates each with the hand-worked totals: ${samples.length}/${samples.length}`, async () => {
    const results: string[] = [];
    created.length = 0;
    for (const c of samples) {
      const res = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: toBody(c, fecha) });
      if (res.statusCode !== 201) {
        results.push(`${c.name}: ${res.statusCode} ${res.body}`);
        continue;
      }
      const d = res.json();
      created.push({ name: c.name, id: d.id, tipoDte: d.tipoDte, folio: d.folio });
      const got: Obj = { montoTotal: d.montoTotal };
      if (c.want.montoNeto !== undefined) got.montoNeto = d.montoNeto;
      if (c.want.montoExento !== undefined) got.montoExento = d.montoExento;
      if (c.want.iva !== undefined) got.iva = d.iva;
      if (c.want.impuesto) {
        const i = d.impuestos[0];
        got.impuesto = i && { tipo: i.tipo, tasa: i.tasa, monto: i.monto };
      }
      if (c.want.ivaNoRetenido !== undefined) got.ivaNoRetenido = d.ivaNoRetenido;
      const want = Object.fromEntries(Object.keys(got).map((k) => [k, c.want[k as keyof SampleCase['want']]]));
      if (JSON.stringify(got) !== JSON.stringify(want)) results.push(`${c.name}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
    }
    expect(results).toEqual([]);
    expect(created).toHaveLength(samples.length);
  });

  it('the emulated SII accepts all of them without objection (DOK), sent together, reviewing them with its own rules', async () => {
    expect(created).toHaveLength(samples.length);
    // Some samples reference another sample (a guía, a nota de crédito, an export note, each folio
    // 1) that comes after them in the caller's order. The SII rejects a reference to a document it
    // has not received yet (REF-3-750): the envelope puts referenced documents first (dte.envelope-order.ts).
    const sent = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/dte/send`,
      payload: { dteIds: created.map((c) => c.id) },
    });
    expect(sent.statusCode, sent.body).toBe(202);
    const verdicts: string[] = [];
    for (const c of created) {
      const st = await waitFinal(t, key, c.id);
      if (st.status !== 'accepted' || st.sii.estado !== 'DOK') verdicts.push(`${c.name}: ${st.status} ${st.sii.estado} ${st.sii.glosa}`);
    }
    expect(verdicts).toEqual([]);
  });
});
