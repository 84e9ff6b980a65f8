import crypto from 'node:crypto';
import type { Db } from '../../../db/types.ts';
import type { Clock } from '../../../lib/clock.ts';
import type { DataCipher } from '../../../secrets/data-cipher.ts';
import { deliveriesStore, type AttemptOutcome, type AttemptRecord, type ClaimedDelivery, type LoadedDelivery } from './deliveries.store.ts';
import { dispatchOutbox } from './dispatcher.ts';
import { endpointsStore } from '../endpoints.store.ts';
import { createHttpSender, type Sender, type SendResult } from './http-sender.ts';
import { nextDelayMs, parseRetryAfter } from './retry-schedule.ts';
import { decryptSecret } from '../secret-store.ts';
import { signatureHeaders } from '../signing.ts';
import { systemResolver, type Resolver } from './url-policy.ts';
import { subscribeWakeUps } from './wake.ts';

/**
 * The delivery worker: one loop per process that dispatches the outbox and sends due deliveries.
 *
 * At-least-once invariants (each holds across a crash at any point):
 * 1. An event committed to the outbox becomes a message + deliveries in one transaction
 *    (dispatcher.ts); until then it stays in the outbox and is picked up again.
 * 2. A delivery is sent only under a lease: claiming sets `locked_until` (longer than the whole
 *    attempt, which the sender bounds by the timeout, plus its recording) and a fresh `lease_id`,
 *    and commits before any network I/O. A worker that dies before or during the send, or before
 *    recording, leaves a lease that runs out; the delivery is then due again and is sent again
 *    with the same `webhook-id` (the message id). Duplicates are possible, losses are not.
 * 3. Outcomes are recorded in batches, one statement per batch (attempt rows, delivery states,
 *    endpoint health), each only if its lease is still ours, so an attempt is never counted twice.
 *    Disabling the endpoint (410, or failing for too long) follows in its own transaction; a crash
 *    between the two only postpones the disable to the endpoint's next failure.
 * 4. No transaction is open while a request is in flight.
 * 5. The attempt number is counted when the attempt is recorded: a crash does not use up one of
 *    the configured attempts, so a message gets exactly `retryScheduleMs.length` recorded
 *    attempts unless it succeeds first.
 * 6. Wake-ups (wake.ts) only make the worker look sooner: a round every `pollMs` (the backstop)
 *    finds whatever a lost wake-up left, and while the PostgreSQL listener is down the worker
 *    polls every `fastPollMs` instead.
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
  /** Backstop poll while wake-ups work (default 1 s). */
  pollMs?: number;
  /** Poll while they may be missed: the PostgreSQL listener is down (default min(pollMs, 100 ms)). */
  fastPollMs?: number;
  /** Wake on commits (default true); false leaves only the polls (tests of the backstop). */
  wakeUps?: boolean;
  /** Names this process's LISTEN connection (its application_name). */
  instanceName?: string;
  log?: { error: (obj: object, msg: string) => void; warn?: (obj: object, msg: string) => void };
  observer?: DeliveryObserver;
}

/**
 * The lease outlasts the attempt (bounded by the timeout) with room to record it, so a live worker
 * keeps it; it is also how long a crashed worker's delivery waits before another worker retries it.
 */
export const leaseMsFor = (timeoutMs: number) => Math.max(3 * timeoutMs, timeoutMs + 2_000);

/** Endpoint secrets kept decrypted per process (two per endpoint at most). */
const SECRET_CACHE_SIZE = 2_000;

/** Outbox rows turned into messages per dispatcher transaction. */
const DISPATCH_BATCH = 200;

export function createDeliveryWorker(deps: DeliveryWorkerDeps) {
  const { db, clock, cipher, settings } = deps;
  const ownSender = deps.sender
    ? undefined
    : createHttpSender({
        timeoutMs: settings.timeoutMs,
        allowPrivateNetworks: settings.allowPrivateNetworks,
        resolver: deps.resolver ?? systemResolver,
        maxSocketsPerOrigin: settings.concurrency,
      });
  const sender: Sender = deps.sender ?? ownSender!;
  const pollMs = deps.pollMs ?? 1_000;
  const fastPollMs = deps.fastPollMs ?? Math.min(pollMs, 100);
  const leaseMs = leaseMsFor(settings.timeoutMs);
  const claimBatch = Math.max(1, Math.floor(settings.concurrency / 4));
  const perEndpoint = new Map<string, number>();
  const active = new Set<Promise<void>>();
  let running = false;
  let loopDone: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let wakeSub: ReturnType<typeof subscribeWakeUps> | undefined;

  /** What each endpoint with attempts in flight has left under the per-endpoint limit. */
  const slots = () => new Map([...perEndpoint].map(([id, n]) => [id, Math.max(0, settings.endpointConcurrency - n)]));

  // Decrypted signing secrets, kept in this process's memory only, keyed by endpoint and slot and
  // valid only for the exact ciphertext they came from: a rotation or re-encryption changes the
  // stored bytes, so the next delivery decrypts afresh. Saves two AES-GCM decryptions per attempt.
  const secretCache = new Map<string, { blob: Buffer; secret: string }>();
  const secretFor = (d: LoadedDelivery, blob: Buffer, slot: 'current' | 'previous') => {
    const key = `${d.endpoint_id} ${slot}`;
    const hit = secretCache.get(key);
    if (hit && hit.blob.equals(blob)) return hit.secret;
    const secret = decryptSecret(cipher, d.account_id, d.endpoint_id, blob, slot);
    if (secretCache.size >= SECRET_CACHE_SIZE) secretCache.delete(secretCache.keys().next().value!);
    secretCache.set(key, { blob: Buffer.from(blob), secret });
    return secret;
  };
  const secretsOf = (d: LoadedDelivery, now: Date): string[] => {
    const out = [secretFor(d, d.secret_enc!, 'current')];
    if (d.previous_secret_enc && d.previous_secret_expires_at && d.previous_secret_expires_at > now)
      out.push(secretFor(d, d.previous_secret_enc, 'previous'));
    return out;
  };

  // Outcomes wait here and are written together: while one batch is being written the next one
  // fills, so a busy worker writes one statement per many attempts and an idle one at once.
  let pending: { rec: AttemptRecord; done: (o: AttemptOutcome | undefined) => void; fail: (e: unknown) => void }[] = [];
  let writing = false;
  const writeOutcomes = async () => {
    if (writing) return;
    writing = true;
    try {
      while (pending.length > 0) {
        // Let responses that have already arrived join this batch (on PGlite, whose statements run
        // on this thread, nothing else could arrive while the previous batch was being written).
        await new Promise<void>((r) => setImmediate(r));
        const batch = pending;
        pending = [];
        try {
          const out = new Map(
            (
              await deliveriesStore.recordAttempts(
                db,
                batch.map((b) => b.rec),
              )
            ).map((o) => [o.deliveryId, o]),
          );
          for (const b of batch) b.done(out.get(b.rec.deliveryId));
        } catch (e) {
          for (const b of batch) b.fail(e);
        }
      }
    } finally {
      writing = false;
    }
  };
  const recordAttempt = (rec: AttemptRecord) =>
    new Promise<AttemptOutcome | undefined>((done, fail) => {
      pending.push({ rec, done, fail });
      void writeOutcomes();
    });

  /** The earliest retry this worker scheduled itself, so a short retry delay is not held up by the backstop. */
  let nextRetryAt = Infinity;

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
    const rec = await recordAttempt({
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
    if (nextAttemptAt) nextRetryAt = Math.min(nextRetryAt, nextAttemptAt.getTime());
    deps.observer?.deliveryFinished(ok ? 'succeeded' : gone ? 'gone' : nextAttemptAt ? 'retrying' : 'failed');
    if (ok) return;
    const failingTooLong = rec.failingSince !== null && now.getTime() - rec.failingSince.getTime() >= settings.disableAfterMs;
    if (gone || failingTooLong) await db.transaction((tx) => endpointsStore.disable(tx, d.endpoint_id, gone ? 'gone' : 'failing', now));
  };

  /** `sent` frees the delivery's slot once its request is over; the outcome is recorded after. */
  const attempt = async (claimed: ClaimedDelivery, d: LoadedDelivery | undefined, sent: () => void) => {
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
    sent();
    await record(d, claimed.lease_id, res, now);
  };

  /** Set when something may have become due: a wake-up, a full claim, a slot freed at an endpoint's limit. */
  let maybeDue = true;

  // `sending` counts requests in flight (what the concurrency limits bound); `active` also holds
  // attempts whose outcome is still being written, so stop() and settle() wait for those too.
  let sending = 0;
  const launch = (claimed: ClaimedDelivery, d: LoadedDelivery | undefined) => {
    const ep = d?.endpoint_id ?? '';
    sending++;
    perEndpoint.set(ep, (perEndpoint.get(ep) ?? 0) + 1);
    let released = false;
    const sent = () => {
      if (released) return;
      released = true;
      sending--;
      const n = (perEndpoint.get(ep) ?? 1) - 1;
      // Deliveries of this endpoint may have been left behind by its limit: look again.
      if (n + 1 >= settings.endpointConcurrency) maybeDue = true;
      if (n <= 0) perEndpoint.delete(ep);
      else perEndpoint.set(ep, n);
      wakeUp();
    };
    const p: Promise<void> = attempt(claimed, d, sent)
      .catch((e: unknown) =>
        deps.log?.error(
          { deliveryId: claimed.id, err: String(e) },
          'webhook attempt could not be recorded; it will be retried after its lease',
        ),
      )
      .finally(() => {
        sent();
        active.delete(p);
      });
    active.add(p);
  };

  let lastDispatch = 0;
  let lastClaim = 0;
  let backlog = true;
  let outboxDirty = true;

  const pollEvery = () => (wakeSub && wakeSub.live ? pollMs : fastPollMs);

  /**
   * One round: dispatch the outbox (when woken, at every poll, or at once while it has a backlog),
   * then lease and start as many due deliveries as there are free slots.
   */
  const tick = async (): Promise<{ dispatched: number; started: number }> => {
    let dispatched = 0;
    const polled = Date.now() - lastDispatch >= pollEvery();
    if (backlog || outboxDirty || polled) {
      lastDispatch = Date.now();
      outboxDirty = false;
      const n = await dispatchOutbox(db, clock, { batch: DISPATCH_BATCH });
      backlog = n === DISPATCH_BATCH;
      dispatched = n;
      if (n > 0) maybeDue = true;
    }
    if (Date.now() >= nextRetryAt || Date.now() - lastClaim >= pollEvery()) {
      nextRetryAt = Infinity;
      maybeDue = true;
    }
    let started = 0;
    while (maybeDue) {
      const free = settings.concurrency - sending;
      // While busy, claim in batches: one statement per batch instead of per freed slot.
      if (free <= 0 || (sending > 0 && free < claimBatch)) break;
      maybeDue = false;
      lastClaim = Date.now();
      // One statement, so no transaction: the lease is committed before any request is sent.
      const claimed = await deliveriesStore.claim(db, {
        limit: free,
        slots: slots(),
        perEndpoint: settings.endpointConcurrency,
        now: clock.now(),
        leaseMs,
        leaseId: crypto.randomUUID(),
      });
      if (claimed.length > 0) {
        // Read after the leases are committed (the claim is its own statement), so nothing is
        // ever sent without a committed lease.
        const loaded = new Map(
          (
            await deliveriesStore.load(
              db,
              claimed.map((c) => c.id),
            )
          ).map((d) => [d.id, d]),
        );
        for (const c of claimed) launch(c, loaded.get(c.id));
      }
      started += claimed.length;
      // A full batch: more may be due.
      if (claimed.length === free) maybeDue = true;
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
  const onCommit = () => {
    outboxDirty = true;
    maybeDue = true;
    wakeUp();
  };

  const loop = async () => {
    while (running) {
      woken = false;
      try {
        await tick();
      } catch (e) {
        // The database may be restarting: keep going; leases make every step safe to repeat.
        backlog = false;
        maybeDue = true;
        deps.log?.error({ err: String(e) }, 'webhook delivery round failed; retrying');
      }
      if (!running) break;
      if (woken || backlog) continue;
      const sleepMs = Math.max(0, Math.min(pollEvery(), nextRetryAt - Date.now()));
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, sleepMs);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      wake = undefined;
    }
  };

  return {
    /** One full round now, whatever the wake-ups said (tests and tools). */
    tick() {
      outboxDirty = true;
      maybeDue = true;
      return tick();
    },
    start() {
      if (running) return;
      running = true;
      if (deps.wakeUps !== false) wakeSub ??= subscribeWakeUps(db, deps.instanceName ?? `dte-webhooks:${process.pid}`, onCommit);
      loopDone = loop();
    },
    /** Stops claiming, then waits for attempts in flight (each bounded by the timeout) and their records. */
    async stop() {
      running = false;
      wakeSub?.close();
      wakeSub = undefined;
      wakeUp();
      await loopDone;
      await Promise.allSettled([...active]);
      ownSender?.close();
    },
    /** Waits until attempts started so far have finished and are recorded (tests). */
    async settle() {
      while (active.size > 0) await Promise.allSettled([...active]);
    },
    get inFlight() {
      return active.size;
    },
    /** True while commits wake this worker (PostgreSQL: its LISTEN connection is up). */
    get listening() {
      return wakeSub?.live ?? false;
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
