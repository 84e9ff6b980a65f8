import { DOCUMENT_TYPES, isCedible, printedName, typesWhere } from '../dte/index.ts';

/**
 * The words a printed document uses instead of the XML's codes (column "P" of the SII's format
 * document: a code is printed as its name). Spanish, as the SII prints them. A document type's
 * name and whether it has a cedible copy are the catalogue's (src/dte/catalogue.ts).
 */
export const documentName = (tipo: number): string => printedName(tipo);

/** Types with a cedible copy (docs/decisions.md §12): the ones a factoring company can be assigned. */
export const CEDIBLE_TYPES: readonly number[] = typesWhere((t) => t.cedible !== null);
export const isCedibleType = (tipo: number): boolean => isCedible(tipo);

/** TpoDocRef: the SII's document codes, paper ones and the non-tax references (SII-FORMATO §E). */
const REFERENCE_NAMES: Readonly<Record<string, string>> = {
  // The electronic types this service issues: their names are the catalogue's.
  ...Object.fromEntries(DOCUMENT_TYPES.map((t) => [String(t.codigo), t.names.sentence])),
  '30': 'Factura',
  '32': 'Factura de venta no afecta o exenta',
  '35': 'Boleta',
  '38': 'Boleta exenta',
  '40': 'Liquidación factura',
  '45': 'Factura de compra',
  '50': 'Guía de despacho',
  '55': 'Nota de débito',
  '60': 'Nota de crédito',
  '103': 'Liquidación',
  '801': 'Orden de compra',
  '802': 'Nota de pedido',
  '803': 'Contrato',
  '804': 'Resolución',
  '805': 'Proceso ChileCompra',
  '806': 'Ficha ChileCompra',
  '807': 'DUS',
  '808': 'B/L (conocimiento de embarque)',
  '809': 'AWB (guía aérea)',
  '810': 'MIC/DTA',
  '811': 'Carta de porte',
  '812': 'Resolución del SNA',
  '813': 'Pasaporte',
  '814': 'Certificado de depósito Bolsa de Productos',
  '815': 'Vale de prenda Bolsa de Productos',
  '820': 'Registro de acuerdos con plazo de pago excepcional',
  SET: 'Set de pruebas SII',
  HES: 'Hoja de entrada de servicios',
  HEM: 'Hoja de entrada de materiales',
};
export const referenceName = (tipo: string): string => REFERENCE_NAMES[tipo] ?? `Documento ${tipo}`;

const COD_REF: Readonly<Record<string, string>> = {
  '1': 'Anula documento de referencia',
  '2': 'Corrige texto del documento de referencia',
  '3': 'Corrige montos',
};
export const codRefName = (cod: string): string => COD_REF[cod] ?? cod;

export const FORMA_PAGO: Readonly<Record<number, string>> = { 1: 'Contado', 2: 'Crédito', 3: 'Sin costo (entrega gratuita)' };

export const MEDIO_PAGO: Readonly<Record<string, string>> = {
  CH: 'Cheque',
  CF: 'Cheque a fecha',
  LT: 'Letra',
  EF: 'Efectivo',
  PE: 'Pago a cuenta corriente',
  TC: 'Tarjeta de crédito',
  OT: 'Otro',
};

/** IndTraslado of a guía de despacho. */
export const IND_TRASLADO: Readonly<Record<number, string>> = {
  1: 'Operación constituye venta',
  2: 'Ventas por efectuar',
  3: 'Consignaciones',
  4: 'Entrega gratuita',
  5: 'Traslados internos',
  6: 'Otros traslados no venta',
  7: 'Guía de devolución',
  8: 'Traslado para exportación (no venta)',
  9: 'Venta para exportación',
};

/**
 * Whether a document's printed samples include a cedible copy (the SII's printed-samples manual
 * v4.0 §1.4, docs/certification.md "Printed samples"): the types with one, except a guía whose
 * transfer is not a sale (anything but IndTraslado 1 "constituye venta" and 9 "venta para
 * exportación": an internal transfer, a consignment, a gift…), which "no debe incluir el ejemplar cedible".
 */
export function printsCedibleCopy(tipo: number, indTraslado: number | null): boolean {
  if (!isCedibleType(tipo)) return false;
  return indTraslado === null || indTraslado === 1 || indTraslado === 9;
}

export const TIPO_DESPACHO: Readonly<Record<number, string>> = {
  1: 'Despacho por cuenta del receptor',
  2: 'Despacho por cuenta del emisor a instalaciones del cliente',
  3: 'Despacho por cuenta del emisor a otras instalaciones',
};

/** CodImpAdic / TipoImp: additional taxes and withholdings (SII-FORMATO §4). */
const IMPUESTOS: Readonly<Record<string, string>> = {
  '14': 'IVA de margen de comercialización',
  '15': 'IVA retenido total',
  '17': 'IVA anticipado faenamiento carne',
  '18': 'IVA anticipado carne',
  '19': 'IVA anticipado harina',
  '23': 'Impuesto adicional Art. 37 a, b, c',
  '24': 'Licores, piscos, whisky (Art. 42 b)',
  '25': 'Vinos (Art. 42 c)',
  '26': 'Cervezas y bebidas alcohólicas (Art. 42 c)',
  '27': 'Bebidas analcohólicas y minerales (Art. 42 a)',
  '271': 'Bebidas analcohólicas con elevado azúcar (Art. 42 a)',
  '28': 'Impuesto específico diésel',
  '30': 'IVA retenido legumbres',
  '31': 'IVA retenido silvestres',
  '32': 'IVA retenido ganado',
  '33': 'IVA retenido madera',
  '34': 'IVA retenido trigo',
  '35': 'Impuesto específico gasolina',
  '36': 'IVA retenido arroz',
  '37': 'IVA retenido hidrobiológicas',
  '38': 'IVA retenido chatarra',
  '39': 'IVA retenido PPA',
  '41': 'IVA retenido construcción',
};
export const impuestoName = (code: string): string => IMPUESTOS[code] ?? `Impuesto código ${code}`;

/**
 * The codes of the format document's table of additional taxes and withholdings (its index 4) that
 * are withholdings of IVA (total, by product, construction, gold, suplementeros), not taxes added to
 * the price. 50 is IVA de margen, not a withholding.
 */
const RETENCIONES = new Set([
  ...['15', '30', '31', '32', '33', '34', '36', '37', '38', '39', '41', '46', '47', '48', '49', '53'],
  // their "cambio de sujeto" variants (retención total)
  ...['301', '321', '331', '341', '361', '371', '481'],
]);
export const isRetencion = (code: string): boolean => RETENCIONES.has(code);
