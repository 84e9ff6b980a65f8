import { decimalFromNumber, divideRoundHalfUp, multiply, roundHalfUp } from './decimal.ts';
import { DteEngineError } from './errors.ts';
import type { TipoDte } from './types.ts';

/**
 * Amount rules of the API (docs/dte.md, "Amounts"), CLP integers, half-up:
 *  - line: montoItem = round(cantidad × precioUnitario), exact decimal product (see decimal.ts);
 *  - facturas, notes, 46, 52 ("afecto" family): neto = Σ taxed lines, exento = Σ `exento` lines,
 *    IVA = round(neto × 0.19), total = neto + IVA + exento;
 *  - exempt types 34/41: every line is exempt, total = exento = Σ montoItem;
 *  - boleta 39: prices include IVA; total = Σ montoItem, exento = Σ exempt lines,
 *    neto = round((total − exento) / 1.19), IVA = (total − exento) − neto (so neto + IVA is exactly
 *    the gross amount: computing IVA as neto × 0.19 loses a peso in cases like 680 or 86710).
 */
export const IVA_RATE_PERCENT = 19;

export type AmountFamily = 'afecto' | 'exento' | 'boleta' | 'boleta_exenta';

export function amountFamily(tipoDte: TipoDte): AmountFamily {
  switch (tipoDte) {
    case 34:
      return 'exento';
    case 41:
      return 'boleta_exenta';
    case 39:
      return 'boleta';
    default:
      return 'afecto';
  }
}

export interface AmountLine {
  cantidad: number;
  precioUnitario: number;
  exento?: boolean | undefined;
  montoItem?: number | undefined;
}

export interface Totals {
  montoNeto: number;
  montoExento: number;
  iva: number;
  montoTotal: number;
  /** IVA rate applied, percent (19), or null for documents without IVA. */
  tasaIva: number | null;
  /** Expected montoItem of each line, in order. */
  lineas: number[];
}

export interface AmountMismatch {
  param: string;
  expected: number;
  actual: number | undefined;
  message: string;
}

const MAX_AMOUNT = 10n ** 18n - 1n; // MontoType: totalDigits 18

function toSafeNumber(v: bigint, param: string): number {
  if (v > MAX_AMOUNT || v > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new DteEngineError('amount_too_large', `${param} is too large (${v}); amounts must stay below 2^53`, param);
  }
  return Number(v);
}

export function computeLineAmount(cantidad: number, precioUnitario: number, param = 'detalle'): number {
  const q = decimalFromNumber(cantidad, `${param}.cantidad`);
  const p = decimalFromNumber(precioUnitario, `${param}.precioUnitario`);
  return toSafeNumber(roundHalfUp(multiply(q, p)), `${param}.montoItem`);
}

/** Whether a line counts as exempt for this document type. */
export function lineIsExempt(tipoDte: TipoDte, line: { exento?: boolean | undefined }): boolean {
  const family = amountFamily(tipoDte);
  return family === 'exento' || family === 'boleta_exenta' || line.exento === true;
}

export function computeTotals(tipoDte: TipoDte, detalle: readonly AmountLine[]): Totals {
  const lineas = detalle.map((l, i) => computeLineAmount(l.cantidad, l.precioUnitario, `detalle[${i}]`));
  let afecto = 0n;
  let exento = 0n;
  lineas.forEach((m, i) => {
    const line = detalle[i];
    if (line && lineIsExempt(tipoDte, line)) exento += BigInt(m);
    else afecto += BigInt(m);
  });
  const family = amountFamily(tipoDte);
  let neto: bigint;
  let iva: bigint;
  let total: bigint;
  let tasaIva: number | null = IVA_RATE_PERCENT;
  if (family === 'exento' || family === 'boleta_exenta') {
    neto = 0n;
    iva = 0n;
    total = exento;
    tasaIva = null;
  } else if (family === 'boleta') {
    // afecto here is gross (IVA included).
    neto = divideRoundHalfUp(afecto * 100n, BigInt(100 + IVA_RATE_PERCENT));
    iva = afecto - neto;
    total = afecto + exento;
  } else {
    neto = afecto;
    iva = divideRoundHalfUp(afecto * BigInt(IVA_RATE_PERCENT), 100n);
    total = neto + iva + exento;
  }
  return {
    montoNeto: toSafeNumber(neto, 'montoNeto'),
    montoExento: toSafeNumber(exento, 'montoExento'),
    iva: toSafeNumber(iva, 'iva'),
    montoTotal: toSafeNumber(total, 'montoTotal'),
    tasaIva,
    lineas,
  };
}

/**
 * Every amount mismatch between what the client sent and what the rules give, in the API's error
 * shape (`param`, `expected`, `actual`, `message` naming the expected value). The expected total is
 * computed from the correct line amounts, so one wrong line yields two entries (the line and the
 * total) only when the client's total followed its wrong line.
 */
export function checkAmounts(tipoDte: TipoDte, detalle: readonly AmountLine[], montoTotal: number | undefined): AmountMismatch[] {
  const totals = computeTotals(tipoDte, detalle);
  const out: AmountMismatch[] = [];
  totals.lineas.forEach((expected, i) => {
    const actual = detalle[i]?.montoItem;
    if (actual !== expected) {
      out.push({
        param: `detalle[${i}].montoItem`,
        expected,
        actual,
        message: `detalle[${i}].montoItem should be ${expected} (round(cantidad × precioUnitario)), got ${String(actual)}`,
      });
    }
  });
  if (montoTotal !== totals.montoTotal) {
    out.push({
      param: 'montoTotal',
      expected: totals.montoTotal,
      actual: montoTotal,
      message: `montoTotal should be ${totals.montoTotal} (${describeTotal(tipoDte, totals)}), got ${String(montoTotal)}`,
    });
  }
  return out;
}

function describeTotal(tipoDte: TipoDte, t: Totals): string {
  switch (amountFamily(tipoDte)) {
    case 'exento':
    case 'boleta_exenta':
      return 'sum of montoItem, all exempt';
    case 'boleta':
      return `sum of montoItem with IVA included: neto ${t.montoNeto} + IVA ${t.iva} + exento ${t.montoExento}`;
    default:
      return `neto ${t.montoNeto} + IVA ${t.iva} (19%) + exento ${t.montoExento}`;
  }
}
