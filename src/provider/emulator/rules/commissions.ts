import { dec, HUNDRED, mulDivRound, show, type Dec } from './decimal.ts';
import { finding, type Finding } from './findings.ts';
import { blocks, text } from './xml.ts';

/**
 * Comisiones y otros cargos [SII-FORMATO §F; §A fields 121-124]: mandatory on the liquidación-
 * factura 43, optional on 46 and on notes that correct it. The lines "no modifican la base del
 * impuesto"; the header's ValComNeto, ValComExe and ValComIVA are the sums of the lines' values,
 * each line's ValComIVA is "Valor * Tasa IVA", and the three are subtracted from MntTotal
 * ("… − Valor Neto Comisiones y Otros Cargos − IVA Comisiones y Otros Cargos − Valor Comisiones
 * y Otros Cargos No Afectos o Exentos"). Findings: HED-2-309; `deduction` is what the header
 * declares, for the total.
 */
export function commissionFindings(dte: string, totales: string, tasaIva: Dec | null): { findings: Finding[]; deduction: Dec } {
  const findings: Finding[] = [];
  // The detail zone's lines carry NroLinCom; Totales holds a Comisiones of its own without it.
  const lines = blocks(dte, 'Comisiones').filter((b) => b.includes('<NroLinCom>'));
  const header = text(totales, 'Comisiones') ?? '';
  const declared = {
    neto: dec(text(header, 'ValComNeto')) ?? 0n,
    exe: dec(text(header, 'ValComExe')) ?? 0n,
    iva: dec(text(header, 'ValComIVA')) ?? 0n,
  };
  if (lines.length > 0) {
    const sums = { neto: 0n, exe: 0n, iva: 0n };
    for (const l of lines) {
      const neto = dec(text(l, 'ValComNeto')) ?? 0n;
      const iva = dec(text(l, 'ValComIVA'));
      sums.neto += neto;
      sums.exe += dec(text(l, 'ValComExe')) ?? 0n;
      sums.iva += iva ?? 0n;
      const expected = tasaIva === null ? null : mulDivRound(neto, tasaIva, HUNDRED, 0);
      if (iva !== null && expected !== null && iva !== expected) {
        findings.push(finding('HED-2-309', `comisión ${text(l, 'NroLinCom')}: ValComIVA ${show(iva)}, esperado ${show(expected)}`));
      }
    }
    for (const k of ['neto', 'exe', 'iva'] as const) {
      if (declared[k] !== sums[k]) {
        const tag = { neto: 'ValComNeto', exe: 'ValComExe', iva: 'ValComIVA' }[k];
        findings.push(finding('HED-2-309', `${tag} ${show(declared[k])}, suma de comisiones ${show(sums[k])}`));
      }
    }
  }
  return { findings, deduction: declared.neto + declared.exe + declared.iva };
}
