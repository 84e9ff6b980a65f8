import { finding, type Finding } from './findings.ts';
import { blocks, text } from './xml.ts';

/** Factura, nota de débito and nota de crédito de exportación: root `Exportaciones` [XSD-DTE]. */
export const EXPORTS: ReadonlySet<number> = new Set([110, 111, 112]);
/** The foreign receptor's RUT: "En doctos. Exportac. 55.555.555-5" [SII-FORMATO §A field 50]. */
export const RUT_FOREIGN = '55555555-5';

/**
 * What the format document makes mandatory on exports, and only that (SII-FORMATO v2.2 §A, §B):
 *
 * - HED-3-314 (ours, a rejection): RUTRecep is not 55555555-5 (field 50; RUTRecep is a (*) field,
 *   "el DTE no se considerará válidamente emitido").
 * - HED-2-804 (the SII's code for a missing export field [REF §10], a reparo), on the factura 110:
 *   CodModVenta, CodClauVenta, TotClauVenta "obligatorio … excepto cuando en el Indicador Servicio
 *   se indicó 3, 4 o 5" (fields 74-76); CodViaTransp, CodPtoEmbarque, CodPtoDesemb obligatorio
 *   "excepto cuando el Indicador Servicio = 4" (77, 84, 86); CodPaisRecep "1" within Aduana (104);
 *   DirRecep, CiudadRecep and CiudadOrigen "1" (60, 62, 46); each line's QtyItem and UnmdItem
 *   "obligatorio a excepción cuando en el Indicador de Servicio se registra el valor 3, 4 o 5"
 *   (§B 15, 21). On every export, TermPagoGlosa "obligatorio si se indicó … Términos del
 *   pago-Código" (28).
 *
 * Not enforced, because the format does not make them mandatory or contradicts itself:
 * Nacionalidad ("3", optional, field 54); TpoMoneda (field 106, already required by the schema);
 * OtraMoneda (the area is "3" although fields 129-138 say "obligatorio" for exports); TotBultos
 * ("1" in the Aduana sub-area, which services also carry for CodViaTransp); FchCancel for
 * "anticipo" (its FmaPagExp code is in Aduana's table, not in the format).
 */
export function exportFormFindings(dte: string, tipoDte: number): Finding[] {
  const out: Finding[] = [];
  const rut = text(text(dte, 'Receptor') ?? '', 'RUTRecep');
  if (rut !== undefined && rut !== RUT_FOREIGN) out.push(finding('HED-3-314', `RUTRecep ${rut}`));
  const missing: string[] = [];
  const idDoc = text(dte, 'IdDoc') ?? '';
  if (text(idDoc, 'TermPagoCdg') && !text(idDoc, 'TermPagoGlosa')) missing.push('TermPagoGlosa');
  if (tipoDte === 110) {
    const servicio = text(idDoc, 'IndServicio') ?? '';
    const aduana = text(dte, 'Aduana');
    const goods = !['3', '4', '5'].includes(servicio);
    const need = (fields: string[], when: boolean) => {
      if (when) missing.push(...fields.filter((f) => !text(aduana ?? '', f)));
    };
    need(['CodModVenta', 'CodClauVenta', 'TotClauVenta'], goods);
    need(['CodViaTransp', 'CodPtoEmbarque', 'CodPtoDesemb'], servicio !== '4');
    need(['CodPaisRecep'], aduana !== undefined);
    const receptor = text(dte, 'Receptor') ?? '';
    missing.push(...['DirRecep', 'CiudadRecep'].filter((f) => !text(receptor, f)));
    if (!text(text(dte, 'Emisor') ?? '', 'CiudadOrigen')) missing.push('CiudadOrigen');
    if (goods) {
      blocks(dte, 'Detalle').forEach((d, i) => {
        for (const f of ['QtyItem', 'UnmdItem']) if (!text(d, f)) missing.push(`${f} (línea ${text(d, 'NroLinDet') ?? i + 1})`);
      });
    }
  }
  if (missing.length > 0) out.push(finding('HED-2-804', `falta ${missing.join(', ')}`));
  return out;
}
