import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/types.ts';
import { emitEvent } from '../../../src/events/outbox.ts';
import { systemClock } from '../../../src/lib/clock.ts';
import { dispatchOutbox } from '../../../src/modules/webhooks/delivery/dispatcher.ts';
import type { WebhooksService } from '../../../src/modules/webhooks/index.ts';
import { startWebhookReceiver, type Respond, type WebhookReceiver } from '../../support/webhook-receiver.ts';
import { webhookWorkerSchema, type WorkerProcess } from '../../support/worker-process.ts';

/**
 * Crashes across processes: a real worker process (`node src/main.ts --role worker`) on
 * PostgreSQL is killed with SIGKILL (1) before it sends, (2) after the receiver got the request
 * but before the attempt was recorded, (3) between two attempts; and (4) PostgreSQL itself is
 * restarted abruptly mid-delivery. After recovery every event must have reached its receiver at
 * least once, every duplicate with the same webhook-id, every request correctly signed.
 *
 * PostgreSQL only (PGlite is one process). The restart needs TEST_DATABASE_URL and the local
 * cluster (`pg_ctlcluster 15 main restart -m immediate`), and disturbs other suites running
 * against the same server at that moment.
 */
const BASE = process.env.TEST_DATABASE_URL;
const TIMEOUT_MS = 2_000; // lease = 6 s: how long a crashed worker's delivery waits
const SCHEDULE = '0,1s,1s,1s,1s';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let workers: WorkerProcess[] = [];
const logs = () =>
  workers
    .map((w, i) => `\n--- worker ${i} (exit ${w.proc.exitCode ?? w.proc.signalCode ?? 'running'}) ---\n${w.log().slice(-2000)}`)
    .join('');

/** Polls, tolerating a database that is restarting. */
async function eventually<T>(fn: () => Promise<T | undefined | false>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      lastError = e;
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}${logs()}`);
}

describe.skipIf(!BASE)('webhook delivery survives crashes [postgres]', { timeout: 120_000 }, () => {
  let url: string;
  let db: Db;
  let service: WebhooksService;
  let worker: () => WorkerProcess;
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ url, db, service, worker, workers, drop } = await webhookWorkerSchema(BASE!, 'f', {
      retrySchedule: SCHEDULE,
      timeoutMs: TIMEOUT_MS,
    }));
  });
  // A test that fails midway must not leave its worker polling this schema into the next test.
  afterEach(async () => {
    for (const w of workers) await w.kill();
  });
  afterAll(async () => {
    await drop?.();
  });

  /** A fresh account and endpoint whose receiver follows `respond`. */
  const setup = async (respond?: Respond) => {
    const accountId = crypto.randomUUID();
    await db.query(`insert into accounts (id, name, email, created_at, updated_at) values ($1, 'Faults', $2, now(), now())`, [
      accountId,
      `${accountId}@example.com`,
    ]);
    const r = await startWebhookReceiver(respond ? { respond } : {});
    const ep = await service.createEndpoint(accountId, { url: r.url });
    r.secret = ep.secret;
    return { accountId, r, endpointId: ep.id };
  };
  const emit = async (accountId: string, n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++)
      ids.push(
        (
          await db.transaction((tx) =>
            emitEvent(tx, {
              accountId,
              type: 'folio.low',
              data: { tenantId: accountId, tipoDte: 33, disponibles: i, lowThreshold: 10 },
              now: new Date(),
            }),
          )
        ).id,
      );
    return ids;
  };
  /** Every delivery of these messages (to every endpoint) succeeded. */
  const allSucceeded = (ids: string[]) =>
    eventually(async () => {
      const r = await db.query<{ done: number; total: number }>(
        `select count(*) filter (where status = 'succeeded')::int as done, count(*)::int as total
         from webhook_deliveries where message_id = any($1::uuid[])`,
        [ids],
      );
      return r.rows[0]!.total > 0 && r.rows[0]!.done === r.rows[0]!.total;
    }, `${ids.length} messages delivered to every endpoint`);
  const recordedAttempts = async (ids: string[]) =>
    (
      await db.query<{ message_id: string; n: number }>(
        `select message_id, count(*)::int as n from webhook_attempts where message_id = any($1::uuid[]) group by message_id`,
        [ids],
      )
    ).rows;
  /**
   * Per delivery, the recorded attempts are numbered 1, 2, … with no gap (a crash never uses up
   * an attempt), every one but the last failed and the last succeeded. Returns them per delivery.
   */
  const cleanAttempts = async (ids: string[]) => {
    const rows = (
      await db.query<{
        delivery_id: string;
        attempt_number: number;
        status: string;
        error: string | null;
        response_status_code: number | null;
      }>(
        `select delivery_id, attempt_number, status, error, response_status_code from webhook_attempts
         where message_id = any($1::uuid[]) order by delivery_id, attempt_number`,
        [ids],
      )
    ).rows;
    const byDelivery = new Map<string, typeof rows>();
    for (const a of rows) byDelivery.set(a.delivery_id, [...(byDelivery.get(a.delivery_id) ?? []), a]);
    for (const list of byDelivery.values()) {
      expect(list.map((a) => a.attempt_number)).toEqual(list.map((_, i) => i + 1));
      expect(list.map((a) => a.status)).toEqual(list.map((_, i) => (i === list.length - 1 ? 'succeeded' : 'failed')));
    }
    return [...byDelivery.values()];
  };
  const expectAtLeastOnce = (r: WebhookReceiver, ids: string[]) => {
    const got = r.ids();
    for (const id of ids) expect(got.has(id), `event ${id} delivered`).toBe(true);
    expect(
      r.deliveries.every((d) => d.verified),
      r.deliveries.find((d) => !d.verified)?.problem,
    ).toBe(true);
    // Every request carried one of our event ids: a duplicate is the same message again.
    expect([...got].every((id) => ids.includes(id))).toBe(true);
  };

  it('(1) killed after claiming, before sending: the delivery is sent after its lease runs out', async () => {
    // Three endpoints, so that one claim round leases all three deliveries (one per endpoint).
    const { accountId, r } = await setup();
    const more = await Promise.all(
      [1, 2].map(async () => {
        const x = await startWebhookReceiver();
        x.secret = (await service.createEndpoint(accountId, { url: x.url })).secret;
        return x;
      }),
    );
    const ids = await emit(accountId, 1);
    await dispatchOutbox(db, systemClock);
    // Pin the worker between its claim and its send: the claim only touches webhook_deliveries, the
    // read that follows needs webhook_messages, which this transaction locks.
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query('lock table webhook_messages in access exclusive mode');
      const w = worker();
      await eventually(
        async () => {
          const q = await db.query<{ n: number }>(
            `select count(*)::int as n from webhook_deliveries where message_id = any($1::uuid[]) and lease_id is not null`,
            [ids],
          );
          return q.rows[0]!.n === 3;
        },
        'the worker to claim the deliveries',
        30_000,
      );
      await w.kill();
    } finally {
      await blocker.query('rollback').catch(() => {});
      await blocker.end();
    }
    for (const x of [r, ...more]) expect(x.deliveries).toHaveLength(0);
    const t0 = Date.now();
    const w2 = worker();
    await allSucceeded(ids);
    expect(Date.now() - t0).toBeGreaterThan(1_000); // waited for the dead worker's lease
    for (const x of [r, ...more]) {
      expectAtLeastOnce(x, ids);
      await x.close();
    }
    // Attempt 1 of each of the three deliveries is the one sent after the crash (more only if a
    // loaded machine made one time out).
    expect((await cleanAttempts(ids)).length).toBe(3);
    await w2.stop();
  });

  it('(2) killed after the receiver got the request, before the attempt was recorded: redelivered with the same webhook-id', async () => {
    let hang = true;
    const { accountId, r } = await setup(() => (hang ? { hang: true } : { status: 200 }));
    const w = worker();
    const ids = await emit(accountId, 4);
    await r.waitFor((all) => new Set(all.map((d) => d.webhookId)).size === ids.length, 30_000);
    await w.kill();
    expect(await recordedAttempts(ids)).toEqual([]);
    hang = false;
    const w2 = worker();
    await allSucceeded(ids);
    expectAtLeastOnce(r, ids);
    // Once before the crash, then again from the next worker (the same webhook-id both times).
    for (const id of ids) expect(r.deliveries.filter((d) => d.webhookId === id).length, id).toBeGreaterThanOrEqual(2);
    // The crash did not use up an attempt: the first recorded attempt is number 1.
    const per = await cleanAttempts(ids);
    expect(per.length).toBe(ids.length);
    await w2.stop();
    await r.close();
  });

  it('(3) killed between attempts: the next worker makes the next attempt, same webhook-id', async () => {
    const { accountId, r } = await setup((d) => ({ status: d.seenCount === 1 ? 500 : 200 }));
    const w = worker();
    const ids = await emit(accountId, 4);
    await eventually(async () => (await recordedAttempts(ids)).length === ids.length, 'first attempts recorded');
    await w.kill();
    const pending = await db.query<{ n: number }>(
      `select count(*)::int as n from webhook_deliveries where message_id = any($1::uuid[]) and status = 'pending' and attempt_count = 1`,
      [ids],
    );
    expect(pending.rows[0]!.n).toBe(ids.length);
    const w2 = worker();
    await allSucceeded(ids);
    expectAtLeastOnce(r, ids);
    // Attempt 1 (the 500) was recorded before the crash; the new worker went on from attempt 2.
    const per = await cleanAttempts(ids);
    expect(per.length).toBe(ids.length);
    for (const list of per) {
      expect(list[0]).toMatchObject({ attempt_number: 1, status: 'failed', response_status_code: 500 });
      expect(list.length).toBeGreaterThanOrEqual(2);
    }
    await w2.stop();
    await r.close();
  });

  it('(4) PostgreSQL restarted abruptly mid-delivery: every event still arrives, duplicates share the webhook-id', async () => {
    const { accountId, r } = await setup(() => ({ status: 200, delayMs: 20 }));
    const more = await Promise.all(
      [1, 2, 3].map(async () => {
        const x = await startWebhookReceiver({ respond: () => ({ status: 200, delayMs: 20 }) });
        x.secret = (await service.createEndpoint(accountId, { url: x.url })).secret;
        return x;
      }),
    );
    const ids = await emit(accountId, 150);
    const w = worker();
    await r.waitFor((all) => all.length >= 20, 30_000);
    execFileSync('pg_ctlcluster', ['15', 'main', 'restart', '-m', 'immediate'], { stdio: 'ignore' });
    await allSucceeded(ids);
    for (const x of [r, ...more]) expectAtLeastOnce(x, ids);
    const total = [r, ...more].reduce((n, x) => n + x.deliveries.length, 0);
    expect(total).toBeGreaterThanOrEqual(ids.length * 4);
    expect(w.proc.exitCode, w.log()).toBeNull(); // the worker rode it out
    await w.stop();
    for (const x of [r, ...more]) await x.close();
  });
});
