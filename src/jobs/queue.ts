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
 * - a claimed job holds a lease (locked_until); if its process dies, the job is claimed again
 *   after the lease, so handlers must be idempotent.
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
export type JobHandler = (payload: Record<string, unknown>, job: JobRow) => Promise<JobResult>;

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
  leaseMs?: number;
  log?: { error: (obj: object, msg: string) => void; warn?: (obj: object, msg: string) => void };
}

export function createWorker(opts: WorkerOptions) {
  const { db, handlers } = opts;
  const queues = Object.keys(handlers);
  const concurrency = opts.concurrency ?? 4;
  const pollMs = opts.pollMs ?? 500;
  const leaseMs = opts.leaseMs ?? 120_000;
  const owner = `${os.hostname()}:${process.pid}`;
  let running = false;
  let inFlight = 0;
  let timer: NodeJS.Timeout | undefined;
  let loopPromise: Promise<void> | undefined;
  let kick: (() => void) | undefined;
  const active = new Set<Promise<void>>();

  const claim = async (n: number): Promise<JobRow[]> => {
    const r = await db.query<JobRow>(
      `update jobs set status = 'running', attempts = attempts + 1, locked_until = clock_timestamp() + ($3::int * interval '1 millisecond'),
         updated_at = clock_timestamp(), last_error = coalesce(last_error, '') || ''
       where id in (
         select id from jobs
         where queue = any($1::text[]) and ((status = 'pending' and run_at <= clock_timestamp()) or (status = 'running' and locked_until < clock_timestamp()))
         order by run_at limit $2 for update skip locked)
       returning id, queue, payload, attempts, max_attempts`,
      [queues, n, leaseMs],
    );
    return r.rows;
  };

  const finish = async (job: JobRow, result: JobResult, error?: unknown) => {
    if (error === undefined && !result) {
      await db.query('delete from jobs where id = $1', [job.id]);
    } else if (error === undefined && result) {
      await db.query(
        `update jobs set status = 'pending', attempts = attempts - 1, locked_until = null, updated_at = clock_timestamp(),
           run_at = clock_timestamp() + ($2::int * interval '1 millisecond') where id = $1`,
        [job.id, Math.max(0, Math.round(result.rescheduleInMs))],
      );
    } else {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      const failed = job.attempts >= job.max_attempts;
      await db.query(
        `update jobs set status = $2, locked_until = null, last_error = $3, updated_at = clock_timestamp(),
           run_at = clock_timestamp() + ($4::int * interval '1 millisecond') where id = $1`,
        [job.id, failed ? 'failed' : 'pending', message.slice(0, 2000), backoffMs(job.attempts)],
      );
      opts.log?.error({ jobId: job.id, queue: job.queue, attempt: job.attempts, failed, err: message }, 'job failed');
    }
  };

  const run = (job: JobRow) => {
    const handler = handlers[job.queue]!;
    inFlight++;
    const self: { p?: Promise<void> } = {};
    const p = (self.p = (async () => {
      await Promise.resolve(); // let self.p be assigned before the body below reads it
      try {
        const result = await handler(job.payload, job);
        await finish(job, result);
      } catch (e) {
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
