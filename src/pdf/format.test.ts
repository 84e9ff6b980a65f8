import { describe, expect, it } from 'vitest';
import { formatAmount, formatDate, formatNumber, formatQuantity, formatRut } from './format.ts';

describe('Spanish typography of the printed document', () => {
  it('groups thousands with dots and writes decimals with a comma, from the XML text', () => {
    expect(formatNumber('0')).toBe('0');
    expect(formatNumber('999')).toBe('999');
    expect(formatNumber('1000')).toBe('1.000');
    expect(formatNumber('529688')).toBe('529.688');
    expect(formatNumber('999999999999999')).toBe('999.999.999.999.999');
    expect(formatNumber('-12500')).toBe('-12.500');
    expect(formatNumber('12990.5')).toBe('12.990,5');
    expect(formatNumber('007')).toBe('7');
    expect(formatAmount('1234567')).toBe('$ 1.234.567');
    expect(formatQuantity('1.500000')).toBe('1,5');
    expect(formatQuantity('10')).toBe('10');
    expect(formatNumber('n/a')).toBe('n/a');
  });

  it('writes dates dd-mm-aaaa and RUTs dotted', () => {
    expect(formatDate('2026-03-02')).toBe('02-03-2026');
    expect(formatRut('76192083-9')).toBe('76.192.083-9');
    expect(formatRut('8414240-9')).toBe('8.414.240-9');
    expect(formatRut('garbage')).toBe('garbage');
  });
});
