import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../db/types.ts';
import { describeEachDb, openSecondConnection, openTestDb, type TestDb } from '../../test/support/db.ts';
import { createMemoryRateLimiter, createRateLimiter } from './rate-limiter.ts';

it('memory buckets refill with time and never go below zero', async () => {
  const l = createMemoryRateLimiter();
  // 10 tokens per second: the five takes happen well within the 100 ms one token needs to refill.
  const limit = { perSecond: 10, burst: 3 };
  const r = [];
  for (let i = 0; i < 5; i++) r.push(await l.take('k', limit));
  expect(r.map((x) => x.allowed)).toEqual([true, true, true, false, false]);
  await new Promise((res) => setTimeout(res, 150));
  expect((await l.take('k', limit)).allowed).toBe(true);
});

describeEachDb('database token buckets', (backend) => {
  let t: TestDb;
  let second: Db | undefined;
  beforeAll(async () => {
    t = await openTestDb(backend);
    second = await openSecondConnection(t);
  });
  afterAll(async () => {
    await second?.close();
    await t.close();
  });

  it('is shared by every connection: 100 concurrent takes of a 30-token bucket allow exactly 30', async () => {
    const a = createRateLimiter(t.db);
    const b = createRateLimiter(second ?? t.db);
    const limit = { perSecond: 0.001, burst: 30 };
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).take('shared', limit)));
    expect(results.filter((r) => r.allowed)).toHaveLength(30);
    const denied = results.find((r) => !r.allowed)!;
    expect(denied.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });
});

describeEachDb('leased token buckets', (backend) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(backend);
  });
  afterAll(() => t.close());

  /** The database, counting the statements that reach it. */
  const counting = (db: Db) => {
    const c: { n: number; query: Db['query'] } = {
      n: 0,
      query: ((text: string, params?: readonly unknown[]) => (c.n++, db.query(text, params))) as Db['query'],
    };
    return c;
  };

  it('takes from the database once per lease, not once per request, and never more than the bucket holds', async () => {
    const sql = counting(t.db);
    const l = createRateLimiter(sql);
    const limit = { perSecond: 200, burst: 400 }; // leases of 10 tokens
    const results = [];
    for (let i = 0; i < 100; i++) results.push(await l.take('lease', limit));
    expect(results.every((r) => r.allowed)).toBe(true);
    expect(sql.n).toBeLessThanOrEqual(11);
    expect(results.at(-1)!.remaining).toBeGreaterThan(250);
  });

  it('once the shared bucket is empty, refuses locally until a token can have refilled', async () => {
    const sql = counting(t.db);
    const l = createRateLimiter(sql);
    const limit = { perSecond: 0.5, burst: 3 };
    const r = await Promise.all(Array.from({ length: 10 }, () => l.take('empty', limit)));
    expect(r.filter((x) => x.allowed)).toHaveLength(3);
    const before = sql.n;
    const again = await l.take('empty', limit);
    expect(again.allowed).toBe(false);
    expect(again.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(sql.n).toBe(before);
  });
});
