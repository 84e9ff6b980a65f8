import { decimalFromNumber, divideRoundHalfUp, multiply, pow10, roundHalfUp, type Decimal } from './decimal.ts';
import { DteEngineError } from './errors.ts';
import { TAX_CODES } from './tax-codes.ts';
import type { DescuentoGlobalInput, TipoDte } from './types.ts';
import { amountFamily, isLiquidacion } from './catalogue.ts';

/**
 * Amount rules (docs/dte.md, "Amounts"; the SII's format document, Totales fields 107–126), exact
 * decimals, half-up:
 *  - line: montoItem = round(cantidad × precioUnitario) − descuento + recargo, where a percentage
 *    is round(round(cantidad × precioUnitario) × pct / 100);
 *  - global discounts/surcharges (DscRcgGlobal) on the taxed or the exempt sum: % of that sum
 *    (rounded), or an amount;
 *  - taxed family (33, 43, 46, 52, 56, 61): neto = Σ taxed lines ± globals, IVA = round(neto × 19 %);
 *    with `montoBruto` (and boletas 39 unless `indMontoNeto`) the taxed sum includes IVA:
 *    neto = round(gross / 1.19), IVA = gross − neto (so neto + IVA is the gross amount exactly);
 *  - additional taxes and retentions (tax-codes.ts): per code, round(base × tasa / 100), the base
 *    being the lines that carry the code, scaled by the taxed sum's % globals;
 *  - MntTotal = neto + exento + IVA + additional − retained + GrntDep − commissions (43);
 *    MontoNF = Σ IndExe 2 − Σ IndExe 6 (not in the total); IndExe 4 and 5 count nowhere;
 *  - exports (110, 111, 112): everything exempt, in the document's currency with up to 4 decimals
 *    (format document: "14 enteros, 4 decimales"), integers when the currency is PESO CL.
 */
export const IVA_RATE_PERCENT = 19;

/** Each type's amount family is a fact of the catalogue (catalogue.ts). */
export type { AmountFamily } from './catalogue.ts';
export { amountFamily };

export interface AmountLine {
  cantidad?: number | undefined;
  precioUnitario?: number | undefined;
  exento?: boolean | undefined;
  indExe?: number | undefined;
  montoItem?: number | undefined;
  descuentoPct?: number | undefined;
  descuentoMonto?: number | undefined;
  recargoPct?: number | undefined;
  recargoMonto?: number | undefined;
  impuestoAdicional?: number | string | readonly (number | string)[] | undefined;
}

/** Document-level inputs that change the totals. */
export interface AmountOptions {
  descuentosGlobales?: readonly DescuentoGlobalInput[] | undefined;
  montoBruto?: boolean | undefined;
  indMontoNeto?: boolean | undefined;
  /** Exports: the document's currency; PESO CL keeps integers. */
  moneda?: string | undefined;
  /** Exports: the totals again in another currency. */
  otraMoneda?: { moneda: string; tipoCambio: number } | undefined;
  comisiones?: readonly { montoNeto: number; montoExento?: number | undefined }[] | undefined;
}

export interface LineAmounts {
  montoItem: number;
  descuentoMonto: number | undefined;
  recargoMonto: number | undefined;
}

export interface TaxTotal {
  tipo: number;
  tasa: number;
  monto: number;
  kind: 'adicional' | 'retencion';
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
  /** Each line's discount and surcharge amounts (computed from a percentage when so given). */
  lineAmounts: LineAmounts[];
  /** Each global discount/surcharge as an amount, in order. */
  globales: number[];
  /** Additional taxes and retentions (ImptoReten), by code in first-use order. */
  impuestos: TaxTotal[];
  /** IVA withheld by the buyer (Σ retentions). */
  ivaRetenido: number;
  /** IVANoRet: IVA − withheld, when something was withheld. */
  ivaNoRetenido: number;
  /** MontoNF. */
  montoNoFacturable: number;
  /** GrntDep: deposits on containers (IndExe 3). */
  garantiaDeposito: number;
  /** 43: Σ commissions (ValComNeto, ValComExe, ValComIVA). */
  comisiones: { neto: number; exento: number; iva: number } | null;
  /** Exports: OtraMoneda totals. */
  otraMoneda: { moneda: string; tipoCambio: number; montoExento: number; montoTotal: number } | null;
  /** Decimals the amounts may carry (0, or 4 for exports in a foreign currency). */
  scale: number;
}

export interface AmountMismatch {
  param: string;
  expected: number;
  actual: number | undefined;
  message: string;
}

const MAX_AMOUNT = 10n ** 18n - 1n; // MontoType: totalDigits 18
const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

/** Scaled integer (units of 10^-scale) → number; exact for the amounts the schema allows. */
function toNumber(v: bigint, scale: number, param: string): number {
  const abs = v < 0n ? -v : v;
  if (abs > MAX_AMOUNT || abs > MAX_EXACT) {
    throw new DteEngineError('amount_too_large', `${param} is too large; amounts must stay below 2^53`, param);
  }
  return scale === 0 ? Number(v) : Number(v) / 10 ** scale;
}

/** round(d) to `scale` decimals, as scaled units. */
function roundTo(d: Decimal, scale: number): bigint {
  return roundHalfUp(scale === 0 ? d : multiply(d, { units: pow10(scale), scale: 0 }));
}

function dec(n: number, param: string): Decimal {
  return decimalFromNumber(n, param);
}

/**
 * num / den rounded half away from zero: a negative amount (only a liquidación-factura has them)
 * rounds as its positive counterpart does, so −59 379 carries −11 282 of IVA as 59 379 carries 11 282.
 */
function divideRounded(num: bigint, den: bigint): bigint {
  return num >= 0n ? divideRoundHalfUp(num, den) : -divideRoundHalfUp(-num, den);
}

/** Scaled units rounded (half away from zero) to a whole amount, still scaled. */
function wholeUnits(units: bigint, scale: number): bigint {
  return scale === 0 ? units : divideRounded(units, pow10(scale)) * pow10(scale);
}

/** round(units × pct / 100), units scaled, pct a decimal. */
function percentOf(units: bigint, pct: Decimal): bigint {
  return divideRounded(units * pct.units, 100n * pow10(pct.scale));
}

/** ValComIVA of one commission line: "Valor * Tasa IVA" (format document, Comisiones field 7), half-up. */
export function comisionIva(montoNeto: number, param = 'comisiones'): number {
  return Number(divideRounded(signedScaled(montoNeto, 0, param) * BigInt(IVA_RATE_PERCENT), 100n));
}

export function computeLineAmount(cantidad: number, precioUnitario: number, param = 'detalle'): number {
  const q = dec(cantidad, `${param}.cantidad`);
  const p = dec(precioUnitario, `${param}.precioUnitario`);
  return toNumber(roundHalfUp(multiply(q, p)), 0, `${param}.montoItem`);
}

/** Whether a line counts as exempt (IndExe 1) for this document type. */
export function lineIsExempt(tipoDte: TipoDte, line: { exento?: boolean | undefined; indExe?: number | undefined }): boolean {
  const family = amountFamily(tipoDte);
  return family === 'exento' || family === 'boleta_exenta' || family === 'exportacion' || line.exento === true || line.indExe === 1;
}

/** The line's IndExe as written: 1 for exempt lines (and every line of an exempt type), else as given. */
export function lineIndExe(tipoDte: TipoDte, line: { exento?: boolean | undefined; indExe?: number | undefined }): number | undefined {
  if (line.indExe !== undefined && line.indExe !== 1) return line.indExe;
  return lineIsExempt(tipoDte, line) ? 1 : undefined;
}

export function taxCodesOf(line: AmountLine): number[] {
  const v = line.impuestoAdicional;
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map((c) => Number(c));
}

export function amountScale(tipoDte: TipoDte, moneda: string | undefined): number {
  return amountFamily(tipoDte) === 'exportacion' && moneda !== undefined && moneda !== 'PESO CL' ? 4 : 0;
}

function scaled(n: number, scale: number, param: string): bigint {
  const d = dec(n, param);
  if (d.scale > scale) {
    throw new DteEngineError(
      'invalid_number',
      scale === 0 ? `${param} must be a whole number of pesos` : `${param} may have at most ${scale} decimals`,
      param,
    );
  }
  return d.units * pow10(scale - d.scale);
}

/** scaled() of an amount that may be below zero (a liquidación-factura's lines and commissions). */
function signedScaled(n: number, scale: number, param: string): bigint {
  return n < 0 ? -scaled(-n, scale, param) : scaled(n, scale, param);
}

/**
 * A liquidación-factura's line may state its amount instead of a price: it liquidates documents
 * (QtyItem of them) whose total it reports, below zero for a credit note liquidated (format
 * document, field 38: "En liquidaciones factura puede ser negativo"; PrcItem, a Dec12_6Type, cannot
 * be). The SII's test set writes liquidaciones so (docs/certification.md).
 */
export const lineAmountGiven = (tipoDte: TipoDte, line: Pick<AmountLine, 'precioUnitario' | 'montoItem'>): boolean =>
  isLiquidacion(tipoDte) && line.precioUnitario === undefined && line.montoItem !== undefined;

function lineAmounts(line: AmountLine, i: number, scale: number, given: boolean): { units: bigint; desc?: bigint; rec?: bigint } {
  const p = `detalle[${i}]`;
  let base: bigint;
  if (given) {
    base = signedScaled(line.montoItem!, scale, `${p}.montoItem`);
  } else if (line.cantidad === undefined && line.precioUnitario === undefined) {
    base = 0n;
  } else {
    const q = dec(line.cantidad ?? 1, `${p}.cantidad`);
    const pr = dec(line.precioUnitario ?? 0, `${p}.precioUnitario`);
    base = roundTo(multiply(q, pr), scale);
  }
  const adjust = (pct: number | undefined, monto: number | undefined, what: 'descuento' | 'recargo'): bigint | undefined => {
    if (pct === undefined && monto === undefined) return undefined;
    // DescuentoMonto and RecargoMonto are whole in every section of DTE_v10.xsd (MntImpType), also
    // on an export in a foreign currency whose lines carry 4 decimals: a percentage rounds to a whole
    // amount (10 % of 62 FRANCO SZ is 6, and the line 68), and a given amount must be whole.
    const fromPct = pct !== undefined ? wholeUnits(percentOf(base, dec(pct, `${p}.${what}Pct`)), scale) : undefined;
    if (monto === undefined) return fromPct;
    if (!Number.isInteger(monto))
      throw new DteEngineError(
        'invalid_number',
        `${p}.${what}Monto must be a whole amount: the SII's schema takes a line's ${what} without decimals (MntImpType), also in a foreign currency`,
        `${p}.${what}Monto`,
      );
    const given = scaled(monto, scale, `${p}.${what}Monto`);
    if (fromPct !== undefined && given !== fromPct) {
      throw new DteEngineError(
        'amount_mismatch',
        `${p}.${what}Monto should be ${toNumber(fromPct, scale, p)} (${pct} % of ${toNumber(base, scale, p)}), got ${monto}`,
        `${p}.${what}Monto`,
        { expected: toNumber(fromPct, scale, p), actual: monto },
      );
    }
    return given;
  };
  const desc = adjust(line.descuentoPct, line.descuentoMonto, 'descuento');
  const rec = adjust(line.recargoPct, line.recargoMonto, 'recargo');
  const units = base - (desc ?? 0n) + (rec ?? 0n);
  if (units < 0n && !given) {
    throw new DteEngineError('negative_line_amount', `${p}: the discount is larger than the line's amount`, `${p}.descuentoMonto`);
  }
  return { units, ...(desc !== undefined ? { desc } : {}), ...(rec !== undefined ? { rec } : {}) };
}

export function computeTotals(tipoDte: TipoDte, detalle: readonly AmountLine[], opts: AmountOptions = {}): Totals {
  const family = amountFamily(tipoDte);
  const scale = amountScale(tipoDte, opts.moneda);
  const n = (v: bigint, param: string) => toNumber(v, scale, param);

  let taxed = 0n;
  let exempt = 0n;
  let noFacturable = 0n;
  let deposit = 0n;
  const codeBase = new Map<number, bigint>();
  // IndExe 4 ("ítem no venta") and 5 ("ítem a rebajar"): MontoItem "debe ser cero" (format document
  // §B field 38); their price and quantity are printed only.
  const perLine = detalle.map((l, i) => {
    const ind = lineIndExe(tipoDte, l);
    return ind === 4 || ind === 5 ? { units: 0n } : lineAmounts(l, i, scale, lineAmountGiven(tipoDte, l));
  });
  perLine.forEach(({ units }, i) => {
    const line = detalle[i]!;
    const ind = lineIndExe(tipoDte, line);
    if (ind === 1) exempt += units;
    else if (ind === 2) noFacturable += units;
    else if (ind === 6) noFacturable -= units;
    else if (ind === 3) deposit += units;
    else if (ind === 4 || ind === 5) {
      /* "ítem no venta" / "ítem a rebajar": amount 0, counted nowhere (format document, IndExe). */
    } else {
      taxed += units;
      for (const c of taxCodesOf(line)) codeBase.set(c, (codeBase.get(c) ?? 0n) + units);
    }
  });

  // Global discounts and surcharges, each on the sum it names (the sum before any of them).
  const taxedBefore = taxed;
  const exemptBefore = exempt;
  const taxedPctNet: Decimal[] = [];
  const globales = (opts.descuentosGlobales ?? []).map((g, i) => {
    const p = `descuentosGlobales[${i}]`;
    const onExempt = g.exento === true || family === 'exento' || family === 'boleta_exenta' || family === 'exportacion';
    const sum = onExempt ? exemptBefore : taxedBefore;
    const value = g.unidad === '%' ? percentOf(sum, dec(g.valor, `${p}.valor`)) : scaled(g.valor, scale, `${p}.valor`);
    const signed = g.tipo === 'descuento' ? -value : value;
    if (onExempt) exempt += signed;
    else {
      taxed += signed;
      if (g.unidad === '%') {
        const pct = dec(g.valor, `${p}.valor`);
        taxedPctNet.push({ units: g.tipo === 'descuento' ? -pct.units : pct.units, scale: pct.scale });
      } else if (codeBase.size > 0) {
        throw new DteEngineError(
          'global_amount_with_additional_tax',
          `${p}: a global ${g.tipo} in pesos cannot be split over lines with additional taxes; use a percentage or a line ${g.tipo}`,
          p,
        );
      }
    }
    return n(value, `${p}.valor`);
  });
  // A liquidación-factura's sums may be below zero (its lines may be); other documents' lines never
  // are, so only global discounts can take a sum there.
  if ((taxed < 0n || exempt < 0n) && !isLiquidacion(tipoDte)) {
    throw new DteEngineError('negative_total', 'The global discounts are larger than the amounts they apply to', 'descuentosGlobales');
  }

  let neto = 0n;
  let iva = 0n;
  let tasaIva: number | null = IVA_RATE_PERCENT;
  const gross = family === 'boleta' ? opts.indMontoNeto !== true : opts.montoBruto === true;
  if (family === 'exento' || family === 'boleta_exenta' || family === 'exportacion') {
    tasaIva = null;
    exempt += taxed; // every line of these types is exempt; nothing is taxed
    taxed = 0n;
  } else if (gross) {
    neto = divideRoundHalfUp(taxed * 100n, BigInt(100 + IVA_RATE_PERCENT));
    iva = taxed - neto;
  } else {
    neto = taxed;
    iva = divideRounded(taxed * BigInt(IVA_RATE_PERCENT), 100n);
  }

  const impuestos: TaxTotal[] = [];
  let adicional = 0n;
  let retenido = 0n;
  for (const [codigo, base0] of codeBase) {
    const t = TAX_CODES.get(codigo);
    if (!t) continue; // refused in normalisation; never reached with a prepared document
    let base = base0;
    for (const pct of taxedPctNet) base += percentOf(base0, pct);
    const monto = percentOf(base, dec(t.tasa, 'tasa'));
    impuestos.push({ tipo: codigo, tasa: t.tasa, monto: n(monto, 'impuestos'), kind: t.kind });
    if (t.kind === 'adicional') adicional += monto;
    else retenido += monto;
  }
  const ivaNoRet = retenido > 0n && iva > retenido ? iva - retenido : 0n;

  let comisiones: Totals['comisiones'] = null;
  let comisionTotal = 0n;
  if (opts.comisiones && opts.comisiones.length > 0) {
    let cn = 0n;
    let ce = 0n;
    let ci = 0n;
    // ValComIVA per line (format document, Comisiones field 7: "Valor * Tasa IVA"); the total is their sum.
    opts.comisiones.forEach((c, i) => {
      const neto = signedScaled(c.montoNeto, 0, `comisiones[${i}].montoNeto`);
      cn += neto;
      ce += signedScaled(c.montoExento ?? 0, 0, `comisiones[${i}].montoExento`);
      ci += BigInt(comisionIva(c.montoNeto, `comisiones[${i}].montoNeto`));
    });
    comisiones = { neto: Number(cn), exento: Number(ce), iva: Number(ci) };
    comisionTotal = cn + ce + ci;
  }

  const total = neto + exempt + iva + adicional - retenido + deposit - comisionTotal;
  // Only a liquidación-factura, whose commissions are subtracted, may total below zero.
  if (total < 0n && !isLiquidacion(tipoDte)) {
    throw new DteEngineError('negative_total', 'The document total would be negative', 'montoTotal');
  }

  let otraMoneda: Totals['otraMoneda'] = null;
  if (opts.otraMoneda) {
    const rate = dec(opts.otraMoneda.tipoCambio, 'exportacion.otraMoneda.tipoCambio');
    const otherScale = opts.otraMoneda.moneda === 'PESO CL' ? 0 : 4;
    const conv = (units: bigint) => toNumber(roundTo(multiply({ units, scale }, rate), otherScale), otherScale, 'exportacion.otraMoneda');
    otraMoneda = {
      moneda: opts.otraMoneda.moneda,
      tipoCambio: opts.otraMoneda.tipoCambio,
      montoExento: conv(exempt),
      montoTotal: conv(total),
    };
  }

  return {
    montoNeto: n(neto, 'montoNeto'),
    montoExento: n(exempt, 'montoExento'),
    iva: n(iva, 'iva'),
    montoTotal: n(total, 'montoTotal'),
    tasaIva,
    lineas: perLine.map((l, i) => n(l.units, `detalle[${i}].montoItem`)),
    lineAmounts: perLine.map((l, i) => ({
      montoItem: n(l.units, `detalle[${i}].montoItem`),
      descuentoMonto: l.desc !== undefined ? n(l.desc, `detalle[${i}].descuentoMonto`) : undefined,
      recargoMonto: l.rec !== undefined ? n(l.rec, `detalle[${i}].recargoMonto`) : undefined,
    })),
    globales,
    impuestos,
    ivaRetenido: n(retenido, 'ivaRetenido'),
    ivaNoRetenido: n(ivaNoRet, 'ivaNoRetenido'),
    montoNoFacturable: n(noFacturable, 'montoNoFacturable'),
    garantiaDeposito: n(deposit, 'garantiaDeposito'),
    comisiones,
    otraMoneda,
    scale,
  };
}

/**
 * Every amount mismatch between what the client sent and what the rules give, in the API's error
 * shape (`param`, `expected`, `actual`, `message` naming the expected value). The expected total is
 * computed from the correct line amounts, so one wrong line yields two entries (the line and the
 * total) only when the client's total followed its wrong line.
 */
export function checkAmounts(
  tipoDte: TipoDte,
  detalle: readonly AmountLine[],
  montoTotal: number | undefined,
  opts: AmountOptions = {},
): AmountMismatch[] {
  const totals = computeTotals(tipoDte, detalle, opts);
  const out: AmountMismatch[] = [];
  totals.lineas.forEach((expected, i) => {
    const line = detalle[i];
    const actual = line?.montoItem;
    if (actual !== expected) {
      const la = totals.lineAmounts[i];
      const how =
        line?.cantidad === undefined && line?.precioUnitario === undefined
          ? 'a line without cantidad and precioUnitario is 0'
          : `round(cantidad × precioUnitario)${la?.descuentoMonto !== undefined ? ` − descuento ${la.descuentoMonto}` : ''}${la?.recargoMonto !== undefined ? ` + recargo ${la.recargoMonto}` : ''}`;
      out.push({
        param: `detalle[${i}].montoItem`,
        expected,
        actual,
        message: `detalle[${i}].montoItem should be ${expected} (${how}), got ${String(actual)}`,
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

export function describeTotal(tipoDte: TipoDte, t: Totals): string {
  const parts: string[] = [];
  switch (amountFamily(tipoDte)) {
    case 'exento':
    case 'boleta_exenta':
    case 'exportacion':
      parts.push(`exento ${t.montoExento}`);
      break;
    default:
      parts.push(`neto ${t.montoNeto}`, `IVA ${t.iva} (19%)`, `exento ${t.montoExento}`);
  }
  for (const i of t.impuestos) parts.push(`${i.kind === 'adicional' ? '+' : '−'} ${i.monto} (código ${i.tipo}, ${i.tasa}%)`);
  if (t.garantiaDeposito) parts.push(`garantía ${t.garantiaDeposito}`);
  if (t.comisiones) parts.push(`− comisiones ${t.comisiones.neto + t.comisiones.exento + t.comisiones.iva}`);
  return parts.join(' + ').replace(/\+ ([−+])/g, '$1');
}
