import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgres } from '../db/postgres.ts';
import type { Db } from '../db/types.ts';
import { createCrossProcessInvalidation, type CrossProcessInvalidationOptions } from './cross-process-invalidation.ts';

const noQuery = { query: async () => ({ rows: [], rowCount: 0 }) };

it('without a listener (PGlite) tells no one and is never listening', async () => {
  let resets = 0;
  const s = createCrossProcessInvalidation(noQuery, {
    namePrefix: 'x:',
    channels: ['c'],
    ackChannel: 'a',
    onMessage: () => {},
    onReset: () => resets++,
  });
  expect([s.crossProcess, s.listening(), s.epoch()]).toEqual([false, false, 0]);
  s.acknowledge('t');
  s.invalidated();
  expect([s.epoch(), resets]).toEqual([1, 0]);
});

it('is listening only while the connection is up, and each change of state bumps the epoch and resets', () => {
  const state: { onState?: (l: boolean) => void; onMessage?: (c: string, p: string) => void; channels?: readonly string[] } = {};
  const sent: [string, string][] = [];
  const messages: string[] = [];
  let resets = 0;
  const s = createCrossProcessInvalidation(
    {
      ...noQuery,
      listen(o) {
        Object.assign(state, o);
        return { notify: (c, p) => void sent.push([c, p]) };
      },
    },
    {
      namePrefix: 'x:',
      channels: ['c'],
      ackChannel: 'a',
      onMessage: (c, p) => void messages.push(`${c}:${p}`),
      onReset: () => resets++,
    },
  );
  expect(state.channels).toEqual(['c', 'a']);
  expect([s.crossProcess, s.listening()]).toEqual([true, false]);
  state.onState!(true);
  expect([s.listening(), s.epoch(), resets]).toEqual([true, 1, 1]);
  state.onState!(false);
  expect([s.listening(), s.epoch(), resets]).toEqual([false, 2, 2]);
  // Acknowledgements are never the owner's messages, and count only for an expected token.
  const acks = s.expectAcks('t1');
  state.onMessage!('c', 'p');
  state.onMessage!('a', 'someone t1');
  state.onMessage!('a', 'someone t2');
  state.onMessage!('a', 'malformed');
  expect(messages).toEqual(['c:p']);
  expect([...acks.received]).toEqual(['someone']);
  // A later expectation of the same token is not ended by the earlier one's stop().
  const again = s.expectAcks('t1');
  acks.stop();
  state.onMessage!('a', 'other t1');
  expect([...again.received]).toEqual(['other']);
  s.acknowledge('t9');
  expect(sent).toEqual([['a', `${s.instance} t9`]]);
  expect(s.instance.startsWith('x:')).toBe(true);
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('between processes on PostgreSQL', () => {
  const url = process.env.TEST_DATABASE_URL!;
  // Notifications and pg_stat_activity are per database: names of this run's own, so other tests
  // running on the same database neither see these listeners nor are seen.
  const run = crypto.randomBytes(4).toString('hex');
  const prefix = `test-inv-${run}:`;
  const channel = `test_inv_${run}`;
  const ackChannel = `test_inv_ack_${run}`;
  const open = new Set<Db>();
  const close = async (db: Db) => {
    open.delete(db);
    await db.close();
  };

  /** One "process": its own pool and listener; it records what it is told and answers unless `mute`. */
  async function member({ mute = false, ...opts }: { mute?: boolean } & Partial<CrossProcessInvalidationOptions> = {}) {
    const db = await openPostgres(url, { max: 2 });
    open.add(db);
    const told: string[] = [];
    const logs: string[] = [];
    let up: () => void;
    const listening = new Promise<void>((r) => (up = r));
    const s = createCrossProcessInvalidation(db, {
      namePrefix: prefix,
      channels: [channel],
      ackChannel,
      onMessage(_c, payload) {
        told.push(payload);
        s.invalidated();
        if (!mute) s.acknowledge(payload);
      },
      onReset: () => {},
      log: (m) => void logs.push(m),
      ...opts,
    });
    const check = setInterval(() => s.listening() && up(), 5);
    await listening;
    clearInterval(check);
    return { db, s, told, logs };
  }

  const notify = (db: Db, token: string) => db.query('select pg_notify($1, $2)', [channel, token]);

  // Each test starts with no listener of the previous one.
  afterEach(async () => {
    await Promise.all([...open].map(close));
  });

  it('a notification reaches the other process, which invalidates and acknowledges it', async () => {
    const a = await member();
    const b = await member();
    const live = await a.s.liveListeners();
    expect(live).toEqual(new Set([a.s.instance, b.s.instance]));
    const epochBefore = b.s.epoch();
    const acks = a.s.expectAcks('tok1');
    await notify(a.db, 'tok1');
    const missing = await a.s.waitForAcks(live, acks.received, () => 'unexpected');
    acks.stop();
    expect(missing).toBe(0);
    expect(acks.received).toEqual(live);
    expect(b.told).toEqual(['tok1']);
    expect(b.s.epoch()).toBe(epochBefore + 1);
    expect([...a.logs, ...b.logs]).toEqual([]);
  });

  it('stops waiting for a listener that goes away, without waiting for the timeout', async () => {
    const a = await member({ ackTimeoutMs: 60_000, refreshMs: 20 });
    const silent = await member({ mute: true });
    const live = await a.s.liveListeners();
    expect(live.has(silent.s.instance)).toBe(true);
    const acks = a.s.expectAcks('tok2');
    await notify(a.db, 'tok2');
    const waited = a.s.waitForAcks(live, acks.received, (n) => `${n} missing`);
    await close(silent.db);
    // Had it waited for the timeout, it would report the silent one as missing and log it.
    expect(await waited).toBe(0);
    acks.stop();
    expect(a.logs).toEqual([]);
  });

  it('gives up after the timeout and logs how many never answered', async () => {
    const a = await member({ ackTimeoutMs: 200, refreshMs: 20 });
    const silent = await member({ mute: true });
    const live = await a.s.liveListeners();
    const acks = a.s.expectAcks('tok3');
    await notify(a.db, 'tok3');
    const missing = await a.s.waitForAcks(live, acks.received, (n, ms) => `${n} did not answer within ${ms} ms`);
    acks.stop();
    expect(missing).toBe(1);
    expect(silent.told).toEqual(['tok3']);
    expect(a.logs).toEqual(['1 did not answer within 200 ms']);
    expect(acks.received).toEqual(new Set([a.s.instance]));
  });
});
