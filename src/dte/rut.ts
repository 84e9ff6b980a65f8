import { DteEngineError } from './errors.ts';

/**
 * Chilean RUT. Accepted input: dotted (`76.123.456-7`) or plain (`76123456-7`), `k` in either
 * case, optional leading zeros (certificates carry `07880442-4`). Output forms: SII (`76123456-7`,
 * uppercase K, no dots — the only form allowed in XML, `RUTType`) and dotted (`76.123.456-7`).
 */
export interface Rut {
  body: number;
  dv: string;
}

const RUT_PATTERN = /^0*(\d{1,3}(?:\.\d{3})*|\d+)-([0-9kK])$/;

/** Check digit by modulo 11: weights 2..7 from the right; 11 → "0", 10 → "K". */
export function computeDv(body: number): string {
  if (!Number.isSafeInteger(body) || body < 0) {
    throw new DteEngineError('invalid_rut', `RUT body must be a non-negative integer, got ${body}`);
  }
  let sum = 0;
  let weight = 2;
  for (let n = body; n > 0; n = Math.floor(n / 10)) {
    sum += (n % 10) * weight;
    weight = weight === 7 ? 2 : weight + 1;
  }
  const r = 11 - (sum % 11);
  return r === 11 ? '0' : r === 10 ? 'K' : String(r);
}

/** Parses and validates; returns null for anything malformed or with a wrong check digit. */
export function tryParseRut(input: string): Rut | null {
  if (typeof input !== 'string') return null;
  const m = RUT_PATTERN.exec(input.trim());
  if (!m) return null;
  const grouped = m[1] ?? '';
  const digits = grouped.includes('.') ? grouped.replace(/\./g, '') : grouped;
  // Dotted groups must be well formed: "76.123.456" yes, "7.6123456" no (regex alternation).
  // At most 8 digits: the SII's RUTType is 10 characters with the dash and check digit, so a
  // 9-digit body (100000000-7) would make the whole envelope fail its schema (RSC).
  if (digits.length === 0 || digits.length > 8) return null;
  const body = Number(digits);
  if (!Number.isSafeInteger(body) || body <= 0) return null;
  const dv = (m[2] ?? '').toUpperCase();
  if (computeDv(body) !== dv) return null;
  return { body, dv };
}

export function parseRut(input: string, param?: string): Rut {
  const rut = tryParseRut(input);
  if (!rut) {
    throw new DteEngineError(
      'invalid_rut',
      `${param ?? 'RUT'} "${String(input)}" is not a valid RUT: use 76.123.456-7 or 76123456-7 with a correct check digit`,
      param,
    );
  }
  return rut;
}

export function isValidRut(input: string): boolean {
  return tryParseRut(input) !== null;
}

/** SII/XML form: `76123456-7`. */
export function formatRutSii(rut: Rut | string): string {
  const r = typeof rut === 'string' ? parseRut(rut) : rut;
  return `${r.body}-${r.dv}`;
}

/** Dotted form: `76.123.456-7`. */
export function formatRutDotted(rut: Rut | string): string {
  const r = typeof rut === 'string' ? parseRut(rut) : rut;
  return `${String(r.body).replace(/\B(?=(\d{3})+(?!\d))/g, '.')}-${r.dv}`;
}

/** Normalises any accepted form to the SII form, naming `param` in the error. */
export function toSiiRut(input: string, param?: string): string {
  return formatRutSii(parseRut(input, param));
}

/** Body and DV separately, as the SII upload form fields want them (`rutSender`, `dvSender`). */
export function splitRut(input: string): { rut: string; dv: string } {
  const r = parseRut(input);
  return { rut: String(r.body), dv: r.dv };
}

export const RUT_SII = '60803000-K';
export const RUT_ANONYMOUS = '66666666-6';
export const RUT_FOREIGN = '55555555-5';
