import type { DteRecord } from './issuing.ts';

/**
 * The documents list as CSV for a spreadsheet (docs/dashboard.md "Exporting to CSV"):
 * - UTF-8 with a byte-order mark, so Excel reads Ñ and tildes right;
 * - `;` between fields, the list separator of Excel in Chilean Spanish (and of the SII's own
 *   downloads), with CRLF line ends (RFC 4180);
 * - every field quoted when it holds the separator, a quote, or a line break, quotes doubled;
 * - a text cell that starts with = + - @ (or a tab or carriage return) gets a leading ' so a
 *   spreadsheet never runs it as a formula (CSV injection); amounts are written as integers
 *   (the document's own numbers, no thousands separators), so they stay numbers;
 * - the same columns in the same order whatever the filters or the page's language.
 */
export const CSV_BOM = '\uFEFF';
const SEP = ';';

export const CSV_COLUMNS = [
  'id',
  'tipoDte',
  'folio',
  'fechaEmision',
  'receptorRut',
  'receptorRazonSocial',
  'montoNeto',
  'montoExento',
  'iva',
  'montoTotal',
  'moneda',
  'status',
  'siiEstado',
  'trackId',
  'createdAt',
] as const;

/** A text cell, made safe from formula injection and quoted when needed. */
export function csvText(value: string | null | undefined): string {
  let v = value ?? '';
  if (/^[=+\-@\t\r]/.test(v)) v = `'${v}`;
  return /[";\r\n,]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** A number cell: an integer as digits (an export's foreign-currency amount keeps its decimals, with a point). */
export function csvNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '';
  return Number.isInteger(value) ? BigInt(value).toString() : String(value);
}

export const csvHeader = (): string => CSV_COLUMNS.join(SEP) + '\r\n';

export function csvRow(d: DteRecord): string {
  const cells = [
    csvText(d.id),
    csvNumber(d.tipoDte),
    csvNumber(d.folio),
    csvText(d.fechaEmision),
    csvText(d.receptor.rut),
    csvText(d.receptor.razonSocial),
    csvNumber(d.montoNeto),
    csvNumber(d.montoExento),
    csvNumber(d.iva),
    csvNumber(d.montoTotal),
    csvText(d.exportacion?.moneda ?? 'PESO CL'),
    csvText(d.status),
    csvText(d.sii.estado),
    csvText(d.trackId),
    csvText(d.createdAt),
  ];
  return cells.join(SEP) + '\r\n';
}

/** `documentos-76123456-7-2026-11-30.csv`: the company's RUT and the day, in characters any file system takes. */
export function csvFilename(rutEmpresa: string, day: string): string {
  const rut = rutEmpresa.replace(/[^0-9Kk-]/g, '');
  return `documentos-${rut}-${day}.csv`;
}
