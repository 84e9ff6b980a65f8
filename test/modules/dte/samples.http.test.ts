import { afterAll, beforeAll, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { computeTotals, siiDate, type TipoDte } from '../../../src/dte/index.ts';
import { siiSharedDir } from '../../support/dte/check-sii-xml.ts';
import { describeEachDb } from '../../support/db.ts';
import { readyTenant, requestFolios, startIssuingApp, waitFinal, type IssuingApp } from '../../support/issuing.ts';

/**
 * decisions §11: every one of the 27 sample inputs in `shared/sii/samples/json-inputs/` (the SII
 * format's field names, as LibreDTE publishes them) is mapped to an API request, created over
 * HTTP, and its totals compared with `montos_esperados.json`. The API refuses a montoTotal that is
 * not its own, so a 201 with the expected total is the check; the echoed totals are compared too.
 */
const DIR = path.join(siiSharedDir(), 'samples', 'json-inputs');
const expected = JSON.parse(fs.readFileSync(path.join(DIR, 'montos_esperados.json'), 'utf8')) as Record<string, Record<string, unknown>>;
const samples = Object.keys(expected).map((name) => {
  const tipo = name.split('_')[0]!;
  return { name, json: JSON.parse(fs.readFileSync(path.join(DIR, tipo, `${name}.json`), 'utf8')) as Sample };
});

type Obj = Record<string, unknown>;
interface Sample {
  Encabezado: { IdDoc: Obj; Receptor?: Obj; Totales?: Obj; OtraMoneda?: Obj; Transporte?: Obj };
  Detalle: Obj | Obj[];
  DscRcgGlobal?: Obj | Obj[];
  Referencia?: Obj | Obj[];
}
const list = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const num = (v: unknown): number | undefined => (v === undefined || v === false ? undefined : Number(v));

/** The sample in the API's words (docs/dte.md). Where a sample contradicts a rule of §11, the comment says so. */
function toBody(name: string, s: Sample, fecha: string): Obj {
  const id = s.Encabezado.IdDoc;
  const tipoDte = Number(id.TipoDTE) as TipoDte;
  const r = s.Encabezado.Receptor;
  const detalle = list(s.Detalle).map((d) => {
    const cdg = list(d.CdgItem as Obj | Obj[] | undefined);
    return {
      nombre: String(d.NmbItem),
      ...(d.DscItem ? { descripcion: String(d.DscItem) } : {}),
      ...(num(d.QtyItem) !== undefined ? { cantidad: num(d.QtyItem) } : {}),
      ...(d.PrcItem !== undefined || num(d.QtyItem) !== undefined ? { precioUnitario: num(d.PrcItem) ?? 0 } : {}),
      ...(d.UnmdItem ? { unidad: String(d.UnmdItem) } : {}),
      ...(d.IndExe ? { indExe: Number(d.IndExe) } : {}),
      ...(cdg.length ? { codigos: cdg.map((c) => ({ tipo: String(c.TpoCodigo), valor: String(c.VlrCodigo) })) } : {}),
      ...(d.DescuentoMonto ? { descuentoMonto: Number(d.DescuentoMonto) } : {}),
      ...(d.DescuentoPct ? { descuentoPct: Number(d.DescuentoPct) } : {}),
      ...(d.CodImpAdic ? { impuestoAdicional: Number(d.CodImpAdic) } : {}),
      ...(d.Retenedor ? { retenedor: true } : {}),
    };
  });
  const globales = list(s.DscRcgGlobal).map((g) => ({
    tipo: g.TpoMov === 'D' ? 'descuento' : 'recargo',
    valor: Number(g.ValorDR),
    unidad: String(g.TpoValor),
    ...(Number(g.IndExeDR) === 1 ? { exento: true } : {}),
  }));
  const referencias = list(s.Referencia).map((x) => ({
    tipoDocRef: String(x.TpoDocRef),
    folioRef: String(x.FolioRef),
    // References without FchRef (a passport, 813) get the document's date: FchRef is mandatory in DTE_v10.
    fechaRef: String(x.FchRef ?? fecha),
    // 61_003 "corrige monto" declares CodRef 2 (corrige texto) with amounts, which §11 refuses
    // (codRef 2 notes carry zero amounts): it is sent as what its name says, 3.
    ...(x.CodRef ? { codRef: name === '61_003_corrige_monto_factura' ? 3 : Number(x.CodRef) } : {}),
    ...(x.RazonRef ? { razonRef: String(x.RazonRef) } : {}),
  }));
  const t = s.Encabezado.Transporte;
  const chofer = t?.Chofer as Obj | undefined;
  const exportacion =
    tipoDte >= 110
      ? {
          moneda: String(s.Encabezado.Totales?.TpoMoneda),
          ...(s.Encabezado.OtraMoneda
            ? { otraMoneda: { moneda: String(s.Encabezado.OtraMoneda.TpoMoneda), tipoCambio: Number(s.Encabezado.OtraMoneda.TpoCambio) } }
            : {}),
        }
      : undefined;
  const body: Obj = {
    tipoDte,
    fechaEmision: fecha,
    receptor: r && {
      rut: String(r.RUTRecep),
      razonSocial: String(r.RznSocRecep),
      ...(r.GiroRecep ? { giro: String(r.GiroRecep) } : {}),
      ...(r.DirRecep ? { direccion: String(r.DirRecep) } : {}),
      ...(r.CmnaRecep ? { comuna: String(r.CmnaRecep) } : {}),
      // The 110 samples leave out CiudadRecep, which the format makes mandatory on a factura de
      // exportación (field 62; docs/dte.md, `receptor_incomplete`): their address names the city.
      ...(r.CiudadRecep
        ? { ciudad: String(r.CiudadRecep) }
        : tipoDte === 110 && r.DirRecep
          ? { ciudad: String(r.DirRecep).split(',').at(-2)!.trim() }
          : {}),
      ...(r.Extranjero ? { extranjero: { nacionalidad: String((r.Extranjero as Obj).Nacionalidad) } } : {}),
    },
    detalle,
    ...(globales.length ? { descuentosGlobales: globales } : {}),
    ...(referencias.length ? { referencias } : {}),
    ...(id.FmaPago ? { formaPago: Number(id.FmaPago) } : {}),
    ...(id.TermPagoGlosa ? { terminosPago: String(id.TermPagoGlosa) } : {}),
    ...(id.IndServicio ? { indServicio: Number(id.IndServicio) } : {}),
    ...(id.IndTraslado ? { indTraslado: Number(id.IndTraslado) } : {}),
    ...(id.TipoDespacho ? { tipoDespacho: Number(id.TipoDespacho) } : {}),
    ...(t
      ? {
          transporte: {
            ...(t.Patente ? { patente: String(t.Patente) } : {}),
            ...(t.RUTTrans ? { rutTransportista: String(t.RUTTrans) } : {}),
            ...(chofer ? { rutChofer: String(chofer.RUTChofer), nombreChofer: String(chofer.NombreChofer) } : {}),
            ...(t.DirDest ? { direccion: String(t.DirDest) } : {}),
            ...(t.CmnaDest ? { comuna: String(t.CmnaDest) } : {}),
          },
        }
      : {}),
    ...(exportacion ? { exportacion } : {}),
  };
  // Line amounts as the API requires them (it refuses any other); the total is the sample's expected one.
  const totals = computeTotals(tipoDte, detalle as never, {
    descuentosGlobales: globales as never,
    moneda: exportacion?.moneda,
    otraMoneda: exportacion?.otraMoneda,
  });
  body.detalle = detalle.map((l, i) => ({ ...l, montoItem: totals.lineas[i] }));
  body.montoTotal = Number(expected[name]!.MntTotal);
  return body;
}

describeEachDb('the 27 sample inputs over HTTP', (backend) => {
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
    for (const tipo of new Set(samples.map((s) => Number(s.name.split('_')[0])))) await requestFolios(t, key, tenantId, tipo, 10);
  });
  afterAll(() => t?.close());

  it('creates each with the expected totals: 27/27', async () => {
    const results: string[] = [];
    created.length = 0;
    for (const { name, json } of samples) {
      const res = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: toBody(name, json, fecha) });
      const want = expected[name]!;
      if (res.statusCode !== 201) {
        results.push(`${name}: ${res.statusCode} ${res.body}`);
        continue;
      }
      const d = res.json();
      created.push({ name, id: d.id, tipoDte: d.tipoDte, folio: d.folio });
      const got: Obj = { MntTotal: d.montoTotal };
      if ('MntNeto' in want) got.MntNeto = d.montoNeto;
      if ('MntExe' in want) got.MntExe = d.montoExento;
      if ('IVA' in want) got.IVA = d.iva;
      if ('ImptoReten' in want) {
        const i = d.impuestos[0];
        got.ImptoReten = i && { TipoImp: i.tipo, TasaImp: i.tasa, MontoImp: i.monto };
      }
      if ('IVANoRet' in want) got.IVANoRet = d.ivaNoRetenido;
      if (JSON.stringify(got) !== JSON.stringify(Object.fromEntries(Object.keys(got).map((k) => [k, want[k]]))))
        results.push(`${name}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
    }
    expect(results).toEqual([]);
    expect(samples).toHaveLength(27);
  });

  it('the emulated SII accepts all 27 without objection (DOK), sent together, reviewing them with its own rules', async () => {
    expect(created).toHaveLength(27);
    // Three samples reference another sample (a guía, a nota de crédito, an export note, each folio
    // 1), some sent after them in the caller's order. The SII rejects a reference to a document it
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
