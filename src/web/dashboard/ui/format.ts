import type { Messages } from '../i18n/index.ts';

/** Dates and amounts as a Chilean user reads them: Santiago time, CLP without decimals. */
const TZ = 'America/Santiago';
const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

export function formatDateTime(iso: string | Date | null | undefined, t: Messages): string {
  if (!iso) return '—';
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  if (Number.isNaN(d.getTime())) return '—';
  let f = dateTimeFormats.get(t.locale);
  // With seconds (two events in the same minute are told apart), on the 24-hour clock Chile
  // writes: ICU's es-CL default would be "4:49:37 p. m.".
  if (!f)
    dateTimeFormats.set(
      t.locale,
      (f = new Intl.DateTimeFormat(t.locale, { dateStyle: 'medium', timeStyle: 'medium', timeZone: TZ, hourCycle: 'h23' })),
    );
  return f.format(d);
}

/** A YYYY-MM-DD calendar date, shown without any time-zone shift. */
export function formatDate(ymd: string | null | undefined, t: Messages): string {
  if (!ymd || !/^\d{4}-\d{2}-\d{2}$/.test(ymd)) return ymd ?? '—';
  let f = dateFormats.get(t.locale);
  if (!f) dateFormats.set(t.locale, (f = new Intl.DateTimeFormat(t.locale, { dateStyle: 'medium', timeZone: 'UTC' })));
  return f.format(new Date(`${ymd}T12:00:00Z`));
}

const clp = new Intl.NumberFormat('es-CL', { style: 'currency', currency: 'CLP', maximumFractionDigits: 0 });
export const formatClp = (n: number | null | undefined): string => (typeof n === 'number' ? clp.format(n) : '—');

const foreign = new Intl.NumberFormat('es-CL', { minimumFractionDigits: 0, maximumFractionDigits: 4 });
/**
 * An amount of a document in its own currency: pesos as CLP, an export's amounts (up to 4
 * decimals) after the SII's currency name, e.g. "DOLAR USA 1.146,5" (docs/decisions.md §11).
 */
export function formatAmount(n: number | null | undefined, moneda: string | null | undefined): string {
  if (!moneda || moneda === 'PESO CL') return formatClp(n);
  return typeof n === 'number' ? `${moneda} ${foreign.format(n)}` : '—';
}
/** A unit price keeps the decimals the document carries (PrcItem has up to 6), as the PDF prints it. */
const unitPrice = new Intl.NumberFormat('es-CL', {
  style: 'currency',
  currency: 'CLP',
  minimumFractionDigits: 0,
  maximumFractionDigits: 6,
});
export const formatUnitPrice = (n: number | null | undefined): string => (typeof n === 'number' ? unitPrice.format(n) : '—');

export const formatNumber = (n: number | null | undefined, t: Messages): string =>
  typeof n === 'number' ? new Intl.NumberFormat(t.locale).format(n) : '—';

/** Whole days from `now` until a YYYY-MM-DD date (negative once past). */
export function daysUntil(ymd: string, now: Date): number {
  const end = Date.parse(`${ymd}T23:59:59Z`);
  return Math.floor((end - now.getTime()) / 86_400_000);
}
