import { aduanaCode, comparable, type AduanaTable } from '../../../dte/index.ts';
import { referenceDocumentCode } from './document-types.ts';
import { SetParseError } from './set.errors.ts';
import type { Coded, ExportData } from './set.types.ts';

/** A number as the sets write it: digits, an optional minus and decimal point (or comma). */
export function parseNumber(text: string, line: number, what: string): number {
  const t = text.trim();
  if (!/^-?\d+(?:[.,]\d+)?$/.test(t)) throw new SetParseError('bad_number', line, `${what} as a number`, t);
  return Number(t.replace(',', '.'));
}

/** "6%", "12 %", "%10". */
export function parsePercent(text: string, line: number, what: string): number {
  const t = text.trim().replace(/^%\s*/, '').replace(/\s*%$/, '');
  return parseNumber(t, line, `${what} as a percentage`);
}

/** The export fields a case writes as `KEY:   value`, with the Aduana table that codes each. */
const EXPORT_CODED: Record<string, { field: keyof ExportData; table: AduanaTable }[]> = {
  'MONEDA DE LA OPERACION': [{ field: 'moneda', table: 'moneda' }],
  'FORMA DE PAGO EXPORTACION': [{ field: 'formaPago', table: 'formas_pago' }],
  'MODALIDAD DE VENTA': [{ field: 'modalidadVenta', table: 'modalidades_venta' }],
  'CLAUSULA DE VENTA DE EXPORTACION': [{ field: 'clausulaVenta', table: 'clausulas_venta' }],
  'VIA DE TRANSPORTE': [{ field: 'viaTransporte', table: 'transportes' }],
  'PUERTO DE EMBARQUE': [{ field: 'puertoEmbarque', table: 'puertos' }],
  'PUERTO DE DESEMBARQUE': [{ field: 'puertoDesembarque', table: 'puertos' }],
  'UNIDAD DE MEDIDA DE TARA': [{ field: 'unidadTara', table: 'unidades' }],
  'UNIDAD PESO BRUTO': [{ field: 'unidadPesoBruto', table: 'unidades' }],
  'UNIDAD PESO NETO': [{ field: 'unidadPesoNeto', table: 'unidades' }],
  'TIPO DE BULTO': [{ field: 'tipoBulto', table: 'tipos_bulto' }],
  'PAIS RECEPTOR Y PAIS DESTINO': [
    { field: 'paisReceptor', table: 'paises' },
    { field: 'paisDestino', table: 'paises' },
  ],
  'PAIS RECEPTOR': [{ field: 'paisReceptor', table: 'paises' }],
  'PAIS DESTINO': [{ field: 'paisDestino', table: 'paises' }],
  NACIONALIDAD: [{ field: 'nacionalidad', table: 'paises' }],
};
const EXPORT_NUMBERS: Record<string, keyof ExportData> = {
  'TOTAL CLAUSULA DE VENTA': 'totalClausulaVenta',
  'TOTAL BULTOS': 'totalBultos',
  FLETE: 'flete',
  SEGURO: 'seguro',
};

export const emptyExport = (): ExportData => ({
  references: [],
  moneda: null,
  formaPago: null,
  modalidadVenta: null,
  clausulaVenta: null,
  totalClausulaVenta: null,
  viaTransporte: null,
  puertoEmbarque: null,
  puertoDesembarque: null,
  unidadTara: null,
  unidadPesoBruto: null,
  unidadPesoNeto: null,
  tipoBulto: null,
  totalBultos: null,
  flete: null,
  seguro: null,
  paisReceptor: null,
  paisDestino: null,
  nacionalidad: null,
});

/** The key of a `KEY:  value` export line ("FLETE (**)" is FLETE), or undefined when it is not one. */
export function exportKey(rawKey: string): string | undefined {
  const k = comparable(rawKey.replace(/\(\*+\)/g, ''));
  return k === 'REFERENCIA' || k in EXPORT_CODED || k in EXPORT_NUMBERS ? k : undefined;
}

/** Writes one export line into `data`; a name missing from its Aduana table is an error naming the line. */
export function applyExportField(data: ExportData, key: string, value: string, line: number): void {
  if (key === 'REFERENCIA') {
    data.references.push({ name: value, tipoDocRef: referenceDocumentCode(value) ?? null });
    return;
  }
  const numeric = EXPORT_NUMBERS[key];
  if (numeric) {
    (data as unknown as Record<string, number>)[numeric] = parseNumber(value, line, key);
    return;
  }
  for (const { field, table } of EXPORT_CODED[key] ?? []) {
    const code = aduanaCode(table, value);
    if (code === undefined) throw new SetParseError('unknown_code', line, `a name of the Aduana's table ${table} for ${key}`, value);
    (data as unknown as Record<string, Coded>)[field] = { name: value, code };
  }
}

/**
 * A guía's MOTIVO as IndTraslado (SII DTE format v2.2: 1 operación constituye venta, 2 ventas por
 * efectuar, 3 consignaciones, 4 entrega gratuita, 5 traslados internos, 6 otros traslados no venta,
 * 7 guía de devolución, 8 traslado para exportación, 9 venta para exportación).
 */
export function indTrasladoOf(motivo: string): number | null {
  const m = comparable(motivo);
  if (/VENTA PARA EXPORTACION/.test(m)) return 9;
  if (/TRASLADO PARA EXPORTACION/.test(m)) return 8;
  if (/DEVOLUCION/.test(m)) return 7;
  if (/ENTRE BODEGAS|TRASLADO INTERNO|TRASLADOS INTERNOS/.test(m)) return 5;
  if (/ENTREGA GRATUITA/.test(m)) return 4;
  if (/CONSIGNACION/.test(m)) return 3;
  if (/VENTAS? POR EFECTUAR/.test(m)) return 2;
  if (/NO (CONSTITUYE )?VENTA|OTROS TRASLADOS/.test(m)) return 6;
  if (/^VENTA$|CONSTITUYE VENTA/.test(m)) return 1;
  return null;
}

/**
 * TRASLADO POR as TipoDespacho (1 por cuenta del receptor, 2 del emisor a instalaciones del
 * receptor, 3 del emisor a otras instalaciones).
 */
export function tipoDespachoOf(por: string): number | null {
  const m = comparable(por);
  if (/^(EL )?(CLIENTE|RECEPTOR)/.test(m)) return 1;
  if (/EMISOR.*OTRAS INSTALACIONES/.test(m)) return 3;
  if (/EMISOR.*(CLIENTE|RECEPTOR)/.test(m)) return 2;
  return null;
}
