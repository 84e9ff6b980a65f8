import { dec, HUNDRED, mulDivRound, ONE, roundTo, show, type Dec } from './decimal.ts';
import { finding, type Finding } from './findings.ts';
import { blocks, text } from './xml.ts';

/**
 * Detail lines and global discounts/surcharges [SII-FORMATO §B, §D; REF §7]: each line's
 * MontoItem, and the sums the header totals are checked against.
 */
export interface Line {
  nro: string;
  indExe: string | undefined;
  monto: Dec | null;
  qty: Dec | null;
  prc: Dec | null;
  descuento: Dec;
  recargo: Dec;
  codes: string[];
}

export function readLines(dte: string): Line[] {
  return blocks(dte, 'Detalle').map((d, i) => ({
    nro: text(d, 'NroLinDet') ?? String(i + 1),
    indExe: text(d, 'IndExe'),
    monto: dec(text(d, 'MontoItem')),
    qty: dec(text(d, 'QtyItem')),
    prc: dec(text(d, 'PrcItem')),
    descuento: dec(text(d, 'DescuentoMonto')) ?? 0n,
    recargo: dec(text(d, 'RecargoMonto')) ?? 0n,
    codes: blocks(d, 'CodImpAdic').map((c) => c.trim()),
  }));
}

export interface LineRules {
  /** Decimals of the document's currency: 0 for pesos, 4 for exports in another currency [F §A fields 106, 102]. */
  places: number;
  /** Guía NO VENTA: a line's MontoItem "puede ser cero" [F §B field 38, 2)]. */
  zeroAllowed: boolean;
  /** A note that only corrects text: its amounts are judged by REF-3-761, not line by line. */
  textCorrection: boolean;
}

/**
 * DET-2-100: MontoItem = (PrcItem × QtyItem) − DescuentoMonto + RecargoMonto [F §B field 38],
 * the product rounded half-up to the currency's decimals [REF §7]. DescuentoPct/RecargoPct are
 * informative ("si va el descuento en %, debe ir el monto correspondiente", §B fields 30, 34): the
 * Monto is what counts. A line without QtyItem or PrcItem keeps its MontoItem. IndExe 4 (ítem no
 * venta) and 5 (ítem a rebajar) must be zero [F §B field 38, 1)].
 */
export function lineFindings(lines: Line[], rules: LineRules): Finding[] {
  const out: Finding[] = [];
  for (const l of lines) {
    if (l.monto === null) continue;
    let expected: Dec | null = null;
    if (l.indExe === '4' || l.indExe === '5') expected = 0n;
    else if (!rules.textCorrection && l.qty !== null && l.prc !== null) {
      expected = mulDivRound(l.qty, l.prc, ONE, rules.places) - l.descuento + l.recargo;
      if (rules.zeroAllowed && l.monto === 0n) expected = 0n;
    }
    if (expected !== null && expected !== l.monto) {
      out.push(finding('DET-2-100', `línea ${l.nro}: MontoItem ${show(l.monto)}, esperado ${show(expected)}`));
    }
  }
  return out;
}

/** Sums by IndExe [F §A fields 107, 108, 120, 125; §B field 5]. */
export interface Sums {
  taxed: Dec;
  exempt: Dec;
  /** MontoNF: IndExe 2 minus IndExe 6. */
  noFacturable: Dec;
  /** GrntDep: IndExe 3, garantía por depósito de envases. */
  deposit: Dec;
}

/** `allExempt`: exempt documents (34, 41, exports), whose every line is exempt [F §B note 11]. IndExe 4 and 5 add nothing. */
export function lineSums(lines: Line[], allExempt: boolean): Sums {
  const s: Sums = { taxed: 0n, exempt: 0n, noFacturable: 0n, deposit: 0n };
  for (const l of lines) {
    const m = l.monto ?? 0n;
    if (l.indExe === undefined || l.indExe === '') {
      if (allExempt) s.exempt += m;
      else s.taxed += m;
    } else if (l.indExe === '1') s.exempt += m;
    else if (l.indExe === '2') s.noFacturable += m;
    else if (l.indExe === '6') s.noFacturable -= m;
    else if (l.indExe === '3') s.deposit += m;
  }
  return s;
}

/**
 * DscRcgGlobal [F §D]: D subtracts, R adds; TpoValor `%` → round(Σ of the affected lines ×
 * ValorDR / 100), `$` → ValorDR; IndExeDR 1 → the exempt lines, 2 → the no facturables, absent →
 * the taxed ones (the exempt ones on an exempt document). Null when one cannot be read.
 */
export function applyGlobals(dte: string, lineSum: Sums, places: number, allExempt: boolean): { sums: Sums; onTaxed: boolean } | null {
  const sums = { ...lineSum };
  let onTaxed = false;
  for (const g of blocks(dte, 'DscRcgGlobal')) {
    const mov = text(g, 'TpoMov');
    const tipo = text(g, 'TpoValor');
    const valor = dec(text(g, 'ValorDR'));
    const ind = text(g, 'IndExeDR');
    if ((mov !== 'D' && mov !== 'R') || (tipo !== '%' && tipo !== '$') || valor === null) return null;
    const key: keyof Sums = ind === '1' || (ind === undefined && allExempt) ? 'exempt' : ind === '2' ? 'noFacturable' : 'taxed';
    if (key === 'taxed') onTaxed = true;
    const amount = tipo === '%' ? mulDivRound(lineSum[key], valor, HUNDRED, places) : roundTo(valor, places);
    sums[key] += mov === 'D' ? -amount : amount;
  }
  return { sums, onTaxed };
}
