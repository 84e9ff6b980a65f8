import { DteEngineError } from './errors.ts';

/**
 * Exact decimal arithmetic for amounts. JS numbers are binary floats (0.1 × 3 = 0.30000000000000004),
 * so a product is rounded half-up only after converting each operand to the decimal the user wrote:
 * `String(n)` is the shortest decimal that round-trips to `n`, which is exactly what a JSON client
 * typed. Values are then scaled BigInts, and rounding is done on integers.
 */
export interface Decimal {
  /** value = units / 10^scale */
  units: bigint;
  scale: number;
}

const DECIMAL_TEXT = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i;

// 10^k for the scales amounts use, computed once: `10n ** BigInt(k)` allocates on every call.
const POW10: readonly bigint[] = Array.from({ length: 32 }, (_, k) => 10n ** BigInt(k));

/** 10^k as a BigInt. */
export function pow10(k: number): bigint {
  return POW10[k] ?? 10n ** BigInt(k);
}

export function decimalFromNumber(n: number, param?: string): Decimal {
  if (typeof n !== 'number' || !Number.isFinite(n)) {
    throw new DteEngineError('invalid_number', `${param ?? 'value'} must be a finite number`, param);
  }
  if (n < 0) {
    throw new DteEngineError('invalid_number', `${param ?? 'value'} must not be negative`, param);
  }
  // Whole numbers (most quantities and prices) need no text: a safe integer is exact as it is.
  if (Number.isSafeInteger(n)) return { units: BigInt(n), scale: 0 };
  const m = DECIMAL_TEXT.exec(String(n));
  if (!m) throw new DteEngineError('invalid_number', `${param ?? 'value'} is not a decimal number`, param);
  const intPart = m[1] ?? '0';
  const frac = m[2] ?? '';
  const exp = Number(m[3] ?? '0');
  let units = BigInt(intPart + frac);
  let scale = frac.length - exp;
  if (scale < 0) {
    units *= pow10(-scale);
    scale = 0;
  }
  return normalize({ units, scale });
}

function normalize(d: Decimal): Decimal {
  let { units, scale } = d;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return { units, scale };
}

export function multiply(a: Decimal, b: Decimal): Decimal {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

/** Half-up (away from zero for the non-negative values used here) to an integer. */
export function roundHalfUp(d: Decimal): bigint {
  if (d.scale === 0) return d.units;
  const div = pow10(d.scale);
  const q = d.units / div;
  const r = d.units % div;
  return r * 2n >= div ? q + 1n : q;
}

/** round(numerator / denominator) half-up, for non-negative integers. */
export function divideRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

/** Plain decimal text, no exponent, no trailing zeros: what the XSD decimal types accept. */
export function formatDecimal(d: Decimal): string {
  if (d.scale === 0) return d.units.toString();
  const n = normalize(d);
  if (n.scale === 0) return n.units.toString();
  const s = n.units.toString().padStart(n.scale + 1, '0');
  return `${s.slice(0, s.length - n.scale)}.${s.slice(s.length - n.scale)}`;
}

export function integerDigits(d: Decimal): number {
  const n = normalize(d);
  const intPart = n.units / pow10(n.scale);
  return intPart === 0n ? 0 : intPart.toString().length;
}

export function isZero(d: Decimal): boolean {
  return d.units === 0n;
}
