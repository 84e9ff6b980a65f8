import { describe, expect, it } from 'vitest';
import { messagesFor } from '../i18n/index.ts';
import { formatDate, formatDateTime } from './format.ts';

describe('dashboard dates', () => {
  const at = '2026-11-27T19:49:07Z'; // 16:49:07 in Santiago (summer time, UTC-3)

  it('writes timestamps with seconds, in Santiago time, on the 24-hour clock', () => {
    expect(formatDateTime(at, messagesFor('es'))).toBe('27-11-2026, 16:49:07');
    expect(formatDateTime(at, messagesFor('en'))).toBe('27 Nov 2026, 16:49:07');
    expect(formatDateTime(null, messagesFor('es'))).toBe('—');
    expect(formatDateTime('not a date', messagesFor('es'))).toBe('—');
  });

  it('writes calendar dates without a time and without a time-zone shift', () => {
    expect(formatDate('2014-08-22', messagesFor('es'))).toBe('22-08-2014');
    expect(formatDate('2014-08-22', messagesFor('en'))).toBe('22 Aug 2014');
  });
});
