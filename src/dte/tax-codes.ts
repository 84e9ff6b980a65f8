import { typesWhere } from './catalogue.ts';

/**
 * Additional taxes and retentions the engine computes (CodImpAdic / ImptoReten/TipoImp), from the
 * SII's format document, "4.- Codificación tipos de impuestos y recargos"
 * (`docs/sources.md` [F], pp. 46–48), and ImpAdicDTEType
 * (SiiTypes_v10.xsd). `documentos` is that table's "Documentos en que se aplica" column, in the
 * electronic types this service issues.
 *
 * - `adicional`: an additional, specific or anticipated tax the issuer charges: added to MntTotal.
 * - `retencion`: IVA the buyer withholds (facturas de compra, and notes that correct them):
 *   subtracted from MntTotal; `IVANoRet` carries the IVA that was not withheld.
 * Codes whose amount is not a rate on the line (28, 35, 51, 52: UTM per m³; 14, 50: IVA on a
 * margin the line does not show; 49: 0 %) are refused with `unsupported_additional_tax`
 * (docs/dte.md, "Additional taxes and retentions").
 */
export interface TaxCode {
  codigo: number;
  nombre: string;
  /** Percent. */
  tasa: number;
  kind: 'adicional' | 'retencion';
  documentos: readonly number[];
}

// The column's two groups, per type in the catalogue (catalogue.ts, `tax`).
const FACTURAS_Y_NOTAS = typesWhere((t) => t.tax.includes('venta'));
const COMPRAS_Y_NOTAS = typesWhere((t) => t.tax.includes('compra'));

const table: TaxCode[] = [
  { codigo: 15, nombre: 'IVA retenido total', tasa: 19, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  { codigo: 17, nombre: 'IVA anticipado faenamiento carne', tasa: 5, kind: 'adicional', documentos: FACTURAS_Y_NOTAS },
  { codigo: 18, nombre: 'IVA anticipado carne', tasa: 5, kind: 'adicional', documentos: FACTURAS_Y_NOTAS },
  { codigo: 19, nombre: 'IVA anticipado harina', tasa: 12, kind: 'adicional', documentos: FACTURAS_Y_NOTAS },
  { codigo: 23, nombre: 'Impuesto adicional Art. 37 a, b, c', tasa: 15, kind: 'adicional', documentos: FACTURAS_Y_NOTAS },
  { codigo: 24, nombre: 'Licores, piscos, destilados', tasa: 31.5, kind: 'adicional', documentos: FACTURAS_Y_NOTAS },
  { codigo: 25, nombre: 'Vinos', tasa: 20.5, kind: 'adicional', documentos: FACTURAS_Y_NOTAS },
  { codigo: 26, nombre: 'Cervezas y bebidas alcohólicas', tasa: 20.5, kind: 'adicional', documentos: FACTURAS_Y_NOTAS },
  { codigo: 27, nombre: 'Bebidas analcohólicas y minerales', tasa: 10, kind: 'adicional', documentos: FACTURAS_Y_NOTAS },
  {
    codigo: 271,
    nombre: 'Bebidas analcohólicas con elevado contenido de azúcares',
    tasa: 18,
    kind: 'adicional',
    documentos: FACTURAS_Y_NOTAS,
  },
  { codigo: 30, nombre: 'IVA retenido legumbres', tasa: 10, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  { codigo: 31, nombre: 'IVA retenido silvestres', tasa: 19, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  { codigo: 32, nombre: 'IVA retenido ganado', tasa: 8, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  { codigo: 33, nombre: 'IVA retenido madera', tasa: 8, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  { codigo: 34, nombre: 'IVA retenido trigo', tasa: 4, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  { codigo: 36, nombre: 'IVA retenido arroz', tasa: 10, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  { codigo: 37, nombre: 'IVA retenido hidrobiológicas', tasa: 10, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  { codigo: 38, nombre: 'IVA retenido chatarra', tasa: 19, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  { codigo: 39, nombre: 'IVA retenido PPA', tasa: 19, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  { codigo: 41, nombre: 'IVA retenido construcción', tasa: 19, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  { codigo: 44, nombre: 'Impuesto adicional Art. 37 e, h, i, l', tasa: 15, kind: 'adicional', documentos: FACTURAS_Y_NOTAS },
  { codigo: 45, nombre: 'Impuesto adicional Art. 37 j (pirotecnia)', tasa: 50, kind: 'adicional', documentos: FACTURAS_Y_NOTAS },
  { codigo: 46, nombre: 'IVA retenido oro', tasa: 19, kind: 'retencion', documentos: FACTURAS_Y_NOTAS },
  { codigo: 47, nombre: 'IVA retenido cartones', tasa: 19, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  { codigo: 48, nombre: 'IVA retenido frambuesas y pasas', tasa: 14, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  // Cambio de sujeto with total retention (the table's second column): the whole IVA.
  { codigo: 301, nombre: 'IVA retenido legumbres (cambio de sujeto, total)', tasa: 19, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  { codigo: 321, nombre: 'IVA retenido ganado (cambio de sujeto, total)', tasa: 19, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  { codigo: 331, nombre: 'IVA retenido madera (cambio de sujeto, total)', tasa: 19, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  { codigo: 341, nombre: 'IVA retenido trigo (cambio de sujeto, total)', tasa: 19, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  { codigo: 361, nombre: 'IVA retenido arroz (cambio de sujeto, total)', tasa: 19, kind: 'retencion', documentos: COMPRAS_Y_NOTAS },
  {
    codigo: 371,
    nombre: 'IVA retenido hidrobiológicas (cambio de sujeto, total)',
    tasa: 19,
    kind: 'retencion',
    documentos: COMPRAS_Y_NOTAS,
  },
  {
    codigo: 481,
    nombre: 'IVA retenido frambuesas y pasas (cambio de sujeto, total)',
    tasa: 19,
    kind: 'retencion',
    documentos: COMPRAS_Y_NOTAS,
  },
];

export const TAX_CODES: ReadonlyMap<number, TaxCode> = new Map(table.map((t) => [t.codigo, t]));

/** Codes the SII's schema knows but whose amount the engine cannot compute from the line. */
export const UNSUPPORTED_TAX_CODES: readonly number[] = [14, 16, 28, 35, 40, 49, 50, 51, 52, 53, 54, 55];
