import { DOCUMENT_TYPES as CATALOGUE, isExport, isGuia, isLiquidacion, lookupType, withholdsIva } from '../../../dte/index.ts';

/**
 * The document type names the SII's test sets write, and their codes: the one place this module
 * turns a name into a type number (docs/certification.md). "FACTURA" and "NOTA DE CREDITO" alone
 * are paper documents (30, 60) as the purchase-book list uses them; a case's `REFERENCIA` line is
 * not read through this map: it names a case, whose own type is the one referenced.
 */
/**
 * The electronic types come from the engine's catalogue (`names.siiSet`); the paper types (30, 32,
 * 40, 45, 55, 60) are not documents this service issues, only what the purchase-book list and a
 * liquidación line name, so they live here.
 */
const PAPER_TYPES: Readonly<Record<string, number>> = {
  FACTURA: 30,
  'FACTURA NO AFECTA O EXENTA': 32,
  'LIQUIDACION FACTURA': 40,
  'FACTURA DE COMPRA': 45,
  'NOTA DE DEBITO': 55,
  'NOTA DE CREDITO': 60,
};

const DOCUMENT_TYPES: Readonly<Record<string, number>> = {
  ...PAPER_TYPES,
  ...Object.fromEntries(CATALOGUE.map((t) => [t.names.siiSet, t.codigo])),
  // The sets write "GUIA DE DESPACHO"; the full name with "ELECTRONICA" is read as the same type.
  ...Object.fromEntries(CATALOGUE.filter((t) => isGuia(t.codigo)).map((t) => [`${t.names.siiSet} ELECTRONICA`, t.codigo])),
};

/**
 * Customs and other documents an export case names in its `REFERENCIA:` lines (TpoDocRef codes of
 * the SII's DTE format v2.2, "Tipo Documento Referencia": 807 DUS … 815).
 */
const REFERENCE_DOCUMENTS: Readonly<Record<string, string>> = {
  DUS: '807',
  'B/L': '808',
  AWB: '809',
  MIC: '810',
  'MIC/DTA': '810',
  'CARTA DE PORTE': '811',
  'RESOLUCION SNA': '812',
  PASAPORTE: '813',
};

const plain = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/\s+/g, ' ')
    .trim();

/** The type code of a document name as a set writes it, or undefined when it is not one. */
export function documentTypeCode(name: string): number | undefined {
  return DOCUMENT_TYPES[plain(name)];
}

/** Types whose documents carry no IVA on any line (every line exempt): the catalogue's amount family. */
export const isExemptType = (t: number): boolean => {
  const family = lookupType(t)?.amounts;
  return family === 'exento' || family === 'boleta_exenta' || family === 'exportacion';
};
/** Credit and debit notes: their references to other cases are their `codRef` references. */
export const isNoteType = (t: number): boolean => lookupType(t)?.requiresReferencias === true;
/** Export documents (the factura and its notes): foreign receptor, customs data, a currency. */
export { isExport as isExportType, isGuia as isGuiaType, isLiquidacion as isLiquidacionType };
/** A purchase invoice: the buyer issues it and withholds the IVA. */
export { withholdsIva as isFacturaCompraType };
/**
 * The retention a purchase invoice of the set's general case carries on each line, and its notes
 * with it: code 15, IVA retenido total (src/dte/tax-codes.ts).
 */
export const IVA_RETENIDO_TOTAL = 15;
/**
 * The type a liquidación line liquidates (TpoDocLiq), from its name: "NETO FACTURAS ELECTRONICAS"
 * 33, "EXENTO FACTURAS ELECTRONICAS" 34, "NETO FACTURAS" (paper) 30, "EXENTO FACTURAS" 32,
 * "NETO NOTA DE CREDITO 328" 60, "… LIQUIDACION FACTURA ELECTRONICA 4554" 43, "BOLETAS" (paper,
 * as "FACTURAS" is) 35, and 99 for "NETO ANTICIPO FACTURACION" (the format document, TpoDocLiq:
 * "99 en caso de Anticipo u otras transacciones"); undefined for anything else.
 */
export function liquidatedTypeOf(name: string): number | undefined {
  const p = plain(name);
  const electronic = /ELECTRONICA/.test(p);
  const exempt = /\bEXENTO\b/.test(p);
  if (/\bANTICIPO\b/.test(p)) return 99;
  if (/LIQUIDACION FACTURA/.test(p)) return electronic ? 43 : 40;
  if (/NOTA DE CREDITO/.test(p)) return electronic ? 61 : 60;
  if (/NOTA DE DEBITO/.test(p)) return electronic ? 56 : 55;
  if (/BOLETAS?\b/.test(p)) return electronic ? 39 : 35;
  if (/\bFACTURAS?\b/.test(p)) return electronic ? (exempt ? 34 : 33) : exempt ? 32 : 30;
  return undefined;
}

/**
 * A customs reference of an export case (`REFERENCIA: MIC (MANIFIESTO INTERNACIONAL)`): its
 * TpoDocRef code, matched on the first word group the SII writes, or undefined.
 */
export function referenceDocumentCode(text: string): string | undefined {
  const p = plain(text);
  const bare = p.replace(/\s*\(.*\)\s*$/, '');
  return REFERENCE_DOCUMENTS[bare] ?? REFERENCE_DOCUMENTS[p];
}
