import { dec, HUNDRED, mulDivRound, show, sum, type Dec } from './decimal.ts';
import { finding, type Finding } from './findings.ts';
import type { Line } from './lines.ts';
import { TAX_CODES } from './tax-codes.ts';
import { blocks, text } from './xml.ts';

/** What the ImptoReten table adds to and takes from MntTotal, as declared. */
export interface TaxTotals {
  findings: Finding[];
  additional: Dec;
  retained: Dec;
  /** False when a code is unknown or a MontoImp unreadable: the total cannot be judged. */
  known: boolean;
}

/**
 * ImptoReten [SII-FORMATO §A fields 115-118, §4]: each TipoImp with a rate in the table (tax-codes.ts)
 * must carry that TasaImp (HED-2-306) and MontoImp = round(Σ MontoItem of the lines with that
 * CodImpAdic × tasa / 100) (HED-2-307); a line's code with no ImptoReten is a missing tax. IVANoRet,
 * when present, is IVA − the IVA retained (HED-2-308).
 *
 * `judgeRates` is false when the lines' sums do not stand for the tax base: global discounts on
 * taxed lines (the format asks for `%` discounts so each code's base shrinks in proportion [F §D
 * a)], but does not say how that is rounded) or MntBruto, which is "sólo para documentos sin
 * impuestos adicionales" [F §A field 10]. Then the amounts are summed, not judged.
 */
export function taxFindings(totales: string, lines: Line[], iva: Dec, judgeRates: boolean): TaxTotals {
  const out: TaxTotals = { findings: [], additional: 0n, retained: 0n, known: true };
  const declared = new Set<string>();
  const baseOf = (code: string) => sum(lines.filter((l) => l.codes.includes(code)).map((l) => l.monto ?? 0n));
  for (const b of blocks(totales, 'ImptoReten')) {
    const tipo = text(b, 'TipoImp') ?? '';
    const tasa = dec(text(b, 'TasaImp'));
    const monto = dec(text(b, 'MontoImp'));
    const code = TAX_CODES[tipo];
    declared.add(tipo);
    if (!code || monto === null) {
      out.known = false;
      continue;
    }
    if (code.kind === 'additional') out.additional += monto;
    else out.retained += monto;
    if (!judgeRates || code.rate === undefined) continue;
    const legal = dec(code.rate)!;
    if (!code.usual && tasa !== null && tasa !== legal) {
      out.findings.push(finding('HED-2-306', `TipoImp ${tipo}: TasaImp ${show(tasa)}, corresponde ${show(legal)}`));
    }
    const rate = code.usual && tasa !== null ? tasa : legal;
    const base = baseOf(tipo);
    const expected = mulDivRound(base, rate, HUNDRED, 0);
    if (monto !== expected) {
      out.findings.push(
        finding('HED-2-307', `TipoImp ${tipo}: MontoImp ${show(monto)}, esperado ${show(expected)} (${show(rate)} % de ${show(base)})`),
      );
    }
  }
  if (judgeRates) {
    for (const tipo of new Set(lines.flatMap((l) => l.codes))) {
      const rate = TAX_CODES[tipo]?.rate;
      if (declared.has(tipo) || rate === undefined) continue;
      const expected = mulDivRound(baseOf(tipo), dec(rate)!, HUNDRED, 0);
      if (expected !== 0n) out.findings.push(finding('HED-2-307', `TipoImp ${tipo} ausente, esperado ${show(expected)}`));
    }
  }
  const noRet = dec(text(totales, 'IVANoRet'));
  if (noRet !== null && noRet !== iva - out.retained) {
    out.findings.push(
      finding(
        'HED-2-308',
        `IVANoRet ${show(noRet)}, esperado ${show(iva - out.retained)} (IVA ${show(iva)} − retenido ${show(out.retained)})`,
      ),
    );
  }
  return out;
}
