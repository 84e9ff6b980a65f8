import crypto from 'node:crypto';
import type { Db } from '../../../db/types.ts';
import type { Clock } from '../../../lib/clock.ts';
import type { DataCipher } from '../../../secrets/data-cipher.ts';
import { deliveriesStore, type ClaimedDelivery, type LoadedDelivery } from './deliveries.store.ts';
import { dispatchOutbox } from './dispatcher.ts';
import { endpointsStore } from '../endpoints.store.ts';
import { createHttpSender, type Sender, type SendResult } from './http-sender.ts';
import { nextDelayMs, parseRetryAfter } from './retry-schedule.ts';
import { decryptSecret } from '../secret-store.ts';
import { signatureHeaders } from '../signing.ts';
import { systemResolver, type Resolver } from './url-policy.ts';

/**
 * The delivery worker: one loop per process that dispatches the outbox and sends due deliveries.
 *
 * At-least-once invariants (each holds across a crash at any point):
 * 1. An event committed to the outbox becomes a message + deliveries in one transaction
 *    (dispatcher.ts); until then it stays in the outbox and is picked up again.
 * 2. A delivery is sent only under a lease: claiming sets `locked_until` (longer than the whole
 *    attempt, which the sender bounds by the timeout) and a fresh `lease_id`, and commits before
 *    any network I/O. A worker that dies before or during the send, or before recording, leaves a
 *    lease that runs out; the delivery is then due again and is sent again with the same
 *    `webhook-id` (the message id). Duplicates are possible, losses are not.
 * 3. The outcome is recorded in one statement (attempt row, delivery state, endpoint health)
 *    and only if the lease is still ours, so an attempt is never counted twice. Disabling the
 *    endpoint (410, or failing for too long) follows in its own transaction; a crash between the
 *    two only postpones the disable to the endpoint's next failure.
 * 4. No transaction is open while a request is in flight.
 * 5. The attempt number is counted when the attempt is recorded: a crash does not use up one of
 *    the configured attempts, so a message gets exactly `retryScheduleMs.length` recorded
 *    attempts unless it succeeds first.
 */
export interface DeliverySettings {
  retryScheduleMs: readonly number[];
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  /** An endpoint whose attempts have all failed for this long is disabled. */
  disableAfterMs: number;
  concurrency: number;
  /** Most attempts in flight to one endpoint from one process. */
  endpointConcurrency: number;
}

/**
 * Told how each attempt ended, once it is recorded (the metrics, src/ops/metrics.ts): `retrying`
 * failed with attempts left, `failed` had none left, `gone` was a 410 (the endpoint is disabled),
 * `abandoned` was never sent (the endpoint was deleted or disabled).
 */
export interface DeliveryObserver {
  deliveryFinished(outcome: 'succeeded' | 'retrying' | 'failed' | 'gone' | 'abandoned'): void;
}

export interface DeliveryWorkerDeps {
  db: Db;
  clock: Clock;
  cipher: DataCipher;
  settings: DeliverySettings;
  sender?: Sender;
  resolver?: Resolver;
  random?: () => number;
  pollMs?: number;
  log?: { error: (obj: object, msg: string) => void; warn?: (obj: object, msg: string) => void };
  observer?: DeliveryObserver;
}

/**
 * The lease outlasts the attempt (bounded by the timeout) with room to record it, so a live worker
 * keeps it; it is also how long a crashed worker's delivery waits before another worker retries it.
 */
export const leaseMsFor = (timeoutMs: number) => Math.max(3 * timeoutMs, timeoutMs + 2_000);

/** Outbox rows turned into messages per dispatcher transaction. */
const DISPATCH_BATCH = 200;

export function createDeliveryWorker(deps: DeliveryWorkerDeps) {
  const { db, clock, cipher, settings } = deps;
  const sender =
    deps.sender ??
    createHttpSender({
      timeoutMs: settings.timeoutMs,
      allowPrivateNetworks: settings.allowPrivateNetworks,
      resolver: deps.resolver ?? systemResolver,
    });
  const pollMs = deps.pollMs ?? 100;
  const leaseMs = leaseMsFor(settings.timeoutMs);
  const claimBatch = Math.max(1, Math.floor(settings.concurrency / 4));
  const perEndpoint = new Map<string, number>();
  const active = new Set<Promise<void>>();
  let running = false;
  let loopDone: Promise<void> | undefined;
  let wake: (() => void) | undefined;

  const busyEndpoints = () => [...perEndpoint].filter(([, n]) => n >= settings.endpointConcurrency).map(([id]) => id);

  const secretsOf = (d: LoadedDelivery, now: Date): string[] => {
    const out = [decryptSecret(cipher, d.account_id, d.endpoint_id, d.secret_enc!)];
    if (d.previous_secret_enc && d.previous_secret_expires_at && d.previous_secret_expires_at > now)
      out.push(decryptSecret(cipher, d.account_id, d.endpoint_id, d.previous_secret_enc, 'previous'));
    return out;
  };

  const record = async (d: LoadedDelivery, leaseId: string, res: SendResult, attemptedAt: Date) => {
    const now = clock.now();
    const ok = res.statusCode !== null && res.statusCode >= 200 && res.statusCode < 300;
    const gone = res.statusCode === 410;
    const attemptsMade = d.attempt_count + 1;
    const delay =
      ok || gone
        ? null
        : nextDelayMs(settings.retryScheduleMs, attemptsMade, { retryAfterMs: parseRetryAfter(res.retryAfter, now), random: deps.random });
    const nextAttemptAt = delay === null ? null : new Date(now.getTime() + delay);
    const rec = await deliveriesStore.recordAttempt(db, {
      deliveryId: d.id,
      leaseId,
      status: ok ? 'succeeded' : 'failed',
      deliveryStatus: ok ? 'succeeded' : nextAttemptAt ? 'pending' : 'failed',
      nextAttemptAt,
      responseStatusCode: res.statusCode,
      responseBody: res.responseBody,
      error: res.error ?? (ok ? null : `http_status: ${res.statusCode}`),
      durationMs: res.durationMs,
      attemptedAt,
      now,
    });
    if (!rec) return; // lease lost: the worker that took over records its own attempt
    deps.observer?.deliveryFinished(ok ? 'succeeded' : gone ? 'gone' : nextAttemptAt ? 'retrying' : 'failed');
    if (ok) return;
    const failingTooLong = rec.failingSince !== null && now.getTime() - rec.failingSince.getTime() >= settings.disableAfterMs;
    if (gone || failingTooLong) await db.transaction((tx) => endpointsStore.disable(tx, d.endpoint_id, gone ? 'gone' : 'failing', now));
  };

  const attempt = async (claimed: ClaimedDelivery, d: LoadedDelivery | undefined) => {
    if (!d) return;
    const now = clock.now();
    if (d.url === null) {
      await deliveriesStore.abandon(db, d.id, claimed.lease_id, 'cancelled', 'endpoint_deleted', now);
      deps.observer?.deliveryFinished('abandoned');
      return;
    }
    if (d.disabled) {
      await deliveriesStore.abandon(db, d.id, claimed.lease_id, 'failed', 'endpoint_disabled', now);
      deps.observer?.deliveryFinished('abandoned');
      return;
    }
    const ts = Math.floor(now.getTime() / 1000);
    const headers = signatureHeaders(d.signature_scheme!, secretsOf(d, now), d.message_id, ts, d.payload);
    const res = await sender({ url: d.url, headers, body: d.payload });
    await record(d, claimed.lease_id, res, now);
  };

  const launch = (claimed: ClaimedDelivery, d: LoadedDelivery | undefined) => {
    const ep = d?.endpoint_id ?? '';
    perEndpoint.set(ep, (perEndpoint.get(ep) ?? 0) + 1);
    const p: Promise<void> = attempt(claimed, d)
      .catch((e: unknown) =>
        deps.log?.error(
          { deliveryId: claimed.id, err: String(e) },
          'webhook attempt could not be recorded; it will be retried after its lease',
        ),
      )
      .finally(() => {
        const n = (perEndpoint.get(ep) ?? 1) - 1;
        if (n <= 0) perEndpoint.delete(ep);
        else perEndpoint.set(ep, n);
        active.delete(p);
        wakeUp();
      });
    active.add(p);
  };

  let lastDispatch = 0;
  let backlog = true;

  /**
   * One round: dispatch the outbox (every pollMs, or at once while it has a backlog), then lease
   * and start as many due deliveries as there are free slots.
   */
  const tick = async (): Promise<{ dispatched: number; started: number }> => {
    let dispatched = 0;
    if (backlog || Date.now() - lastDispatch >= pollMs) {
      lastDispatch = Date.now();
      const n = await dispatchOutbox(db, clock, { batch: DISPATCH_BATCH });
      backlog = n === DISPATCH_BATCH;
      dispatched = n;
    }
    let started = 0;
    for (;;) {
      const free = settings.concurrency - active.size;
      // While busy, claim in batches: a claim and a load per batch instead of per freed slot.
      if (free <= 0 || (active.size > 0 && free < claimBatch)) break;
      // One statement, so no transaction: the lease is committed before any request is sent.
      const claimed = await deliveriesStore.claim(db, {
        limit: free,
        busy: busyEndpoints(),
        now: clock.now(),
        leaseMs,
        leaseId: crypto.randomUUID(),
      });
      if (claimed.length === 0) break;
      const loaded = new Map(
        (
          await deliveriesStore.load(
            db,
            claimed.map((c) => c.id),
          )
        ).map((d) => [d.id, d]),
      );
      for (const c of claimed) launch(c, loaded.get(c.id));
      started += claimed.length;
    }
    return { dispatched, started };
  };

  // A finished attempt or new work sets `woken`; the loop then runs again at once instead of
  // sleeping, so a wake-up that arrives while a round is running is not lost.
  let woken = false;
  const wakeUp = () => {
    woken = true;
    wake?.();
  };

  const loop = async () => {
    while (running) {
      woken = false;
      try {
        await tick();
      } catch (e) {
        // The database may be restarting: keep going; leases make every step safe to repeat.
        backlog = false;
        deps.log?.error({ err: String(e) }, 'webhook delivery round failed; retrying');
      }
      if (!running) break;
      if (woken || backlog) continue;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      wake = undefined;
    }
  };

  return {
    tick,
    start() {
      if (running) return;
      running = true;
      loopDone = loop();
    },
    /** Stops claiming, then waits for attempts in flight (each bounded by the timeout). */
    async stop() {
      running = false;
      wakeUp();
      await loopDone;
      await Promise.allSettled([...active]);
    },
    /** Waits until attempts started so far have finished (tests). */
    async settle() {
      while (active.size > 0) await Promise.allSettled([...active]);
    },
    get inFlight() {
      return active.size;
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
