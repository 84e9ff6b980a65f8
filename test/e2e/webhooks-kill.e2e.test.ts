import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/types.ts';
import { emitEvent } from '../../src/events/outbox.ts';
import type { WebhooksService } from '../../src/modules/webhooks/index.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { webhookWorkerSchema, type WorkerProcess } from '../support/worker-process.ts';

/**
 * kill -9 during a burst, across processes (docs/webhooks.md "How delivery works"): two real
 * worker processes (`node src/main.ts --role worker`) on one PostgreSQL, woken by the NOTIFY of
 * each committing event, deliver a burst of events to three receivers; one worker is killed with
 * SIGKILL while the burst is still arriving and its deliveries are in flight, and later a
 * replacement starts. Every event must reach every receiver at least once, every request signed
 * correctly, a repeat only ever with the same webhook-id, and every delivery end `succeeded`.
 *
 * PostgreSQL only (PGlite is one process); the server is not restarted, so this runs in `main`.
 */
const BASE = process.env.TEST_DATABASE_URL;
const SKIP = !BASE;
if (SKIP) console.warn('webhook kill -9 across processes: SKIPPED — set TEST_DATABASE_URL to run it against PostgreSQL');

const EVENTS = 150;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(SKIP)('webhook delivery across processes: kill -9 of a worker during a burst', { timeout: 180_000 }, () => {
  let db: Db;
  let service: WebhooksService;
  let worker: () => WorkerProcess;
  let workers: WorkerProcess[] = [];
  let drop: (() => Promise<void>) | undefined;
  const logs = () => workers.map((w, i) => `\n--- worker ${i} ---\n${w.log().slice(-1500)}`).join('');

  beforeAll(async () => {
    // Lease = 6 s: how long the killed worker's deliveries wait before another worker takes them.
    ({ db, service, worker, workers, drop } = await webhookWorkerSchema(BASE!, 'k', { retrySchedule: '0,1s,1s,1s,1s', timeoutMs: 2000 }));
  });
  afterAll(async () => {
    await drop?.();
  });

  it('loses no event: every one reaches every receiver, signed, after one of two workers is killed mid-burst', async () => {
    const accountId = crypto.randomUUID();
    await db.query(`insert into accounts (id, name, email, created_at, updated_at) values ($1, 'Kill', $2, now(), now())`, [
      accountId,
      `${accountId}@example.com`,
    ]);
    // Slow enough answers that the killed worker always has requests in flight.
    const receivers: WebhookReceiver[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await startWebhookReceiver({ respond: () => ({ status: 200, delayMs: 20 }) });
      r.secret = (await service.createEndpoint(accountId, { url: r.url })).secret;
      receivers.push(r);
    }
    const doomed = worker();
    const survivor = worker();
    // Both listening (their LISTEN connections are named dte-webhooks:<pid>) before the burst.
    const listening = async () =>
      (
        await db.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where application_name = any($1::text[])`, [
          [doomed, survivor].map((w) => `dte-webhooks:${w.pid}`),
        ])
      ).rows[0]!.n;
    for (let t = Date.now(); (await listening()) < 2; await sleep(100))
      if (Date.now() - t > 60_000) throw new Error(`workers not listening${logs()}`);

    const ids: string[] = [];
    let killedAt = -1;
    for (let i = 0; i < EVENTS; i++) {
      const e = await db.transaction((tx) =>
        emitEvent(tx, {
          accountId,
          type: 'folio.low',
          data: { tenantId: accountId, tipoDte: 33, disponibles: i, lowThreshold: 10 },
          now: new Date(),
        }),
      );
      ids.push(e.id);
      // Mid-burst, once deliveries are flowing: kill -9 one worker with its attempts in flight.
      if (killedAt < 0 && receivers[0]!.deliveries.length >= 20) {
        await doomed.kill();
        killedAt = i;
      }
      if (i % 10 === 0) await sleep(10);
    }
    expect(killedAt, 'the worker was killed during the burst').toBeGreaterThan(0);
    expect(killedAt).toBeLessThan(EVENTS - 1);
    // A replacement, as a supervisor would start it.
    const replacement = worker();

    const done = async () =>
      (
        await db.query<{ done: number; total: number }>(
          `select count(*) filter (where status = 'succeeded')::int as done, count(*)::int as total
           from webhook_deliveries where message_id = any($1::uuid[])`,
          [ids],
        )
      ).rows[0]!;
    for (let t = Date.now(); ; await sleep(200)) {
      const d = await done();
      if (d.total === EVENTS * receivers.length && d.done === d.total) break;
      if (Date.now() - t > 90_000) throw new Error(`not all delivered: ${JSON.stringify(d)}${logs()}`);
    }
    // Nothing left behind in the outbox either.
    expect((await db.query(`select 1 from outbox_events where dispatched_at is null`)).rows).toHaveLength(0);

    for (const r of receivers) {
      const got = r.ids();
      const missing = ids.filter((id) => !got.has(id));
      expect(missing, 'events never received').toEqual([]);
      expect([...got].every((id) => ids.includes(id))).toBe(true);
      const bad = r.deliveries.find((d) => !d.verified);
      expect(bad?.problem, 'a request whose signature did not verify').toBeUndefined();
    }
    // The kill cost only repeats (same webhook-id), never an attempt: each delivery's recorded
    // attempts are numbered from 1 without a gap and end with the success.
    const attempts = (
      await db.query<{ delivery_id: string; attempt_number: number; status: string }>(
        `select delivery_id, attempt_number, status from webhook_attempts where message_id = any($1::uuid[]) order by delivery_id, attempt_number`,
        [ids],
      )
    ).rows;
    const per = new Map<string, typeof attempts>();
    for (const a of attempts) per.set(a.delivery_id, [...(per.get(a.delivery_id) ?? []), a]);
    expect(per.size).toBe(EVENTS * receivers.length);
    for (const list of per.values()) {
      expect(list.map((a) => a.attempt_number)).toEqual(list.map((_, i) => i + 1));
      expect(list.at(-1)!.status).toBe('succeeded');
    }
    await Promise.all([survivor.stop(), replacement.stop()]);
    for (const r of receivers) await r.close();
  });
});
