import { describe, expect, it } from 'vitest';
import { annulRetryDelayMs, contiguousRuns } from './folios.annul.ts';
import type { VoidedFolio } from './folios.annul.store.ts';

const v = (folio: number, over: Partial<VoidedFolio> = {}): VoidedFolio => ({
  accountId: 'a',
  tenantId: 't1',
  tipoDte: 33,
  folio,
  rangeId: 'r1',
  attempts: 0,
  ambiente: 'certificacion',
  ...over,
});

describe('contiguousRuns', () => {
  it('joins consecutive folios of one tenant, type and CAF, in any input order', () => {
    expect(contiguousRuns([v(4), v(2), v(3), v(9), v(7)]).map((r) => [r.desde, r.hasta])).toEqual([
      [2, 4],
      [7, 7],
      [9, 9],
    ]);
  });

  it('never joins across tenants, types or CAF ranges', () => {
    const runs = contiguousRuns([v(1), v(2, { rangeId: 'r2' }), v(3, { rangeId: 'r2' }), v(4, { tipoDte: 39 }), v(5, { tenantId: 't2' })]);
    expect(runs.map((r) => [r.tenantId, r.tipoDte, r.rangeId, r.desde, r.hasta])).toEqual([
      ['t1', 33, 'r1', 1, 1],
      ['t1', 33, 'r2', 2, 3],
      ['t1', 39, 'r1', 4, 4],
      ['t2', 33, 'r1', 5, 5],
    ]);
  });

  it('carries the highest attempt count of its folios, and is empty for no input', () => {
    expect(contiguousRuns([v(1, { attempts: 2 }), v(2, { attempts: 5 })])[0]!.attempts).toBe(5);
    expect(contiguousRuns([])).toEqual([]);
  });
});

it('backs off 5 min, doubling, capped at 12 h', () => {
  expect([1, 2, 3].map(annulRetryDelayMs)).toEqual([300_000, 600_000, 1_200_000]);
  expect(annulRetryDelayMs(20)).toBe(12 * 3_600_000);
});
