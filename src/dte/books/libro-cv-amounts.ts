import { DteEngineError } from '../errors.ts';
import type { BookEntry } from './book-types.ts';

/**
 * One entry's registered amounts by the IECV manual (docs/certification.md, "Books"): the document's IVA is split
 * as `tasa × neto = MntIVA (recoverable) + IVA no recuperable + IVA uso común` (§3.4 field 15;
 * casos especiales I.1: MntIVA 0 and the IVA in IVANoRec; I.2: MntIVA 0 and the IVA in
 * IVAUsoComun), and `MntTotal = neto + exento + IVA (all three parts) + other taxes − IVA
 * withheld` (§3.4 field 25; for sales §3.2 field 36, and casos especiales II.1: a factura de
 * compra with full withholding totals the neto).
 */
export interface EntryAmounts {
  anulado: boolean;
  exento: number;
  neto: number;
  ivaRecuperable: number;
  ivaUsoComun: number;
  ivaNoRecuperable: { codigo: number; monto: number } | null;
  otros: { codigo: number; tasa?: number | undefined; monto: number }[];
  ivaRetenidoTotal: number;
  total: number;
}

const whole = (v: unknown, param: string, allowNegative = false): number => {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || (!allowNegative && v < 0))
    throw new DteEngineError('invalid_field', `${param} must be a whole number of pesos${allowNegative ? '' : ' (0 or more)'}`, param);
  return v;
};

export function entryAmounts(e: BookEntry, i: number, operacion: 'COMPRA' | 'VENTA'): EntryAmounts {
  const p = `entries[${i}]`;
  if (e.anulado) {
    return {
      anulado: true,
      exento: 0,
      neto: 0,
      ivaRecuperable: 0,
      ivaUsoComun: 0,
      ivaNoRecuperable: null,
      otros: [],
      ivaRetenidoTotal: 0,
      total: 0,
    };
  }
  const exento = whole(e.exento, `${p}.exento`);
  const neto = whole(e.neto, `${p}.neto`);
  const iva = whole(e.iva, `${p}.iva`);
  const t = e.ivaTreatment ?? { kind: 'recuperable' };
  if (operacion === 'VENTA' && t.kind !== 'recuperable')
    throw new DteEngineError(
      'invalid_field',
      'IVA de uso común and IVA no recuperable are registered in purchase books only',
      `${p}.ivaTreatment`,
    );
  const otros = (e.otrosImpuestos ?? []).map((o, k) => ({
    codigo: whole(o.codigo, `${p}.otrosImpuestos[${k}].codigo`),
    tasa: o.tasa,
    monto: whole(o.monto, `${p}.otrosImpuestos[${k}].monto`),
  }));
  const ivaRetenidoTotal = whole(e.ivaRetenidoTotal ?? 0, `${p}.ivaRetenidoTotal`);
  if (ivaRetenidoTotal > iva) throw new DteEngineError('invalid_field', 'ivaRetenidoTotal cannot exceed the IVA', `${p}.ivaRetenidoTotal`);
  const total = neto + exento + iva + otros.reduce((s, o) => s + o.monto, 0) - ivaRetenidoTotal;
  if (e.total !== undefined && e.total !== total)
    throw new DteEngineError(
      'book_amount_mismatch',
      `${p}: the total ${e.total} is not neto + exento + IVA + other taxes − IVA withheld = ${total}`,
      `${p}.total`,
    );
  return {
    anulado: false,
    exento,
    neto,
    ivaRecuperable: t.kind === 'recuperable' ? iva : 0,
    ivaUsoComun: t.kind === 'uso_comun' ? iva : 0,
    ivaNoRecuperable: t.kind === 'no_recuperable' ? { codigo: t.codigo, monto: iva } : null,
    otros,
    ivaRetenidoTotal,
    total,
  };
}

/** ResumenPeriodo/TotalesPeriodo of one document type (IECV §3.1 and §3.3). */
export interface TypeTotals {
  tipoDoc: number;
  documentos: number;
  anulados: number;
  exento: number;
  neto: number;
  iva: number;
  ivaNoRecuperable: { codigo: number; operaciones: number; monto: number }[];
  ivaUsoComun: { operaciones: number; monto: number; factor: number; credito: number } | null;
  otrosImpuestos: { codigo: number; monto: number }[];
  ivaRetenidoTotal: { operaciones: number; monto: number } | null;
  total: number;
}

/**
 * The credit of the IVA de uso común: factor × total, rounded half up to whole pesos (casos
 * especiales I.2: 0.6 × 22,876 = 13,725.6 → 13,726). The factor has at most 3 decimals
 * (LibroCV_v10.xsd FctProp), so the product is computed in thousandths, exactly.
 */
export function creditoUsoComun(monto: number, factor: number): number {
  const k = Math.round(factor * 1000);
  return Math.floor((monto * k + 500) / 1000);
}

export function typeTotals(entries: { tipoDoc: number; a: EntryAmounts }[], factor: number | null): TypeTotals[] {
  const by = new Map<number, TypeTotals>();
  for (const { tipoDoc, a } of entries) {
    let t = by.get(tipoDoc);
    if (!t) {
      t = {
        tipoDoc,
        documentos: 0,
        anulados: 0,
        exento: 0,
        neto: 0,
        iva: 0,
        ivaNoRecuperable: [],
        ivaUsoComun: null,
        otrosImpuestos: [],
        ivaRetenidoTotal: null,
        total: 0,
      };
      by.set(tipoDoc, t);
    }
    t.documentos++;
    if (a.anulado) {
      t.anulados++;
      continue;
    }
    t.exento += a.exento;
    t.neto += a.neto;
    t.iva += a.ivaRecuperable;
    t.total += a.total;
    if (a.ivaNoRecuperable) {
      const code = a.ivaNoRecuperable.codigo;
      let n = t.ivaNoRecuperable.find((x) => x.codigo === code);
      if (!n) t.ivaNoRecuperable.push((n = { codigo: code, operaciones: 0, monto: 0 }));
      n.operaciones++;
      n.monto += a.ivaNoRecuperable.monto;
    }
    if (a.ivaUsoComun > 0) {
      t.ivaUsoComun ??= { operaciones: 0, monto: 0, factor: 0, credito: 0 };
      t.ivaUsoComun.operaciones++;
      t.ivaUsoComun.monto += a.ivaUsoComun;
    }
    for (const o of a.otros) {
      const x = t.otrosImpuestos.find((y) => y.codigo === o.codigo);
      if (x) x.monto += o.monto;
      else t.otrosImpuestos.push({ codigo: o.codigo, monto: o.monto });
    }
    if (a.ivaRetenidoTotal > 0) {
      t.ivaRetenidoTotal ??= { operaciones: 0, monto: 0 };
      t.ivaRetenidoTotal.operaciones++;
      t.ivaRetenidoTotal.monto += a.ivaRetenidoTotal;
    }
  }
  const out = [...by.values()].sort((x, y) => x.tipoDoc - y.tipoDoc);
  for (const t of out) {
    t.ivaNoRecuperable.sort((x, y) => x.codigo - y.codigo);
    if (!t.ivaUsoComun) continue;
    if (factor === null)
      throw new DteEngineError(
        'required_field',
        'Entries with IVA de uso común need the factor of proportionality (factorProporcionalidad)',
        'factorProporcionalidad',
      );
    t.ivaUsoComun.factor = factor;
    t.ivaUsoComun.credito = creditoUsoComun(t.ivaUsoComun.monto, factor);
  }
  return out;
}
