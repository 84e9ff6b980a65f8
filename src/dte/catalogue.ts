import { MAX_DETALLE_LINES, MAX_DETALLE_LINES_BOLETA } from './limits.ts';

/**
 * The catalogue of document types: everything the service knows about a type code lives in this
 * file, and every other place asks it a named question (`isBoleta(t)`, `isCedible(t)`,
 * `cafExpires(t)`, …) instead of comparing type numbers (test/tooling/type-numbers.test.ts fails
 * when one does). Adding a type is one entry here, plus its strategy in `strategies/` when it
 * starts a new family (src/dte/README.md). Facts from the SII's format document
 * (docs/dte.md, "The SII's rules"), docs/folios.md ("CAF expiry") and docs/received.md.
 */

/** Document types this engine builds (TipoDTE). */
export type TipoDte = 33 | 34 | 39 | 41 | 43 | 46 | 52 | 56 | 61 | 110 | 111 | 112;

/** The family: which strategy hooks write and check it (strategies/index.ts). */
export type DocumentFamily = 'factura' | 'boleta' | 'nota' | 'guia' | 'liquidacion' | 'exportacion';

/** The strategy that writes the type (one per variant of a family, strategies/index.ts). */
export type StrategyName =
  | 'factura'
  | 'facturaExenta'
  | 'facturaCompra'
  | 'boleta'
  | 'boletaExenta'
  | 'liquidacionFactura'
  | 'guia'
  | 'nota'
  | 'facturaExportacion'
  | 'notaExportacion';

/** How its totals are computed (amounts.ts). */
export type AmountFamily = 'afecto' | 'exento' | 'boleta' | 'boleta_exenta' | 'exportacion';

/** The answers of the registro de aceptación o reclamo (docs/received.md, "Accepting or claiming"). */
export type Accion = 'ACD' | 'RCD' | 'ERM' | 'RFP' | 'RFT';
const ACCIONES_LEY_19983: readonly Accion[] = ['ACD', 'RCD', 'ERM', 'RFP', 'RFT'];

/**
 * Which groups of the SII's additional-tax table (tax-codes.ts) apply: `venta` the additional and
 * anticipated taxes the seller charges, `compra` the IVA the buyer withholds.
 */
export type TaxCodeGroup = 'venta' | 'compra';

export interface DocumentType {
  codigo: TipoDte;
  family: DocumentFamily;
  strategy: StrategyName;
  amounts: AmountFamily;
  /** Which schema type the document follows. */
  schema: 'DTE' | 'BOLETA';
  /** The element under <DTE> that is signed and carries the ID (DTE_v10.xsd's three roots). */
  root: 'Documento' | 'Liquidacion' | 'Exportaciones';
  /** The envelope it travels in to the SII. */
  envelope: 'EnvioDTE' | 'EnvioBOLETA';
  /** Its cedible copy's mark (docs/decisions.md §12: the types a factoring company can be assigned), or null. */
  cedible: 'CEDIBLE' | 'CEDIBLE CON SU FACTURA' | null;
  /** Its CAFs expire 180 days after authorization (docs/folios.md, "CAF expiry"). */
  cafExpires: boolean;
  /** Whether the SII's folio form marks it afecto a IVA (provider/sii/caf-forms.ts). */
  afectoIva: boolean;
  /** E-mailed to its receptor once accepted (docs/received.md, the intercambio); boletas are not. */
  exchanged: boolean;
  /** May be named in a RecepcionDTE and received from another company (SiiTypes DTEType). */
  receivable: boolean;
  /** The receptor's answers the SII registers for it (Ley 19.983). */
  acciones: readonly Accion[];
  /** The nota de crédito the service issues against it (the dashboard's "credit note"), or null. */
  creditedBy: TipoDte | null;
  /**
   * The nota de débito that debits it (references it with codRef 1–3), or null: a sales
   * document's amounts raised, or a nota de crédito cancelled (the SII's certification test sets
   * ask for both: "ANULA NOTA DE CREDITO ELECTRONICA"; src/dte/README.md).
   */
  debitedBy: TipoDte | null;
  tax: readonly TaxCodeGroup[];
  /** Line prices include IVA unless IndMntNeto says net (a boleta afecta, format document IdDoc). */
  grossByDefault: boolean;
  /** The IVA withheld is subtracted from the total and printed negative (a factura de compra). */
  withholdsIva: boolean;
  /** The issuer's 1–4 economic activity codes (Acteco) go into the document. */
  needsActeco: boolean;
  receptorRequired: boolean;
  /** GiroRecep, DirRecep and CmnaRecep are mandatory (format document, Receptor; docs/decisions.md §11). */
  receptorDetailsRequired: boolean;
  /** Notes: referencias, each with codRef and razonRef. */
  requiresReferencias: boolean;
  /** Only exempt lines must be another type (a 33 all exempt is a 34). */
  forbidAllExempt: boolean;
  /** MntBruto may be set (line prices include IVA). */
  grossPrices: boolean;
  /** Line discounts/surcharges and DscRcgGlobal exist in its schema. */
  adjustments: boolean;
  /** IndServicio values its schema allows. */
  indServicio: readonly number[];
  maxLines: number;
  names: {
    /** As the API's descriptions name it (docs/dte.md, `tipoDte`). */
    short: string;
    /** As printed on the document (column "P" of the format document), Spanish, capitals. */
    printed: string;
    /** As a reference names it (TpoDocRef, SII-FORMATO §E) and the e-mails say it. */
    sentence: string;
    /** As the SII writes it in the test sets of its certification (capitals, no accents). */
    siiSet: string;
    /** The dashboard's short labels. */
    es: string;
    en: string;
  };
}

type Common = Omit<
  DocumentType,
  'codigo' | 'family' | 'strategy' | 'amounts' | 'names' | 'cedible' | 'cafExpires' | 'creditedBy' | 'debitedBy' | 'tax'
>;

/** DTE_v10 `Documento` (33, 34, 46, 52, 56, 61). */
const documento: Common = {
  schema: 'DTE',
  root: 'Documento',
  envelope: 'EnvioDTE',
  afectoIva: true,
  exchanged: true,
  receivable: true,
  acciones: [],
  grossByDefault: false,
  withholdsIva: false,
  needsActeco: true,
  receptorRequired: true,
  receptorDetailsRequired: true,
  requiresReferencias: false,
  forbidAllExempt: false,
  grossPrices: true,
  adjustments: true,
  indServicio: [1, 2, 3],
  maxLines: MAX_DETALLE_LINES,
};

/** EnvioBOLETA_v11 `BOLETADefType` (39, 41). */
const boleta: Common = {
  schema: 'BOLETA',
  root: 'Documento',
  envelope: 'EnvioBOLETA',
  afectoIva: true,
  exchanged: false,
  receivable: false,
  acciones: [],
  grossByDefault: false,
  withholdsIva: false,
  needsActeco: false,
  receptorRequired: false,
  receptorDetailsRequired: false,
  requiresReferencias: false,
  forbidAllExempt: false,
  grossPrices: false,
  adjustments: true,
  indServicio: [1, 2, 3, 4],
  maxLines: MAX_DETALLE_LINES_BOLETA,
};

/** DTE_v10 `Exportaciones` (110, 111, 112). */
const exportacion: Common = {
  ...documento,
  root: 'Exportaciones',
  receivable: false,
  receptorDetailsRequired: false,
  grossPrices: false,
  indServicio: [3, 4, 5],
};

const TYPES: readonly DocumentType[] = [
  {
    ...documento,
    codigo: 33,
    family: 'factura',
    strategy: 'factura',
    amounts: 'afecto',
    cedible: 'CEDIBLE',
    cafExpires: true,
    acciones: ACCIONES_LEY_19983,
    creditedBy: 61,
    debitedBy: 56,
    tax: ['venta'],
    forbidAllExempt: true,
    names: {
      short: 'factura',
      printed: 'FACTURA ELECTRÓNICA',
      sentence: 'Factura electrónica',
      siiSet: 'FACTURA ELECTRONICA',
      es: 'Factura electrónica',
      en: 'Electronic invoice',
    },
  },
  {
    ...documento,
    codigo: 34,
    family: 'factura',
    strategy: 'facturaExenta',
    amounts: 'exento',
    cedible: 'CEDIBLE',
    cafExpires: false,
    // ruraldte sets AFECTO_IVA N for 41 and S otherwise; N for 34 is our reading of the same rule.
    afectoIva: false,
    acciones: ACCIONES_LEY_19983,
    creditedBy: 61,
    debitedBy: 56,
    tax: [],
    names: {
      short: 'factura exenta',
      printed: 'FACTURA NO AFECTA O EXENTA ELECTRÓNICA',
      sentence: 'Factura no afecta o exenta electrónica',
      siiSet: 'FACTURA NO AFECTA O EXENTA ELECTRONICA',
      es: 'Factura no afecta o exenta',
      en: 'Exempt invoice',
    },
  },
  {
    ...boleta,
    codigo: 39,
    family: 'boleta',
    strategy: 'boleta',
    amounts: 'boleta',
    cedible: null,
    cafExpires: false,
    creditedBy: 61,
    debitedBy: 56,
    tax: [],
    grossByDefault: true,
    names: {
      short: 'boleta',
      printed: 'BOLETA ELECTRÓNICA',
      sentence: 'Boleta electrónica',
      siiSet: 'BOLETA ELECTRONICA',
      es: 'Boleta electrónica',
      en: 'Electronic receipt (boleta)',
    },
  },
  {
    ...boleta,
    codigo: 41,
    family: 'boleta',
    strategy: 'boletaExenta',
    amounts: 'boleta_exenta',
    cedible: null,
    cafExpires: false,
    afectoIva: false,
    creditedBy: 61,
    debitedBy: 56,
    tax: [],
    names: {
      short: 'boleta exenta',
      printed: 'BOLETA NO AFECTA O EXENTA ELECTRÓNICA',
      sentence: 'Boleta exenta electrónica',
      siiSet: 'BOLETA NO AFECTA O EXENTA ELECTRONICA',
      es: 'Boleta exenta',
      en: 'Exempt receipt',
    },
  },
  {
    ...documento,
    codigo: 43,
    family: 'liquidacion',
    strategy: 'liquidacionFactura',
    amounts: 'afecto',
    root: 'Liquidacion',
    cedible: 'CEDIBLE',
    cafExpires: true,
    receivable: false,
    creditedBy: null,
    debitedBy: null,
    tax: [],
    grossPrices: false,
    adjustments: false,
    names: {
      short: 'liquidación-factura',
      printed: 'LIQUIDACIÓN FACTURA ELECTRÓNICA',
      sentence: 'Liquidación factura electrónica',
      siiSet: 'LIQUIDACION FACTURA ELECTRONICA',
      es: 'Liquidación factura',
      en: 'Settlement invoice',
    },
  },
  {
    ...documento,
    codigo: 46,
    family: 'factura',
    strategy: 'facturaCompra',
    amounts: 'afecto',
    cedible: 'CEDIBLE',
    cafExpires: true,
    creditedBy: null,
    debitedBy: null,
    tax: ['compra'],
    withholdsIva: true,
    names: {
      short: 'factura de compra',
      printed: 'FACTURA DE COMPRA ELECTRÓNICA',
      sentence: 'Factura de compra electrónica',
      siiSet: 'FACTURA DE COMPRA ELECTRONICA',
      es: 'Factura de compra',
      en: 'Purchase invoice',
    },
  },
  {
    ...documento,
    codigo: 52,
    family: 'guia',
    strategy: 'guia',
    amounts: 'afecto',
    cedible: 'CEDIBLE CON SU FACTURA',
    cafExpires: false,
    creditedBy: null,
    debitedBy: null,
    tax: [],
    names: {
      short: 'guía de despacho',
      printed: 'GUÍA DE DESPACHO ELECTRÓNICA',
      sentence: 'Guía de despacho electrónica',
      siiSet: 'GUIA DE DESPACHO',
      es: 'Guía de despacho',
      en: 'Dispatch guide',
    },
  },
  {
    ...documento,
    codigo: 56,
    family: 'nota',
    strategy: 'nota',
    amounts: 'afecto',
    cedible: null,
    cafExpires: true,
    creditedBy: 61,
    debitedBy: null,
    tax: ['venta', 'compra'],
    receptorDetailsRequired: false,
    requiresReferencias: true,
    names: {
      short: 'nota de débito',
      printed: 'NOTA DE DÉBITO ELECTRÓNICA',
      sentence: 'Nota de débito electrónica',
      siiSet: 'NOTA DE DEBITO ELECTRONICA',
      es: 'Nota de débito',
      en: 'Debit note',
    },
  },
  {
    ...documento,
    codigo: 61,
    family: 'nota',
    strategy: 'nota',
    amounts: 'afecto',
    cedible: null,
    cafExpires: true,
    creditedBy: null,
    debitedBy: 56,
    tax: ['venta', 'compra'],
    receptorDetailsRequired: false,
    requiresReferencias: true,
    names: {
      short: 'nota de crédito',
      printed: 'NOTA DE CRÉDITO ELECTRÓNICA',
      sentence: 'Nota de crédito electrónica',
      siiSet: 'NOTA DE CREDITO ELECTRONICA',
      es: 'Nota de crédito',
      en: 'Credit note',
    },
  },
  {
    ...exportacion,
    codigo: 110,
    family: 'exportacion',
    strategy: 'facturaExportacion',
    amounts: 'exportacion',
    cedible: null,
    cafExpires: false,
    creditedBy: 112,
    debitedBy: 111,
    tax: [],
    names: {
      short: 'factura de exportación',
      printed: 'FACTURA DE EXPORTACIÓN ELECTRÓNICA',
      sentence: 'Factura de exportación electrónica',
      siiSet: 'FACTURA DE EXPORTACION ELECTRONICA',
      es: 'Factura de exportación',
      en: 'Export invoice',
    },
  },
  {
    ...exportacion,
    codigo: 111,
    family: 'exportacion',
    strategy: 'notaExportacion',
    amounts: 'exportacion',
    cedible: null,
    cafExpires: false,
    creditedBy: 112,
    debitedBy: null,
    tax: [],
    requiresReferencias: true,
    names: {
      short: 'nota de débito de exportación',
      printed: 'NOTA DE DÉBITO DE EXPORTACIÓN ELECTRÓNICA',
      sentence: 'Nota de débito de exportación electrónica',
      siiSet: 'NOTA DE DEBITO DE EXPORTACION ELECTRONICA',
      es: 'Nota de débito de exportación',
      en: 'Export debit note',
    },
  },
  {
    ...exportacion,
    codigo: 112,
    family: 'exportacion',
    strategy: 'notaExportacion',
    amounts: 'exportacion',
    cedible: null,
    cafExpires: false,
    creditedBy: null,
    debitedBy: 111,
    tax: [],
    requiresReferencias: true,
    names: {
      short: 'nota de crédito de exportación',
      printed: 'NOTA DE CRÉDITO DE EXPORTACIÓN ELECTRÓNICA',
      sentence: 'Nota de crédito de exportación electrónica',
      siiSet: 'NOTA DE CREDITO DE EXPORTACION ELECTRONICA',
      es: 'Nota de crédito de exportación',
      en: 'Export credit note',
    },
  },
];

const BY_CODE: ReadonlyMap<number, DocumentType> = new Map(TYPES.map((t) => [t.codigo, t]));

/** Every type, in code order: the supported-types lists (API descriptions, enums) are derived from it. */
export const DOCUMENT_TYPES: readonly DocumentType[] = TYPES;
export const SUPPORTED_TIPOS_DTE: readonly TipoDte[] = TYPES.map((t) => t.codigo);

/** The nota de crédito the dashboard issues (codRef 1 or 3 against a document it credits). */
export const NOTA_DE_CREDITO: TipoDte = 61;

export function isSupportedTipoDte(n: unknown): n is TipoDte {
  return typeof n === 'number' && BY_CODE.has(n);
}

/** The entry of a supported type. */
export function documentType(t: TipoDte): DocumentType {
  return BY_CODE.get(t)!;
}

/** The entry of a stored or foreign type code, or undefined when this engine does not build it. */
export const lookupType = (t: number): DocumentType | undefined => BY_CODE.get(t);

/** The codes of the types for which `pick` holds, in code order (for lists in texts and tables). */
export const typesWhere = (pick: (t: DocumentType) => boolean): TipoDte[] => TYPES.filter(pick).map((t) => t.codigo);

/** "33, 34 and 46": a list of codes for a message or a description. */
export function listCodes(codes: readonly number[], and = 'and'): string {
  return codes.length < 2 ? codes.join('') : `${codes.slice(0, -1).join(', ')} ${and} ${codes.at(-1)}`;
}

export const familyOf = (t: TipoDte): DocumentFamily => documentType(t).family;
export const amountFamily = (t: TipoDte): AmountFamily => documentType(t).amounts;
/** Whether a stored or foreign DTE's type is a boleta. */
export const isBoleta = (t: number): boolean => lookupType(t)?.family === 'boleta';
export const isExport = (t: number): boolean => lookupType(t)?.family === 'exportacion';
export const isGuia = (t: number): boolean => lookupType(t)?.family === 'guia';
export const isLiquidacion = (t: number): boolean => lookupType(t)?.family === 'liquidacion';
/** The envelope of a stored or foreign DTE; a type this engine does not build travels in an EnvioDTE. */
export const envelopeKindFor = (t: number): 'EnvioDTE' | 'EnvioBOLETA' => lookupType(t)?.envelope ?? 'EnvioDTE';
export const isCedible = (t: number): boolean => !!lookupType(t)?.cedible;
export const cedibleMarkOf = (t: number): string => lookupType(t)?.cedible ?? 'CEDIBLE';
export const cafExpires = (t: number): boolean => lookupType(t)?.cafExpires === true;
export const isAfectoIva = (t: number): boolean => lookupType(t)?.afectoIva !== false;
export const isExchanged = (t: number): boolean => lookupType(t)?.exchanged === true;
export const isReceivable = (t: number): boolean => lookupType(t)?.receivable === true;
export const accionesFor = (t: number): readonly Accion[] => lookupType(t)?.acciones ?? [];
export const creditNoteFor = (t: number): TipoDte | null => lookupType(t)?.creditedBy ?? null;
export const debitNoteFor = (t: number): TipoDte | null => lookupType(t)?.debitedBy ?? null;
export const taxGroupsOf = (t: number): readonly TaxCodeGroup[] => lookupType(t)?.tax ?? [];
export const pricesGrossByDefault = (t: number): boolean => lookupType(t)?.grossByDefault === true;
export const withholdsIva = (t: number): boolean => lookupType(t)?.withholdsIva === true;
/** The printed name (column "P"); a type this engine does not build gets a generic one. */
export const printedName = (t: number): string => lookupType(t)?.names.printed ?? `DOCUMENTO TRIBUTARIO ELECTRÓNICO ${t}`;
/** "110, 111, 112": the codes of a family, for messages. */
export const familyCodes = (f: DocumentFamily): string => typesWhere((t) => t.family === f).join(', ');
/** "33 factura, 34 factura exenta, …": every type with its short name, for the API's descriptions. */
export const describeTypes = (): string => TYPES.map((t) => `${t.codigo} ${t.names.short}`).join(', ');
