import crypto from 'node:crypto';
import { EventEmitter } from 'node:events';
import os from 'node:os';
import type { Db, Sql } from '../db/types.ts';

/**
 * A durable job queue in the database (table `jobs`), claimed with FOR UPDATE SKIP LOCKED so any
 * number of worker processes can share one PostgreSQL; on PGlite the same SQL runs in-process.
 *
 * Invariants:
 * - enqueue takes the caller's transaction: a job exists iff the change that asked for it
 *   committed (folio requests, uploads, polls survive restarts).
 * - a claimed job holds a lease (locked_until) under a token unique to that claim (locked_by). A
 *   heartbeat renews the leases of the running jobs every third of the lease, so the lease is
 *   short (JOB_LEASE_MS, 15 s): if the worker's process dies, its jobs are claimed again within
 *   one lease of its last heartbeat (docs/operations.md "When a worker dies"). Handlers must be
 *   idempotent: the job runs again, from the start.
 * - a claim that lost its lease (its heartbeat could not renew it in time and another worker
 *   claimed the job) never records anything: the renewal, the finish and the handler's own commit
 *   (`job.fence(tx)`, which locks the job row and checks the token) all name the token, so only
 *   the current claim can commit; the old one is told through `job.signal` and stops.
 * - a handler can ask to run again later ({ rescheduleInMs }) without it counting as a failure
 *   (status polling); a throw is a failure, retried with backoff up to max_attempts.
 */
export interface JobRow {
  id: number;
  queue: string;
  payload: Record<string, unknown>;
  attempts: number;
  max_attempts: number;
}

export type JobResult = void | { rescheduleInMs: number };

/** The lease a handler runs under (see the invariants above). */
export interface JobLease {
  /** Aborted (with a LeaseLostError) once the lease is lost or may have run out: stop before the next side effect. */
  signal: AbortSignal;
  /**
   * First thing in the transaction that records the job's outcome: locks the job row and throws
   * LeaseLostError unless this claim still holds it, so a worker that lost its lease never commits
   * (and while the row is locked nobody can claim it).
   */
  fence(tx: Sql): Promise<void>;
}

export type JobContext = JobRow & JobLease;
export type JobHandler = (payload: Record<string, unknown>, job: JobContext) => Promise<JobResult>;

/** Thrown by `fence` (and the reason of `signal`) when another worker may have claimed the job. */
export class LeaseLostError extends Error {
  constructor(jobId: number | string, why: string) {
    super(`job ${jobId}: ${why}; this run records nothing`);
    this.name = 'LeaseLostError';
  }
}

/**
 * Runs `write` in a transaction fenced by the job's lease (its first statement is `fence`), or
 * straight on `db` when called outside a job (tests, CLI). Handlers use it for what they record.
 */
export function fenced<T>(db: Db, fence: JobLease['fence'] | undefined, write: (sql: Sql) => Promise<T>): Promise<T> {
  if (!fence) return write(db);
  return db.transaction(async (tx) => {
    await fence(tx);
    return write(tx);
  });
}

/** The part of a job's context its handler's service needs; absent when a test calls it directly. */
export type JobRun = Pick<JobRow, 'attempts' | 'max_attempts'> & Partial<JobLease>;

/**
 * How long a claimed job is reserved for its worker without a heartbeat: what a killed worker's
 * jobs wait before another worker takes them. Renewed every third of it while the job runs.
 */
export const JOB_LEASE_MS = 15_000;

export interface EnqueueOptions {
  runAt?: Date;
  delayMs?: number;
  /** Only one pending/running job with this key at a time; a second enqueue is a no-op. */
  singletonKey?: string;
  maxAttempts?: number;
}

const wake = new EventEmitter();
wake.setMaxListeners(100);

export async function enqueue(tx: Sql, queue: string, payload: Record<string, unknown>, opts: EnqueueOptions = {}): Promise<void> {
  await tx.query(
    `insert into jobs (queue, payload, run_at, max_attempts, singleton_key)
     values ($1, $2, coalesce($3::timestamptz, clock_timestamp() + ($4::int * interval '1 millisecond')), $5, $6)
     on conflict do nothing`,
    [queue, JSON.stringify(payload), opts.runAt ?? null, opts.delayMs ?? 0, opts.maxAttempts ?? 10, opts.singletonKey ?? null],
  );
  // In-process workers wake at once; other processes find the job at their next poll.
  setImmediate(() => wake.emit('job', queue));
}

export const backoffMs = (attempt: number): number => Math.min(300_000, 1000 * 2 ** Math.max(0, attempt - 1));

export interface WorkerOptions {
  db: Db;
  handlers: Record<string, JobHandler>;
  concurrency?: number;
  pollMs?: number;
  /** JOB_LEASE_MS unless given. */
  leaseMs?: number;
  /** A third of the lease unless given. */
  heartbeatMs?: number;
  log?: { error: (obj: object, msg: string) => void; warn?: (obj: object, msg: string) => void };
}

type Claimed = JobRow & { locked_by: string };

export function createWorker(opts: WorkerOptions) {
  const { db, handlers } = opts;
  const queues = Object.keys(handlers);
  const concurrency = opts.concurrency ?? 4;
  const pollMs = opts.pollMs ?? 500;
  const leaseMs = opts.leaseMs ?? JOB_LEASE_MS;
  const heartbeatMs = opts.heartbeatMs ?? Math.max(10, Math.floor(leaseMs / 3));
  const owner = `${os.hostname()}:${process.pid}`;
  let running = false;
  let inFlight = 0;
  let timer: NodeJS.Timeout | undefined;
  let loopPromise: Promise<void> | undefined;
  let kick: (() => void) | undefined;
  const active = new Set<Promise<void>>();
  /** The claims whose handler is running, by token: what the heartbeat renews. */
  const held = new Map<string, { job: Claimed; abort: AbortController; renewedAt: number }>();
  let heartbeatTimer: NodeJS.Timeout | undefined;
  let beating = false;

  const claim = async (n: number): Promise<Claimed[]> => {
    // The token names this claim (one per claim and job); jobs this worker still runs are never
    // claimed by it again, even if their lease ran out meanwhile.
    const r = await db.query<Claimed>(
      `update jobs set status = 'running', attempts = attempts + 1, locked_until = clock_timestamp() + ($3::int * interval '1 millisecond'),
         locked_by = $4 || ':' || id, updated_at = clock_timestamp(), last_error = coalesce(last_error, '') || ''
       where id in (
         select id from jobs
         where queue = any($1::text[]) and ((status = 'pending' and run_at <= clock_timestamp()) or (status = 'running' and locked_until < clock_timestamp()))
           and not (id = any($5::bigint[]))
         order by run_at limit $2 for update skip locked)
       returning id, queue, payload, attempts, max_attempts, locked_by`,
      [queues, n, leaseMs, `${owner}:${crypto.randomUUID()}`, [...held.values()].map((h) => h.job.id)],
    );
    return r.rows;
  };

  const lose = (token: string, why: string) => {
    const h = held.get(token);
    if (!h || h.abort.signal.aborted) return;
    h.abort.abort(new LeaseLostError(h.job.id, why));
    opts.log?.warn?.({ jobId: h.job.id, queue: h.job.queue, attempt: h.job.attempts }, `job lease lost: ${why}`);
  };

  /** Renews the lease of every running claim in one statement; a claim it cannot renew is lost. */
  const heartbeat = async () => {
    if (beating || held.size === 0) return;
    beating = true;
    const tokens = [...held.keys()];
    const sentAt = Date.now();
    try {
      const r = await db.query<{ locked_by: string }>(
        `update jobs set locked_until = clock_timestamp() + ($2::int * interval '1 millisecond')
         where status = 'running' and locked_by = any($1::text[]) returning locked_by`,
        [tokens, leaseMs],
      );
      const renewed = new Set(r.rows.map((row) => row.locked_by));
      for (const token of tokens) {
        const h = held.get(token);
        if (!h) continue; // finished meanwhile
        if (renewed.has(token)) h.renewedAt = sentAt;
        else lose(token, 'another worker claimed it after its lease ran out');
      }
    } catch (e) {
      opts.log?.error({ err: String(e) }, 'job heartbeat failed; retrying');
      // Not renewed for a whole lease: another worker may claim these jobs now.
      for (const [token, h] of held) if (Date.now() - h.renewedAt >= leaseMs) lose(token, 'its lease could not be renewed in time');
    } finally {
      beating = false;
    }
  };

  const fenceOf =
    (job: Claimed) =>
    async (tx: Sql): Promise<void> => {
      const r = await tx.query(`select 1 from jobs where id = $1 and locked_by = $2 and status = 'running' for update`, [
        job.id,
        job.locked_by,
      ]);
      if (r.rows.length === 0) {
        lose(job.locked_by, 'another worker claimed it after its lease ran out');
        throw new LeaseLostError(job.id, 'another worker claimed it after its lease ran out');
      }
    };

  /** Records the outcome, only while this claim holds the job (the token in every WHERE). */
  const finish = async (job: Claimed, result: JobResult, error?: unknown) => {
    let r: { rowCount: number };
    if (error === undefined && !result) {
      r = await db.query(`delete from jobs where id = $1 and locked_by = $2 and status = 'running'`, [job.id, job.locked_by]);
    } else if (error === undefined && result) {
      r = await db.query(
        `update jobs set status = 'pending', attempts = attempts - 1, locked_until = null, locked_by = null, updated_at = clock_timestamp(),
           run_at = clock_timestamp() + ($2::int * interval '1 millisecond') where id = $1 and locked_by = $3 and status = 'running'`,
        [job.id, Math.max(0, Math.round(result.rescheduleInMs)), job.locked_by],
      );
    } else {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      const failed = job.attempts >= job.max_attempts;
      r = await db.query(
        `update jobs set status = $2, locked_until = null, locked_by = null, last_error = $3, updated_at = clock_timestamp(),
           run_at = clock_timestamp() + ($4::int * interval '1 millisecond') where id = $1 and locked_by = $5 and status = 'running'`,
        [job.id, failed ? 'failed' : 'pending', message.slice(0, 2000), backoffMs(job.attempts), job.locked_by],
      );
      if (r.rowCount > 0 && !(error instanceof LeaseLostError))
        opts.log?.error({ jobId: job.id, queue: job.queue, attempt: job.attempts, failed, err: message }, 'job failed');
    }
    if (r.rowCount === 0)
      opts.log?.warn?.(
        { jobId: job.id, queue: job.queue, attempt: job.attempts },
        'job lease lost: its outcome is left to the claim that holds it',
      );
  };

  const run = (job: Claimed) => {
    const handler = handlers[job.queue]!;
    inFlight++;
    const abort = new AbortController();
    held.set(job.locked_by, { job, abort, renewedAt: Date.now() });
    if (!heartbeatTimer) {
      heartbeatTimer = setInterval(() => void heartbeat(), heartbeatMs);
      heartbeatTimer.unref();
    }
    const context: JobContext = {
      id: job.id,
      queue: job.queue,
      payload: job.payload,
      attempts: job.attempts,
      max_attempts: job.max_attempts,
      signal: abort.signal,
      fence: fenceOf(job),
    };
    const done = () => {
      held.delete(job.locked_by);
      if (held.size === 0 && heartbeatTimer) {
        clearInterval(heartbeatTimer);
        heartbeatTimer = undefined;
      }
    };
    const self: { p?: Promise<void> } = {};
    const p = (self.p = (async () => {
      await Promise.resolve(); // let self.p be assigned before the body below reads it
      try {
        const result = await handler(job.payload, context);
        done();
        await finish(job, result);
      } catch (e) {
        done();
        await finish(job, undefined, e ?? new Error('job failed')).catch((e2: unknown) =>
          opts.log?.error({ jobId: job.id, err: String(e2) }, 'could not record job failure'),
        );
      } finally {
        inFlight--;
        active.delete(self.p!);
        kick?.();
      }
    })());
    active.add(p);
  };

  const loop = async () => {
    while (running) {
      const free = concurrency - inFlight;
      let got = 0;
      if (free > 0) {
        try {
          const jobs = await claim(free);
          got = jobs.length;
          for (const job of jobs) run(job);
        } catch (e) {
          opts.log?.error({ err: String(e) }, 'job claim failed; retrying');
        }
      }
      if (got > 0 && got === free) continue;
      await new Promise<void>((resolve) => {
        kick = resolve;
        timer = setTimeout(resolve, pollMs);
      });
      kick = undefined;
      if (timer) clearTimeout(timer);
    }
  };

  const onWake = (queue: string) => {
    if (queues.includes(queue)) kick?.();
  };

  return {
    owner,
    start() {
      if (running) return;
      running = true;
      wake.on('job', onWake);
      loopPromise = loop();
    },
    async stop() {
      running = false;
      wake.off('job', onWake);
      kick?.();
      await loopPromise;
      await Promise.allSettled([...active]);
    },
    /** Runs until no job of these queues is ready (tests and the CLI use it). */
    async drain(maxMs = 30_000) {
      const deadline = Date.now() + maxMs;
      while (Date.now() < deadline) {
        const jobs = await claim(concurrency);
        if (jobs.length === 0 && active.size === 0) return;
        for (const job of jobs) run(job);
        await Promise.allSettled([...active]);
      }
    },
  };
}

export type Worker = ReturnType<typeof createWorker>;

/**
 * Depth (pending or running) and the age of the oldest due, unclaimed job, per queue: one
 * statement over the partial index of live jobs, for the metrics scrape (src/ops/metrics.ts).
 */
export async function queueStats(sql: Sql): Promise<{ queue: string; depth: number; oldestReadySeconds: number }[]> {
  const r = await sql.query<{ queue: string; depth: number; oldest: number | null }>(
    `select queue, count(*)::float8 as depth,
       extract(epoch from clock_timestamp() - min(run_at) filter (where status = 'pending' and run_at <= clock_timestamp()))::float8 as oldest
     from jobs where status in ('pending', 'running') group by queue`,
  );
  return r.rows.map((row) => ({ queue: row.queue, depth: Number(row.depth), oldestReadySeconds: Math.max(0, Number(row.oldest ?? 0)) }));
}
