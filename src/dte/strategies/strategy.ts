import { el } from '../xml-escape.ts';
import type { NormalizedDocument, NormalizedDte } from '../normalize.ts';

/**
 * One strategy per document family (LibreDTE-style builder strategies): the per-type rules the
 * rest of the service asks about, and how each part of the document is written. Element order
 * follows the XSD sequences (DTE_v10.xsd `Documento` for 33/34/46/52/56/61, `Liquidacion` for 43,
 * `Exportaciones` for 110/111/112; EnvioBOLETA_v11.xsd for 39/41). Every fragment is emitted in
 * canonical form (see xmldsig.ts). Adding a type: its strategy in this folder, one line in the
 * table of `index.ts`.
 */
export interface DocumentStrategy {
  /** Which schema type the document follows. */
  schema: 'DTE' | 'BOLETA';
  /** The element under <DTE> that is signed and carries the ID. */
  root: 'Documento' | 'Liquidacion' | 'Exportaciones';
  /** A boleta (39, 41): IndServicio, anonymous receptor, no FmaPago, no Acteco. */
  boleta: boolean;
  /** An export (110, 111, 112): amounts in a foreign currency, foreign receptor, Aduana. */
  exportacion: boolean;
  /** A guía de despacho (52): IndTraslado, TipoDespacho, Transporte. */
  guia: boolean;
  /** The envelope it travels in to the SII. */
  envelope: 'EnvioDTE' | 'EnvioBOLETA';
  /** The issuer's 1–4 economic activity codes (Acteco) go into the document. */
  needsActeco: boolean;
  receptorRequired: boolean;
  /** GiroRecep, DirRecep and CmnaRecep are mandatory (format document, Receptor; docs/decisions.md §11). */
  receptorDetailsRequired: boolean;
  /** Credit and debit notes: referencias, each with codRef and razonRef. */
  requiresReferencias: boolean;
  /** Type 33 with only exempt lines must be a 34. */
  forbidAllExempt: boolean;
  /** MntBruto may be set (line prices include IVA). */
  grossPrices: boolean;
  /** Line discounts/surcharges and DscRcgGlobal exist in its schema. */
  adjustments: boolean;
  /** IndServicio values its schema allows. */
  indServicio: readonly number[];
  maxLines: number;
  /**
   * The type's own form rules on the whole normalised document, run last by normalizeDocument:
   * what the SII would refuse or object to (a reparo) on this type, refused before a folio.
   */
  checkForm?(d: NormalizedDocument): void;
  idDoc(d: NormalizedDte): string;
  emisor(d: NormalizedDte): string;
  receptor(d: NormalizedDte): string;
  /** Everything between Receptor and Detalle: Transporte, Totales, OtraMoneda. */
  totales(d: NormalizedDte): string;
  detalle(d: NormalizedDte): string;
  /** Everything after the lines, before the TED: DscRcgGlobal, Referencia, Comisiones. */
  referencias(d: NormalizedDte): string;
}

export function opt(name: string, v: string | number | undefined | null): string {
  return v === undefined || v === null ? '' : el(name, v);
}
