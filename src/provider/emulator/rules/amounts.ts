import { boletaAmountFindings, BOLETAS } from './boleta-amounts.ts';
import { commissionFindings } from './commissions.ts';
import { dec, HUNDRED, mulDivRound, show, type Dec } from './decimal.ts';
import { exportAmountFindings } from './export-amounts.ts';
import { EXPORTS } from './export-form.ts';
import { finding, type Finding } from './findings.ts';
import { applyGlobals, lineFindings, lineSums, readLines } from './lines.ts';
import { isTextCorrection, NOTES, readReferences } from './references.ts';
import { taxFindings } from './taxes.ts';
import { text } from './xml.ts';

/**
 * Reparos (level 2) for amounts that do not add up. Wrong amounts never reject: "No se rechazan
 * documentos por errores de contenido por ejemplo errores como que el IVA no sea igual a la tasa
 * del IVA por el Monto neto" [SII-FORMATO §2.2]. Each model in its file: exports
 * (export-amounts.ts), boletas (boleta-amounts.ts), and here every other `Documento` (33, 34, 46,
 * 52, 56, 61) and the `Liquidacion` 43. What cannot be read or is not in the SII's rules (an
 * unknown tax code, a discount that cannot be read) gives no finding.
 */
export function amountFindings(dte: string, tipoDte: number): Finding[] {
  const textCorrection = NOTES.has(tipoDte) && isTextCorrection(readReferences(dte));
  if (EXPORTS.has(tipoDte)) return exportAmountFindings(dte, textCorrection);
  if (BOLETAS.has(tipoDte)) return boletaAmountFindings(dte, tipoDte);
  return documentAmountFindings(dte, tipoDte, textCorrection);
}

/**
 * [SII-FORMATO §A fields 107-125]: MntNeto = Σ taxed lines ± global D/R (÷ (1 + TasaIVA) with
 * MntBruto 1, IVA then the gross sum − MntNeto [REF §7] or MntNeto × TasaIVA), MntExe = Σ exempt lines ± D/R (HED-2-303,
 * also MontoNF and GrntDep); IVA = round(MntNeto × TasaIVA / 100) (HED-2-302); the ImptoReten
 * table (taxes.ts) and Comisiones (commissions.ts); MntTotal = MntNeto + MntExe + IVA +
 * additional taxes − retentions + GrntDep − CredEC − comisiones, all as declared (field 124;
 * HED-2-260, "Monto Total No Cuadra con Parciales"). 34 is exempt as a whole (every line counts
 * as exempt, §B note 11); a guía that is not a sale (IndTraslado ≠ 1) may carry zero MontoItem.
 */
function documentAmountFindings(dte: string, tipoDte: number, textCorrection: boolean): Finding[] {
  const totales = text(dte, 'Totales') ?? '';
  const idDoc = text(dte, 'IdDoc') ?? '';
  const lines = readLines(dte);
  const zeroAllowed = tipoDte === 52 && text(idDoc, 'IndTraslado') !== '1';
  const out = lineFindings(lines, { places: 0, zeroAllowed, textCorrection });
  const allExempt = tipoDte === 34;
  const g = applyGlobals(dte, lineSums(lines, allExempt), 0, allExempt);
  if (g === null) return out;
  const s = g.sums;
  const d = (tag: string): Dec | null => dec(text(totales, tag));
  const neto = d('MntNeto') ?? 0n;
  const exe = d('MntExe') ?? 0n;
  const iva = d('IVA') ?? 0n;
  const tasa = d('TasaIVA');
  const bruto = text(idDoc, 'MntBruto') === '1';
  // MntBruto is "sólo para documentos sin impuestos adicionales" [F §A field 10]: with them, neto and IVA are not judged.
  const taxed = lines.some((l) => l.codes.length > 0) || totales.includes('<ImptoReten>');
  const expectedNeto = !bruto ? s.taxed : taxed || tasa === null ? null : mulDivRound(s.taxed, HUNDRED, HUNDRED + tasa, 0);
  if ((expectedNeto !== null && neto !== expectedNeto) || exe !== s.exempt) {
    out.push(
      finding(
        'HED-2-303',
        `MntNeto ${show(neto)} / MntExe ${show(exe)}, detalle ${expectedNeto === null ? '-' : show(expectedNeto)} / ${show(s.exempt)}`,
      ),
    );
  }
  for (const [tag, expected] of [
    ['MontoNF', s.noFacturable],
    ['GrntDep', s.deposit],
  ] as const) {
    if ((d(tag) ?? 0n) !== expected) out.push(finding('HED-2-303', `${tag} ${show(d(tag) ?? 0n)}, detalle ${show(expected)}`));
  }
  if (tasa !== null && !(bruto && taxed)) {
    // With MntBruto the format divides the gross sum for MntNeto (field 107) but still says IVA =
    // "Monto neto * tasa IVA" (field 112); IVA = gross − MntNeto [REF §7] keeps the gross total.
    // Both are accepted.
    const byRate = mulDivRound(neto, tasa, HUNDRED, 0);
    if (iva !== byRate && !(bruto && iva === s.taxed - neto)) {
      const expected = bruto ? `${show(s.taxed - neto)} (bruto − neto) o ${show(byRate)}` : show(byRate);
      out.push(finding('HED-2-302', `IVA ${show(iva)}, esperado ${expected} (${show(tasa)} %)`));
    }
  }
  const taxes = taxFindings(totales, lines, iva, !bruto && !g.onTaxed);
  const commissions = commissionFindings(dte, totales, tasa);
  out.push(...taxes.findings, ...commissions.findings);
  const total = d('MntTotal');
  if (total !== null && taxes.known) {
    const expected =
      neto + exe + iva + taxes.additional - taxes.retained + (d('GrntDep') ?? 0n) - (d('CredEC') ?? 0n) - commissions.deduction;
    if (total !== expected) out.push(finding('HED-2-260', `Total -> [${show(total)}] <> [${show(expected)}] <- suma de parciales`));
  }
  return out;
}
