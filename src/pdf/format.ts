import { formatRutDotted, tryParseRut } from '../dte/index.ts';

/**
 * Spanish (Chile) typography for the printed document: thousands with dots, decimals with a comma,
 * dates dd-mm-aaaa, RUTs dotted. Inputs are the decimal text the XML carries (never floats), so a
 * value prints exactly as it was signed.
 */
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** "1234567" → "1.234.567"; "1234.50" → "1.234,50"; "-500" → "-500". Anything else as given. */
export function formatNumber(value: string | number): string {
  const s = String(value).trim();
  const m = DECIMAL.exec(s);
  if (!m) return s;
  const [, sign, int, frac] = m;
  const grouped = int!.replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${sign}${grouped}${frac ? `,${frac}` : ''}`;
}

/** A CLP amount: "$ 1.234.567". */
export const formatAmount = (value: string | number): string => `$ ${formatNumber(value)}`;

/** A decimal as the XML writes it, without trailing zeros: "1.50" → "1.5", "2.0" → "2". */
export const trimZeros = (value: string): string => (value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value);

/** Quantities and unit prices keep their decimals but drop trailing zeros: "1.50" → "1,5". */
export const formatQuantity = (value: string): string => formatNumber(trimZeros(value));

/** A percentage with its decimals: "19" → "19 %", "10.5" → "10,5 %". */
export const formatPercent = (value: string): string => `${formatQuantity(value)} %`;

/** "2026-03-02" → "02-03-2026". */
export function formatDate(ymd: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(ymd);
  return m ? `${m[3]}-${m[2]}-${m[1]}` : ymd;
}

/** "76192083-9" → "76.192.083-9"; an unreadable value is printed as it is. */
export function formatRut(rut: string): string {
  const r = tryParseRut(rut);
  return r ? formatRutDotted(r) : rut;
}

/** The year of a YYYY-MM-DD date ("Res. 80 de 2014"). */
export const yearOf = (ymd: string): string => ymd.slice(0, 4);
