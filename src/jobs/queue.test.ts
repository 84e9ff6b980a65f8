import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../db/types.ts';
import { describeEachDb, openSecondConnection, openTestDb, type TestDb } from '../../test/support/db.ts';
import { createWorker, enqueue } from './queue.ts';

describeEachDb('job queue', (backend) => {
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

  it('runs each job once across two workers, retries failures, honours reschedules', async () => {
    const seen: number[] = [];
    let flaky = 0;
    let polls = 0;
    const handlers = {
      count: async (p: Record<string, unknown>) => {
        seen.push(p.n as number);
      },
      flaky: async () => {
        if (++flaky < 3) throw new Error('transient');
      },
      poll: async () => (++polls < 3 ? { rescheduleInMs: 10 } : undefined),
    };
    await t.db.transaction(async (tx) => {
      for (let n = 0; n < 40; n++) await enqueue(tx, 'count', { n });
      await enqueue(tx, 'flaky', {}, { maxAttempts: 5 });
      await enqueue(tx, 'poll', {});
    });
    // Backoff of the flaky job is seconds; pull it forward so the test stays fast.
    const w1 = createWorker({ db: t.db, handlers, pollMs: 20 });
    const w2 = createWorker({ db: second ?? t.db, handlers, pollMs: 20 });
    w1.start();
    w2.start();
    for (let i = 0; i < 200; i++) {
      await t.db.query(`update jobs set run_at = now() where status = 'pending'`);
      const left = await t.db.query<{ n: number }>(`select count(*)::int as n from jobs where status <> 'failed'`);
      if (left.rows[0]!.n === 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await Promise.all([w1.stop(), w2.stop()]);
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(flaky).toBe(3);
    expect(polls).toBe(3);
  });

  it('gives up after max attempts and keeps the error', async () => {
    await enqueue(t.db, 'doomed', {}, { maxAttempts: 2 });
    const w = createWorker({ db: t.db, handlers: { doomed: async () => Promise.reject(new Error('always')) }, pollMs: 10 });
    await w.drain(2000);
    await t.db.query(`update jobs set run_at = now() where queue = 'doomed'`);
    await w.drain(2000);
    const r = await t.db.query<{ status: string; attempts: number; last_error: string }>(`select * from jobs where queue = 'doomed'`);
    expect(r.rows[0]).toMatchObject({ status: 'failed', attempts: 2 });
    expect(r.rows[0]!.last_error).toContain('always');
  });

  it('claims a job again when its lease expired (its process died)', async () => {
    await enqueue(t.db, 'orphan', { x: 1 });
    await t.db.query(`update jobs set status = 'running', attempts = 1, locked_until = now() - interval '1 second' where queue = 'orphan'`);
    let ran = 0;
    const w = createWorker({ db: t.db, handlers: { orphan: async () => void ran++ } });
    await w.drain(2000);
    expect(ran).toBe(1);
  });

  it('keeps one pending job per singleton key', async () => {
    await enqueue(t.db, 'single', {}, { singletonKey: 's1' });
    await enqueue(t.db, 'single', {}, { singletonKey: 's1' });
    const r = await t.db.query<{ n: number }>(`select count(*)::int as n from jobs where queue = 'single'`);
    expect(r.rows[0]!.n).toBe(1);
  });
});
