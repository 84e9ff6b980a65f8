import { describe, expect, it } from 'vitest';
import { computeDv, formatRutDotted, formatRutSii, isValidRut, parseRut, splitRut, toSiiRut, tryParseRut } from './rut.ts';
import { DteEngineError } from './errors.ts';

describe('RUT', () => {
  it.each([
    '60.803.000-K',
    '60803000-K',
    '60803000-k',
    '97.975.000-5',
    '97975000-5',
    '7880442-4',
    '07880442-4',
    '66666666-6',
    '55.555.555-5',
    '76354771-K',
  ])('accepts %s', (r) => expect(isValidRut(r)).toBe(true));

  it.each([
    '60803000-1',
    '97975000-4',
    '76.123.456-7',
    '7.6123456-7',
    '76123456',
    '76-123-456-7',
    '',
    'abc-1',
    '0-0',
    '76.12.3456-7',
    '60803000-KK',
  ])('rejects %s', (r) => expect(isValidRut(r)).toBe(false));

  it('computes check digits (modulo 11, 10 → K, 11 → 0)', () => {
    expect(computeDv(60803000)).toBe('K');
    expect(computeDv(97975000)).toBe('5');
    expect(computeDv(77879240)).toBe('0');
    expect(computeDv(76369187)).toBe('K');
    expect(computeDv(60910000)).toBe('1');
  });

  it('formats to SII and dotted forms', () => {
    expect(toSiiRut('60.803.000-k')).toBe('60803000-K');
    expect(formatRutDotted('60803000-K')).toBe('60.803.000-K');
    expect(formatRutDotted('7880442-4')).toBe('7.880.442-4');
    expect(formatRutSii(parseRut('07880442-4'))).toBe('7880442-4');
    expect(splitRut('76.354.771-K')).toEqual({ rut: '76354771', dv: 'K' });
    expect(tryParseRut(' 97.975.000-5 ')).toEqual({ body: 97975000, dv: '5' });
  });

  it('throws a typed error naming the field', () => {
    try {
      parseRut('76.123.456-1', 'receptor.rut');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(DteEngineError);
      expect((e as DteEngineError).code).toBe('invalid_rut');
      expect((e as DteEngineError).param).toBe('receptor.rut');
    }
  });
});
