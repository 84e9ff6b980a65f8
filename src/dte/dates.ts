import { DteEngineError } from './errors.ts';

/** Calendar dates as `YYYY-MM-DD` strings and SII local timestamps, without I/O or a global clock. */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isValidDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** SII schemas accept dates 2000-01-01..2050-12-31 (FechaType). */
export function checkSiiDate(s: string, param: string): string {
  if (typeof s !== 'string' || !isValidDate(s)) {
    throw new DteEngineError('invalid_date', `${param} must be a date in YYYY-MM-DD form`, param);
  }
  if (s < '2000-01-01' || s > '2050-12-31') {
    throw new DteEngineError('invalid_date', `${param} must be between 2000-01-01 and 2050-12-31`, param);
  }
  return s;
}

/** Whole calendar days from `from` to `to` (both YYYY-MM-DD); negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

export function addDays(date: string, days: number): string {
  const m = DATE.exec(date);
  if (!m) throw new DteEngineError('invalid_date', `"${date}" is not a YYYY-MM-DD date`);
  const t = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + days));
  return t.toISOString().slice(0, 10);
}

/** The SII's clock is Chile's: TmstFirma/TSTED/TmstFirmaEnv are local times without an offset. */
export const SII_TIME_ZONE = 'America/Santiago';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

// Intl formatting is the engine's largest cost after RSA; documents signed within the same second
// share the text (one-entry cache, keyed by zone and whole second).
let lastZone = '';
let lastSecond = Number.NaN;
let lastValue = '';

/** `AAAA-MM-DDTHH:MI:SS` in the given zone (default Chile). */
export function siiTimestamp(at: Date, timeZone: string = SII_TIME_ZONE): string {
  if (!(at instanceof Date) || Number.isNaN(at.getTime())) {
    throw new DteEngineError('invalid_timestamp', 'The signing time (now) must be a valid Date');
  }
  const second = Math.floor(at.getTime() / 1000);
  if (second === lastSecond && timeZone === lastZone) return lastValue;
  lastValue = formatTimestamp(at, timeZone);
  lastSecond = second;
  lastZone = timeZone;
  return lastValue;
}

function formatTimestamp(at: Date, timeZone: string): string {
  const p: Record<string, string> = {};
  for (const part of formatter(timeZone).formatToParts(at)) p[part.type] = part.value;
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}`;
}

/** Local calendar date in the given zone (default Chile): "today in Chile" for the whole service. */
export function siiDate(at: Date, timeZone: string = SII_TIME_ZONE): string {
  return siiTimestamp(at, timeZone).slice(0, 10);
}
