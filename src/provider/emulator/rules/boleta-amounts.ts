import { dec, HUNDRED, mulDivRound, show, type Dec } from './decimal.ts';
import { finding, type Finding } from './findings.ts';
import { applyGlobals, lineFindings, lineSums, readLines } from './lines.ts';
import { text } from './xml.ts';

export const BOLETAS: ReadonlySet<number> = new Set([39, 41]);
/** Boletas carry no TasaIVA; the IVA rate is 19 % [REF §2.2, §7]. */
const TASA_IVA: Dec = 19_000_000n;

/**
 * Boletas (39, 41) [REF §2.2, §7; EnvioBOLETA_v11.xsd]: MontoItem "corresponde al Monto Bruto, a
 * menos que IndMntNeto indique lo contrario". Gross: MntTotal = Σ lines ± DscRcgGlobal
 * (HED-2-260, whose text and detail are the SII's recorded answer [C "Envio con boletas aceptado
 * con reparo"]); MntNeto = round(taxed gross / 1.19) and IVA = taxed gross − MntNeto, each judged
 * only when present (both are optional). IndMntNeto 2: lines are net, IVA = round(MntNeto × 19 %),
 * MntTotal = MntNeto + IVA + MntExe. The 41 is exempt as a whole; MontoNF is IndExe 2 − IndExe 6.
 */
export function boletaAmountFindings(dte: string, tipoDte: number): Finding[] {
  const totales = text(dte, 'Totales') ?? '';
  const lines = readLines(dte);
  const out = lineFindings(lines, { places: 0, zeroAllowed: false, textCorrection: false });
  const allExempt = tipoDte === 41;
  const g = applyGlobals(dte, lineSums(lines, allExempt), 0, allExempt);
  if (g === null) return out;
  const s = g.sums;
  const d = (tag: string): Dec | null => dec(text(totales, tag));
  const neto = d('MntNeto');
  const iva = d('IVA');
  const exe = d('MntExe') ?? 0n;
  if (exe !== s.exempt) out.push(finding('HED-2-303', `MntExe ${show(exe)}, detalle ${show(s.exempt)}`));
  if ((d('MontoNF') ?? 0n) !== s.noFacturable)
    out.push(finding('HED-2-303', `MontoNF ${show(d('MontoNF') ?? 0n)}, detalle ${show(s.noFacturable)}`));
  let expectedTotal: Dec;
  if (text(text(dte, 'IdDoc') ?? '', 'IndMntNeto') === '2') {
    if ((neto ?? 0n) !== s.taxed) out.push(finding('HED-2-303', `MntNeto ${show(neto ?? 0n)}, detalle ${show(s.taxed)}`));
    const expectedIva = mulDivRound(neto ?? 0n, TASA_IVA, HUNDRED, 0);
    if ((iva ?? 0n) !== expectedIva) out.push(finding('HED-2-302', `IVA ${show(iva ?? 0n)}, esperado ${show(expectedIva)} (19 %)`));
    expectedTotal = (neto ?? 0n) + (iva ?? 0n) + exe;
  } else {
    const expectedNeto = mulDivRound(s.taxed, HUNDRED, HUNDRED + TASA_IVA, 0);
    if (neto !== null && neto !== expectedNeto)
      out.push(finding('HED-2-303', `MntNeto ${show(neto)}, esperado ${show(expectedNeto)} (bruto ${show(s.taxed)})`));
    const expectedIva = s.taxed - (neto ?? expectedNeto);
    if (iva !== null && iva !== expectedIva) out.push(finding('HED-2-302', `IVA ${show(iva)}, esperado ${show(expectedIva)}`));
    expectedTotal = s.taxed + s.exempt;
  }
  const total = d('MntTotal');
  if (total !== null && total !== expectedTotal)
    out.push(finding('HED-2-260', `Total -> [${show(total)}] <> [${show(expectedTotal)}] <- suma de detalles`));
  return out;
}
