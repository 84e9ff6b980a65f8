import { IVA_RATE_PERCENT, withholdsIva, type BookEntry, type IvaTreatment } from '../../../dte/index.ts';
import type { ParsedSet, PurchaseEntry } from '../set/set.types.ts';

/**
 * The set's purchase list as the purchase book's entries (docs/certification.md, "Books").
 * The set gives each entry's type, folio, observation and amounts (MONTO AFECTO is the neto);
 * the IVA is 19 % of the neto rounded half up, and the observation says how it is registered
 * (IECV manual §3.4 fields 15–21, casos especiales I.1 and I.2):
 *  - "IVA USO COMUN": IVAUsoComun, credited in the summary by the set's factor;
 *  - "ENTREGA GRATUITA": IVA no recuperable, code 4 (gifts received);
 *  - "RETENCION TOTAL" on a type that withholds IVA (factura de compra): withheld in full;
 *  - a note's observation ending in a document name and folio ("… A FACTURA 234") is its reference.
 * The set names no supplier: the caller gives one RUT (and name, required for paper documents).
 */
export interface PurchaseBookOptions {
  fecha: string;
  proveedor: { rut: string; razonSocial: string };
}

export interface PurchaseBookInput {
  folioNotificacion: number;
  factorProporcionalidad: number | null;
  entries: BookEntry[];
}

export const ivaOf = (neto: number): number => Math.floor((neto * IVA_RATE_PERCENT + 50) / 100);

function treatment(e: PurchaseEntry): IvaTreatment {
  if (/IVA\s+USO\s+COMUN/.test(e.observation)) return { kind: 'uso_comun' };
  if (/ENTREGA\s+GRATUITA/.test(e.observation)) return { kind: 'no_recuperable', codigo: 4 };
  return { kind: 'recuperable' };
}

function reference(e: PurchaseEntry, all: readonly PurchaseEntry[]): BookEntry['referencia'] {
  const text = e.observation.replace(/\s+/g, ' ');
  const found = all
    .filter((o) => o !== e && new RegExp(`\\b${o.documentType.name.replace(/\s+/g, ' ')} ${o.folio}$`).test(text))
    .sort((a, b) => b.documentType.name.length - a.documentType.name.length)[0];
  return found ? { tipoDoc: found.documentType.code, folio: found.folio } : undefined;
}

/** Null when the set has no purchase list. */
export function purchaseBookInput(set: ParsedSet, o: PurchaseBookOptions): PurchaseBookInput | null {
  const section = set.sections.find((s) => s.purchaseBook);
  const book = section?.purchaseBook;
  if (!section || !book) return null;
  const entries = book.entries.map((e): BookEntry => {
    const neto = e.montoAfecto ?? 0;
    const iva = ivaOf(neto);
    const withheld = withholdsIva(e.documentType.code) && /RETENCION\s+TOTAL/.test(e.observation);
    return {
      tipoDoc: e.documentType.code,
      folio: e.folio,
      fecha: o.fecha,
      rut: o.proveedor.rut,
      razonSocial: o.proveedor.razonSocial,
      exento: e.montoExento ?? 0,
      neto,
      iva,
      ivaTreatment: treatment(e),
      ...(withheld ? { ivaRetenidoTotal: iva } : {}),
      referencia: reference(e, book.entries),
    };
  });
  return { folioNotificacion: Number(section.attentionNumber), factorProporcionalidad: book.factorProporcionalidadIva, entries };
}
