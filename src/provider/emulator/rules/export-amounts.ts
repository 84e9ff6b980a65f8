import { dec, mulDivRound, ONE, show, type Dec } from './decimal.ts';
import { finding, type Finding } from './findings.ts';
import { applyGlobals, lineFindings, lineSums, readLines } from './lines.ts';
import { text } from './xml.ts';

/**
 * Amounts of an export document (110, 111, 112; root `Exportaciones`) [SII-FORMATO §A fields
 * 106-138]: every amount is in the document's currency, TpoMoneda ("todos los campos de montos del
 * documento estarán indicados en esta moneda"), with up to 4 decimals ("14 enteros y cuatro
 * decimales", fields 102, 103, 131-138), rounded half-up; `PESO CL` amounts are whole pesos.
 * Every line is exempt: MntExe = Σ lines ± DscRcgGlobal (HED-2-303), MntTotal = MntExe, or 0
 * when FmaPagExp is 21, "sin pago" (field 124) (HED-2-260).
 *
 * OtraMoneda in pesos (`PESO CL`): exports inform MntTotOtrMnda and MntExeOtrMnda "en pesos
 * chilenos" at TpoCambio, "el tipo de cambio … para la conversión de otra moneda a pesos
 * chilenos" (fields 130, 132, 138), so each is the document's amount × TpoCambio: whole pesos, or
 * to the field's 4 decimals; either is accepted (HED-2-320, ours). In any other currency the
 * format gives no conversion rule ("sin validación de fórmula"), and nothing is judged.
 */
export function exportAmountFindings(dte: string, textCorrection: boolean): Finding[] {
  const totales = text(dte, 'Totales') ?? '';
  const places = text(totales, 'TpoMoneda') === 'PESO CL' ? 0 : 4;
  const lines = readLines(dte);
  const out = lineFindings(lines, { places, zeroAllowed: false, textCorrection });
  const g = applyGlobals(dte, lineSums(lines, true), places, true);
  const exe = dec(text(totales, 'MntExe')) ?? 0n;
  const total = dec(text(totales, 'MntTotal'));
  if (g === null || total === null) return out;
  if (exe !== g.sums.exempt) out.push(finding('HED-2-303', `MntExe ${show(exe)}, detalle ${show(g.sums.exempt)}`));
  const expected = text(text(dte, 'IdDoc') ?? '', 'FmaPagExp') === '21' ? 0n : exe;
  if (total !== expected) out.push(finding('HED-2-260', `Total -> [${show(total)}] <> [${show(expected)}] <- suma de parciales`));
  out.push(...pesosFindings(text(dte, 'OtraMoneda'), { MntTotOtrMnda: total, MntExeOtrMnda: exe }));
  return out;
}

function pesosFindings(otra: string | undefined, amounts: Record<string, Dec>): Finding[] {
  const cambio = dec(text(otra ?? '', 'TpoCambio'));
  if (otra === undefined || text(otra, 'TpoMoneda') !== 'PESO CL' || cambio === null) return [];
  const out: Finding[] = [];
  for (const [field, amount] of Object.entries(amounts)) {
    const declared = dec(text(otra, field));
    if (declared === null) continue;
    const whole = mulDivRound(amount, cambio, ONE, 0);
    if (declared !== whole && declared !== mulDivRound(amount, cambio, ONE, 4)) {
      out.push(finding('HED-2-320', `${field} ${show(declared)}, esperado ${show(whole)} (${show(amount)} × ${show(cambio)})`));
    }
  }
  return out;
}
