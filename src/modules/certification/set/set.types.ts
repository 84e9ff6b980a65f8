/**
 * What the parser reads from one of the SII's test sets (docs/certification.md, "The set's
 * format"): sections with their attention numbers, and each case as the SII wrote it. Names and
 * free text are kept exactly as written; numbers are parsed; names of codes carry their code.
 */
export const SECTION_KINDS = [
  'basico',
  'libro_ventas',
  'libro_compras',
  'guias',
  'libro_guias',
  'exenta',
  'exportacion_1',
  'exportacion_2',
  'liquidaciones',
  'factura_compra',
] as const;
export type SectionKind = (typeof SECTION_KINDS)[number];

/** A name the set writes with the code it stands for. */
export interface Coded<C = number> {
  name: string;
  code: C;
}

export interface SetItem {
  /** The line number of the set's text (1-based). */
  line: number;
  /** Exactly as written (trailing blanks dropped), including words like "AFECTO" and "EXENTO". */
  name: string;
  /** The name carries the word EXENTO (a basic case's exempt line, a liquidación's exempt amount). */
  exento: boolean;
  cantidad: number | null;
  unidad: string | null;
  /** PRECIO UNITARIO or VALOR UNITARIO. */
  precioUnitario: number | null;
  /** VALOR LINEA or TOTAL LINEA: the line's amount when the set gives it instead of a price. */
  montoLinea: number | null;
  descuentoPct: number | null;
  recargoPct: number | null;
}

export interface GlobalAdjustment {
  line: number;
  tipo: 'descuento' | 'recargo';
  valor: number;
  unidad: '%' | '$';
  /** On the exempt lines (IndExeDR) instead of the taxed ones. */
  exento: boolean;
  /** Verbatim. */
  text: string;
}

export interface CaseReference {
  line: number;
  /** The referenced document's type name as written (spaces collapsed). */
  documentName: string;
  /** The referenced case id, e.g. "4244618-1"; always a case of the same set. */
  caseId: string;
  /** The referenced case's type code. */
  tipoDte: number;
  /** RAZON REFERENCIA, verbatim; null when the case gives none. */
  reason: string | null;
}

export interface ExportData {
  /** `REFERENCIA:` lines: customs documents, with their TpoDocRef code when known. */
  references: { name: string; tipoDocRef: string | null }[];
  moneda: Coded | null;
  formaPago: Coded | null;
  modalidadVenta: Coded | null;
  clausulaVenta: Coded | null;
  totalClausulaVenta: number | null;
  viaTransporte: Coded | null;
  puertoEmbarque: Coded | null;
  puertoDesembarque: Coded | null;
  unidadTara: Coded | null;
  unidadPesoBruto: Coded | null;
  unidadPesoNeto: Coded | null;
  tipoBulto: Coded | null;
  totalBultos: number | null;
  flete: number | null;
  seguro: number | null;
  paisReceptor: Coded | null;
  paisDestino: Coded | null;
  nacionalidad: Coded | null;
}

export interface SetCase {
  /** "4244618-1": the attention number and the case's number. */
  id: string;
  section: SectionKind;
  number: number;
  line: number;
  documentType: Coded;
  reference: CaseReference | null;
  /** Guías: MOTIVO (IndTraslado) and TRASLADO POR (TipoDespacho), codes null when not recognised. */
  traslado: { motivo: string; indTraslado: number | null; por: string | null; tipoDespacho: number | null } | null;
  items: SetItem[];
  /** Liquidaciones: COMISIONES Y OTROS CARGOS. */
  charges: SetItem[];
  globalAdjustments: GlobalAdjustment[];
  exportacion: ExportData | null;
  /** Every other line of the case, verbatim ("EL PRECIO UNITARIO DEL ITEM DEBE SER EL MISMO DE LA FACTURA"). */
  observations: string[];
}

export interface PurchaseEntry {
  line: number;
  documentType: Coded;
  folio: number;
  /** The entry's observation, verbatim ("FACTURA CON IVA USO COMUN"). */
  observation: string;
  montoExento: number | null;
  montoAfecto: number | null;
}

export interface PurchaseBook {
  entries: PurchaseEntry[];
  /** "FACTOR DE PROPORCIONALIDAD DEL IVA ES DE 0.60" in the general observations. */
  factorProporcionalidadIva: number | null;
  observations: string[];
}

export interface GuideBook {
  /** "- EL CASO 2 CORRESPONDE A UNA GUIA QUE SE FACTURO EN EL PERIODO" → the guía case and what became of it. */
  instructions: { line: number; caseId: string; status: 'facturada' | 'anulada'; text: string }[];
}

export interface SetSection {
  kind: SectionKind;
  /** The heading as written, e.g. "SET BASICO - NUMERO DE ATENCION: 4244618". */
  title: string;
  attentionNumber: string;
  line: number;
  /** The section's free text (instructions, notes), verbatim, one entry per line. */
  notes: string[];
  caseIds: string[];
  purchaseBook: PurchaseBook | null;
  guideBook: GuideBook | null;
}

export interface ParsedSet {
  sections: SetSection[];
  cases: SetCase[];
}
