/**
 * Exact decimal arithmetic for the emulator's amount rules: a figure is a bigint count of
 * millionths. Every SII figure has at most 6 decimals (QtyItem/PrcItem 12+6, export amounts 14+4,
 * percentages 3+2, TpoCambio 6+4 [SII-FORMATO §2.2]); products are kept exact until rounded.
 * Our own, not the engine's: the emulator judges the engine's arithmetic.
 */
export type Dec = bigint;

const SCALE = 1_000_000n;
export const ONE: Dec = SCALE;
export const HUNDRED: Dec = 100n * SCALE;

/** "12.5", "-3", "0.000001" → millionths; null for anything else (or more than 6 decimals). */
export function dec(s: string | undefined): Dec | null {
  const m = s === undefined ? null : /^(-?)(\d+)(?:\.(\d{1,6}))?$/.exec(s.trim());
  if (!m) return null;
  const v = BigInt(m[2]!) * SCALE + BigInt((m[3] ?? '').padEnd(6, '0'));
  return m[1] ? -v : v;
}

/** n / d (d > 0) rounded half away from zero: PHP's and the SII's round(), half-up for positives. */
function divRound(n: bigint, d: bigint): bigint {
  const neg = n < 0n;
  const q = ((neg ? -n : n) * 2n + d) / (2n * d);
  return neg ? -q : q;
}

/** a × b / divisor, rounded half away from zero to `places` decimals (0–6). */
export function mulDivRound(a: Dec, b: Dec, divisor: Dec, places: number): Dec {
  const step = 10n ** BigInt(6 - places);
  return divRound(a * b, divisor * step) * step;
}

export const roundTo = (a: Dec, places: number): Dec => mulDivRound(a, ONE, ONE, places);

export const sum = (xs: Dec[]): Dec => xs.reduce((s, x) => s + x, 0n);

/** For detail texts: 1505, 50.5, -12.25. */
export function show(a: Dec): string {
  const neg = a < 0n;
  const v = neg ? -a : a;
  const frac = (v % SCALE).toString().padStart(6, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${v / SCALE}${frac ? `.${frac}` : ''}`;
}
