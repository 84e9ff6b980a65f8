import { DteEngineError } from '../errors.ts';
import type { NormalizedDocument } from '../normalize.ts';
import { RUT_FOREIGN } from '../rut.ts';

/**
 * What the format document makes mandatory on exports (SII-FORMATO v2.2, docs/sources.md [F],
 * §A and §B), checked before a folio so that the SII neither
 * rejects the document nor answers it with a reparo (HED-3-314, HED-2-804 in the emulator's
 * rules/export-form.ts, which reads the same fields from the XML):
 *
 * - every export (`checkExportForm`): RUTRecep is 55.555.555-5 (field 50, a (*) field);
 * - the factura de exportación (`checkFacturaExportacionForm`, after it): DirRecep and CiudadRecep (fields 60, 62), the issuer's CiudadOrigen (46);
 *   customs data unless IndServicio exempts it: CodModVenta, CodClauVenta, TotClauVenta except
 *   on services (IndServicio 3, 4, 5; fields 74–76), CodViaTransp, CodPtoEmbarque, CodPtoDesemb
 *   except on hotel services (4; fields 77, 84, 86), CodPaisRecep whenever Aduana is written
 *   (104); each line's QtyItem and UnmdItem except on services (§B 15, 21).
 */
export function checkExportForm(d: NormalizedDocument): void {
  if (d.receptor.rut !== RUT_FOREIGN)
    throw new DteEngineError(
      'foreign_receptor_required',
      `An export (${d.tipoDte}) is addressed to a foreign receptor: receptor.rut must be 55.555.555-5, with the receptor's own identity in receptor.extranjero`,
      'receptor.rut',
    );
}

export function checkFacturaExportacionForm(d: NormalizedDocument): void {
  checkExportForm(d);
  for (const k of ['direccion', 'ciudad'] as const)
    if (d.receptor[k] === undefined)
      throw new DteEngineError('receptor_incomplete', `receptor.${k} is required on a factura de exportación (110)`, `receptor.${k}`);
  if (d.emisor.ciudad === undefined)
    throw new DteEngineError(
      'issuer_incomplete',
      "A factura de exportación (110) needs the issuer's city (CiudadOrigen): set the tenant's ciudad",
      'emisor.ciudad',
    );
  const servicio = d.indServicio;
  const goods = servicio === undefined || ![3, 4, 5].includes(servicio);
  const aduana = d.exportacion?.aduana?.fields ?? {};
  const need = (when: boolean, keys: string[], why: string) => {
    if (!when) return;
    const missing = keys.filter((k) => aduana[k] === undefined);
    if (missing.length > 0)
      throw new DteEngineError(
        'export_incomplete',
        `exportacion.aduana.${missing.join(', exportacion.aduana.')} ${missing.length > 1 ? 'are' : 'is'} required on a factura de exportación ${why}`,
        `exportacion.aduana.${missing[0]!}`,
      );
  };
  need(goods, ['modalidadVenta', 'clausulaVenta', 'totalClausulaVenta'], 'of goods (indServicio other than 3, 4 or 5)');
  need(servicio !== 4, ['viaTransporte', 'puertoEmbarque', 'puertoDesembarque'], 'unless it is for hotel services (indServicio 4)');
  need(d.exportacion?.aduana !== undefined, ['paisReceptor'], 'that carries customs data');
  if (goods)
    d.detalle.forEach((line, i) => {
      for (const k of ['cantidad', 'unidad'] as const)
        if (line[k] === undefined)
          throw new DteEngineError(
            'export_incomplete',
            `detalle[${i}].${k} is required on each line of a factura de exportación of goods (indServicio other than 3, 4 or 5)`,
            `detalle[${i}].${k}`,
          );
    });
}
