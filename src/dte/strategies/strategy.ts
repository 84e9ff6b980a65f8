import { el } from '../xml-escape.ts';
import type { NormalizedDocument, NormalizedDte } from '../normalize.ts';
import type { FamilyRules } from './family-rules.ts';

/**
 * One strategy per document family (LibreDTE-style builder strategies): the family's rules as
 * hooks the normaliser calls (family-rules.ts), and how each part of the document is written. The
 * facts about each type (schema root, envelope, line limit, which receptor fields it needs…) are
 * in the catalogue (catalogue.ts), not here. Element order follows the XSD sequences (DTE_v10.xsd
 * `Documento`, `Liquidacion` and `Exportaciones`; EnvioBOLETA_v11.xsd for boletas). Every
 * fragment is emitted in canonical form (see xmldsig.ts). Adding a type of an existing family is
 * one catalogue entry; a new family is a strategy here and its name in `strategies/index.ts`.
 */
export interface DocumentStrategy extends FamilyRules {
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
