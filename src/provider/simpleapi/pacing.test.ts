import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb, openSecondConnection, openTestDb, type TestDb } from '../../../test/support/db.ts';
import { createDbPacer, marginMs, nextSlot, pacingKey, trimCalls } from './pacing.ts';
import { PRODUCTION_RATE_LIMITS, type RateRule } from './protocol.ts';

/**
 * Pacing keeps every rule over any window of its length (so the provider's fixed windows, wherever
 * they start, never see more than the limit), is shared through the database, and refuses to wait
 * longer than allowed.
 */
const api = PRODUCTION_RATE_LIMITS.api;
const servicios = PRODUCTION_RATE_LIMITS.servicios;

/** The most calls any window of `r.periodMs` contains. */
const worstWindow = (calls: number[], r: RateRule) =>
  Math.max(...calls.map((t) => calls.filter((u) => u >= t && u < t + r.periodMs).length));

function schedule(rules: readonly RateRule[], n: number, now = 0): number[] {
  const calls: number[] = [];
  for (let i = 0; i < n; i++) calls.push(nextSlot(trimCalls(calls, rules, now), rules, now));
  return calls;
}

describe('nextSlot', () => {
  it('lets 3 calls a second and 40 a minute through on the DTE host, and no more in any window', () => {
    const calls = schedule(api, 120);
    expect(calls.slice(0, 3)).toEqual([0, 0, 0]);
    expect(calls[3]).toBe(1000 + marginMs(api[0]!));
    for (const r of api) expect(worstWindow(calls, r)).toBeLessThanOrEqual(r.limit);
    // 120 calls need three minutes' budgets: the 41st waits for the first minute to pass.
    expect(calls[40]).toBeGreaterThanOrEqual(60_000);
  });

  it('spaces folio requests 1 s apart, 5 a minute and 100 an hour', () => {
    const calls = schedule(servicios, 110);
    for (const r of servicios) expect(worstWindow(calls, r)).toBeLessThanOrEqual(r.limit);
    expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(1000);
    expect(calls[5]).toBeGreaterThanOrEqual(60_000);
    expect(calls[100]).toBeGreaterThanOrEqual(3_600_000);
  });

  it('never gives a slot before a 429 block or an earlier reserved slot', () => {
    expect(nextSlot([], api, 100, 5_000)).toBe(5_000);
    expect(nextSlot([9_000], api, 100)).toBe(9_000);
  });
});

describeEachDb('provider pacing in the database', (backend) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(backend);
  });
  afterAll(() => t?.close());

  it('shares one budget per key and host across connections, and keys only by digest', async () => {
    const clock = 1_000_000;
    const slept: number[] = [];
    const opts = { maxWaitMs: 60_000, now: () => clock, sleep: async (ms: number) => void slept.push(ms) };
    const other = (await openSecondConnection(t)) ?? t.db;
    const a = createDbPacer(t.db, PRODUCTION_RATE_LIMITS, opts);
    const b = createDbPacer(other, PRODUCTION_RATE_LIMITS, opts);
    const key = `key-${backend}-${Math.random()}`;
    await a.acquire(key, 'servicios');
    await b.acquire(key, 'servicios');
    await a.acquire(key, 'servicios');
    expect(slept).toEqual([1000 + marginMs(servicios[0]!), 2 * (1000 + marginMs(servicios[0]!))]);
    // Another key and the other host have budgets of their own.
    slept.length = 0;
    await b.acquire(`${key}-2`, 'servicios');
    await b.acquire(key, 'api');
    expect(slept).toEqual([]);
    const rows = await t.db.query<{ key_hash: string }>('select key_hash from provider_pacing where key_hash = $1', [pacingKey(key)]);
    expect(rows.rows.length).toBe(2);
    const all = await t.db.query<{ key_hash: string }>('select key_hash from provider_pacing');
    expect(all.rows.some((r) => r.key_hash.includes('key-'))).toBe(false);
    if (other !== t.db) await other.close();
  });

  it('refuses to wait longer than allowed, reserving nothing, and honours a 429 block', async () => {
    let clock = 5_000_000;
    const p = createDbPacer(t.db, PRODUCTION_RATE_LIMITS, { maxWaitMs: 10_000, now: () => clock, sleep: async (ms) => void (clock += ms) });
    const key = `quota-${backend}-${Math.random()}`;
    for (let i = 0; i < 5; i++) await p.acquire(key, 'servicios');
    // The 6th folio request in a minute: ~55 s away, more than 10 s.
    const first = (await p.acquire(key, 'servicios').catch((e: unknown) => e)) as { kind: string; retryAfterMs: number };
    expect(first).toMatchObject({ kind: 'rate_limited' });
    expect(first.retryAfterMs).toBeGreaterThan(50_000);
    // Refused calls reserve nothing: asking again at the same moment gives the same wait.
    const err = (await p.acquire(key, 'servicios').catch((e: unknown) => e)) as { retryAfterMs: number };
    expect(err.retryAfterMs).toBe(first.retryAfterMs);
    const before = clock;
    await p.block(key, 'api', 3_000);
    await p.acquire(key, 'api');
    expect(clock - before).toBe(3_000);
  });
});
