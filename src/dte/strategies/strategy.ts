import { el } from '../xml-escape.ts';
import type { NormalizedDte } from '../normalize.ts';

/**
 * One strategy per document family (LibreDTE-style builder strategies): the per-type rules the
 * rest of the service asks about, and how each part of `<Documento>` is written. Element order
 * follows the XSD sequences (DTE_v10.xsd DTEDefType for 33/34/46/52/56/61, EnvioBOLETA_v11.xsd
 * BOLETADefType for 39/41). Every fragment is emitted in canonical form (see xmldsig.ts).
 * Adding a type: its strategy in this folder, one line in the table of `index.ts`.
 */
export interface DocumentStrategy {
  /** Which schema type the document follows. */
  schema: 'DTE' | 'BOLETA';
  /** A boleta (39, 41): IndServicio, anonymous receptor, no FmaPago, no Acteco. */
  boleta: boolean;
  /** The envelope it travels in to the SII. */
  envelope: 'EnvioDTE' | 'EnvioBOLETA';
  /** The issuer's 1–4 economic activity codes (Acteco) go into the document. */
  needsActeco: boolean;
  receptorRequired: boolean;
  /** Credit and debit notes: referencias, each with codRef and razonRef. */
  requiresReferencias: boolean;
  /** Type 33 with only exempt lines must be a 34. */
  forbidAllExempt: boolean;
  maxLines: number;
  idDoc(d: NormalizedDte): string;
  emisor(d: NormalizedDte): string;
  receptor(d: NormalizedDte): string;
  totales(d: NormalizedDte): string;
  detalle(d: NormalizedDte): string;
  referencias(d: NormalizedDte): string;
}

export function opt(name: string, v: string | number | undefined): string {
  return v === undefined ? '' : el(name, v);
}

/** `<Detalle>` lines: the same sequence in both schemas. */
export function detalleLines(d: NormalizedDte): string {
  let out = '';
  d.detalle.forEach((l, i) => {
    out +=
      '<Detalle>' +
      el('NroLinDet', i + 1) +
      (l.exento ? el('IndExe', 1) : '') +
      el('NmbItem', l.nombre) +
      opt('DscItem', l.descripcion) +
      opt('QtyItem', l.cantidad) +
      opt('UnmdItem', l.unidad) +
      opt('PrcItem', l.precio) +
      el('MontoItem', l.montoItem) +
      '</Detalle>';
  });
  return out;
}
