import type { Db, Sql } from '../db/types.ts';

/**
 * Token buckets kept in the database, so every process that shares a PostgreSQL shares the
 * limits. One statement refills by elapsed time, takes a token if there is one, and says what is
 * left. The bucket never goes below zero, so a client hammering a limit is not punished further.
 */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

export interface TakeResult {
  allowed: boolean;
  remaining: number;
  /** Seconds until one token is available (0 when allowed). */
  retryAfterSeconds: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
}

/** One bucket to take from, in `takeAll`. */
export interface BucketTake {
  key: string;
  limit: RateLimit;
}

const result = (tokens: number, allowed: boolean, limit: RateLimit): TakeResult => ({
  allowed,
  remaining: Math.max(0, Math.floor(tokens)),
  retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / limit.perSecond)),
  resetSeconds: Math.max(0, Math.ceil((limit.burst - tokens) / limit.perSecond)),
});

/**
 * On PGlite only one process can ever use the database, so a bucket in this process's memory is
 * exactly as shared as one in the database, and saves a write per request.
 */
export function createMemoryRateLimiter() {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const takeOne = ({ key, limit }: BucketTake): TakeResult => {
    const now = performance.now();
    const b = buckets.get(key) ?? { tokens: limit.burst, at: now };
    const avail = Math.min(limit.burst, b.tokens + ((now - b.at) / 1000) * limit.perSecond);
    const allowed = avail >= 1;
    b.tokens = allowed ? avail - 1 : avail;
    b.at = now;
    buckets.set(key, b);
    if (buckets.size > 100_000) buckets.delete(buckets.keys().next().value!);
    return result(b.tokens, allowed, limit);
  };
  return {
    /** A token from every bucket; results in the order given. */
    takeAll: async (takes: readonly BucketTake[]): Promise<TakeResult[]> => takes.map(takeOne),
    take: async (key: string, limit: RateLimit): Promise<TakeResult> => takeOne({ key, limit }),
  };
}

export const rateLimiterFor = (db: Db) => (db.kind === 'pglite' ? createMemoryRateLimiter() : createRateLimiter(db));

/**
 * How many tokens one process leases from a shared bucket at a time: about 50 ms of the bucket's
 * rate, at most a tenth of its burst, at least one (a bucket that refills slowly, like the
 * failed-authentication one, is still taken from one token at a time, exactly as before).
 */
export const leaseSize = (limit: RateLimit): number =>
  Math.max(1, Math.min(Math.ceil(limit.perSecond / 20), Math.floor(limit.burst / 10), 1000));

/** Leased tokens not spent within this time are dropped (never returned): a lease cannot be hoarded. */
export const LEASE_TTL_MS = 1000;

/**
 * Token buckets kept in the database, so every process that shares a PostgreSQL shares the
 * limits, spent from local leases so that a request rarely waits on the database.
 *
 * Invariants (docs/performance.md "Rate limits"):
 * - Every token a request spends was taken from the shared bucket by one atomic statement, so
 *   across all processes no more tokens are ever spent than the shared bucket handed out: the
 *   limit is never exceeded by more than what a lease allows (tokens taken at one instant and
 *   spent up to LEASE_TTL_MS later: at most `leaseSize` per process per bucket).
 * - A lease is smaller than a tenth of the burst; tokens a process holds but does not spend are
 *   lost to the others for at most LEASE_TTL_MS (the limit errs on the strict side).
 * - When the shared bucket has no token, the process refuses locally until the first token can
 *   have refilled (the shared bucket cannot have one earlier), without asking again.
 */
export function createRateLimiter(db: Sql, opts: { now?: () => number } = {}) {
  const now = opts.now ?? (() => performance.now());
  interface Local {
    /** Leased tokens not yet spent. */
    tokens: number;
    /** Tokens left in the shared bucket after our last lease (for the RateLimit-Remaining header). */
    shared: number;
    leasedAt: number;
    /** No token in the shared bucket before this time. */
    deniedUntil: number;
    inflight: Promise<void> | undefined;
    /** Requests waiting for a token of this bucket: a lease covers them all, plus `leaseSize` at most. */
    waiting: number;
  }
  const locals = new Map<string, Local>();
  const localOf = (key: string): Local => {
    let l = locals.get(key);
    if (!l) {
      l = { tokens: 0, shared: 0, leasedAt: 0, deniedUntil: 0, inflight: undefined, waiting: 0 };
      locals.set(key, l);
      if (locals.size > 100_000) locals.delete(locals.keys().next().value!);
    }
    return l;
  };

  /**
   * One statement leases for every bucket given: the refill is computed inside DO UPDATE, where the
   * row is locked and current, so concurrent leases from other processes queue on it instead of
   * reading a stale value. The bucket hands out what it has, up to the lease, never below zero.
   */
  const lease = async (takes: readonly BucketTake[]): Promise<void> => {
    const avail = 'least(excluded.capacity, b.tokens + extract(epoch from (clock_timestamp() - b.updated_at)) * excluded.rate)';
    const give = `least(excluded.granted, floor(${avail}))`;
    const r = await db.query<{ key: string; tokens: number; granted: number }>(
      `insert into rate_limit_buckets as b (key, tokens, updated_at, last_allowed, capacity, rate, granted)
       select k, c - n, clock_timestamp(), true, c, r, n from unnest($1::text[], $2::float8[], $3::float8[], $4::float8[]) as u(k, c, r, n)
       on conflict (key) do update set
         tokens = ${avail} - ${give},
         granted = ${give},
         last_allowed = ${give} >= 1,
         capacity = excluded.capacity,
         rate = excluded.rate,
         updated_at = clock_timestamp()
       returning key, tokens, granted`,
      [
        takes.map((x) => x.key),
        takes.map((x) => x.limit.burst),
        takes.map((x) => x.limit.perSecond),
        takes.map((x) => Math.min(Math.max(leaseSize(x.limit), localOf(x.key).waiting), x.limit.burst)),
      ],
    );
    const at = now();
    for (const row of r.rows) {
      const x = takes.find((t) => t.key === row.key)!;
      const l = localOf(row.key);
      const granted = Number(row.granted);
      const tokens = Number(row.tokens);
      // A fresh lease replaces what is left of an expired one; an unexpired remainder is kept.
      l.tokens = (at - l.leasedAt > LEASE_TTL_MS ? 0 : l.tokens) + granted;
      l.shared = tokens;
      l.leasedAt = at;
      l.deniedUntil = granted >= 1 ? 0 : at + ((1 - tokens) / x.limit.perSecond) * 1000;
    }
  };

  const spend = (x: BucketTake, at: number): TakeResult => {
    const l = localOf(x.key);
    const allowed = l.tokens >= 1;
    if (allowed) l.tokens -= 1;
    const r = result(Math.max(0, l.shared) + l.tokens, allowed, x.limit);
    if (!allowed) r.retryAfterSeconds = Math.max(1, Math.ceil((l.deniedUntil - at) / 1000));
    return r;
  };

  /**
   * A token from every bucket; results in the order given (each bucket decides on its own, as one
   * statement over all of them did). The check that every bucket has a leased token or a known
   * refusal and the spending happen in one synchronous step, so concurrent requests cannot both
   * count on the same token; a bucket without either gets a lease (one in flight per bucket,
   * shared by the requests waiting on it) and the check runs again.
   */
  const takeAll = async (takes: readonly BucketTake[]): Promise<TakeResult[]> => {
    const waitingOn = new Set<Local>();
    try {
      for (let round = 0; ; round++) {
        const at = now();
        const need: BucketTake[] = [];
        const waits: Promise<void>[] = [];
        for (const x of takes) {
          const l = localOf(x.key);
          if (l.tokens > 0 && at - l.leasedAt > LEASE_TTL_MS) l.tokens = 0;
          if (l.tokens >= 1 || l.deniedUntil > at) continue;
          if (!waitingOn.has(l)) {
            waitingOn.add(l);
            l.waiting++;
          }
          if (l.inflight) waits.push(l.inflight);
          else need.push(x);
        }
        // A lease covers every request waiting when it starts, so a request waits for at most two;
        // the bound only stops a pathological loop, erring on the strict side.
        if ((need.length === 0 && waits.length === 0) || round >= 20) return takes.map((x) => spend(x, at));
        if (need.length) {
          const p = lease(need);
          const done = p.then(
            () => {},
            () => {},
          );
          for (const x of need) localOf(x.key).inflight = done;
          try {
            await p;
          } finally {
            for (const x of need) if (localOf(x.key).inflight === done) localOf(x.key).inflight = undefined;
          }
        }
        await Promise.all(waits);
      }
    } finally {
      for (const l of waitingOn) l.waiting--;
    }
  };
  return {
    takeAll,
    take: async (key: string, limit: RateLimit): Promise<TakeResult> => (await takeAll([{ key, limit }]))[0]!,
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
