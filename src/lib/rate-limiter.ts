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

export function createRateLimiter(db: Sql) {
  /**
   * A token from every bucket in one statement (one round trip for a key and its account). The
   * refill is computed inside DO UPDATE, where the row is locked and current, so concurrent
   * requests on other connections queue on it instead of reading a stale value; each row carries
   * its own capacity and rate, read there from `excluded`.
   */
  const takeAll = async (takes: readonly BucketTake[]): Promise<TakeResult[]> => {
    const avail = 'least(excluded.capacity, b.tokens + extract(epoch from (clock_timestamp() - b.updated_at)) * excluded.rate)';
    const r = await db.query<{ key: string; tokens: number; allowed: boolean }>(
      `insert into rate_limit_buckets as b (key, tokens, updated_at, last_allowed, capacity, rate)
       select k, c - 1, clock_timestamp(), true, c, r from unnest($1::text[], $2::float8[], $3::float8[]) as u(k, c, r)
       on conflict (key) do update set
         tokens = case when ${avail} >= 1 then ${avail} - 1 else ${avail} end,
         last_allowed = ${avail} >= 1,
         capacity = excluded.capacity,
         rate = excluded.rate,
         updated_at = clock_timestamp()
       returning key, tokens, last_allowed as allowed`,
      [takes.map((x) => x.key), takes.map((x) => x.limit.burst), takes.map((x) => x.limit.perSecond)],
    );
    const byKey = new Map(r.rows.map((row) => [row.key, row]));
    return takes.map((x) => {
      const row = byKey.get(x.key)!;
      return result(Number(row.tokens), Boolean(row.allowed), x.limit);
    });
  };
  return {
    takeAll,
    take: async (key: string, limit: RateLimit): Promise<TakeResult> => (await takeAll([{ key, limit }]))[0]!,
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
