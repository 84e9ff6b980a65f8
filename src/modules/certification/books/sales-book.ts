import { DteEngineError, TAX_CODES, type BookEntry } from '../../../dte/index.ts';
import type { Dte } from '../../dte/index.ts';

/**
 * What the sales book needs of an issued document: the dte module's view of it (GET …/dte/{id}).
 * The set says which documents go in: those of the básico section, or of the exenta section when
 * the set has no básico (its "SET LIBRO DE VENTAS" text; docs/certification.md, "Books").
 */
export type IssuedDocument = Pick<
  Dte,
  | 'tipoDte'
  | 'folio'
  | 'fechaEmision'
  | 'receptor'
  | 'referencias'
  | 'montoNeto'
  | 'montoExento'
  | 'iva'
  | 'impuestos'
  | 'ivaRetenido'
  | 'montoTotal'
>;

/**
 * One sales-book entry per document, amounts as the document carries them (IECV §3.2): additional
 * taxes with their code and rate, the IVA withheld (a factura de compra we received), the first
 * reference to another document (a note's), and the document's own total, which the builder
 * checks against the manual's formula.
 */
export function salesBookEntry(d: IssuedDocument, i: number): BookEntry {
  const isRetention = (t: { tipo: number }) => TAX_CODES.get(t.tipo)?.kind === 'retencion';
  const retenciones = d.impuestos.filter(isRetention);
  if (retenciones.some((t) => t.monto > 0) && d.ivaRetenido !== retenciones.reduce((s, t) => s + t.monto, 0))
    throw new DteEngineError(
      'book_unsupported',
      `documents[${i}] withholds part of the IVA: the sales book here registers full withholding only`,
      `documents[${i}]`,
    );
  const ref = d.referencias.find((r) => /^\d+$/.test(r.tipoDocRef) && /^\d+$/.test(r.folioRef));
  return {
    tipoDoc: d.tipoDte,
    folio: d.folio,
    fecha: d.fechaEmision,
    rut: d.receptor.rut,
    razonSocial: d.receptor.razonSocial ?? undefined,
    exento: d.montoExento,
    neto: d.montoNeto,
    iva: d.iva,
    otrosImpuestos: d.impuestos.filter((t) => !isRetention(t)).map((t) => ({ codigo: t.tipo, tasa: t.tasa, monto: t.monto })),
    ...(d.ivaRetenido > 0 ? { ivaRetenidoTotal: d.ivaRetenido } : {}),
    referencia: ref ? { tipoDoc: Number(ref.tipoDocRef), folio: Number(ref.folioRef) } : undefined,
    total: d.montoTotal,
  };
}

export const salesBookEntries = (docs: readonly IssuedDocument[]): BookEntry[] => docs.map(salesBookEntry);
