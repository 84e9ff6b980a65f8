import { sha256Hex } from '../../lib/tokens.ts';
import type { Db } from '../../db/types.ts';
import { ProviderError } from '../port.ts';
import type { Host, RateLimits, RateRule } from './protocol.ts';

/**
 * Pacing of SimpleAPI calls per provider key and host (docs/emulator.md, "Rate limits"), so the
 * service never provokes a 429: the provider counts calls per key in windows of 1 s, 1 min and
 * 1 h (protocol.ts, PRODUCTION_RATE_LIMITS). We keep, per key and host, the start times of the
 * last calls and give each new call the earliest time at which every rule still holds over *any*
 * window of its length (a sliding window is never looser than the provider's fixed one, wherever
 * its windows start). The record lives in the service's database (`provider_pacing`), taken with
 * a row lock, so every process of one PostgreSQL shares one budget per key.
 *
 * A margin per rule covers the difference between when we start a call and when the provider
 * counts it. A 429 that happens anyway (another client using the same key) blocks the key and host
 * until its Retry-After, for every process.
 */
export interface Pacer {
  /**
   * Reserves the next call slot; resolves once the call may start. When that is more than
   * `maxWaitMs` away, reserves nothing and throws `rate_limited` with the wait, so a job can be
   * rescheduled instead of holding a worker.
   */
  acquire(apiKey: string, host: Host): Promise<void>;
  /** The provider answered 429: no call with this key to this host for `waitMs` (its Retry-After). */
  block(apiKey: string, host: Host, waitMs: number): Promise<void>;
}

export const marginMs = (r: RateRule): number => Math.max(50, Math.round(r.periodMs * 0.02));

/**
 * The earliest time ≥ now for one more call: never before the previous call (the record stays
 * ordered), the block, or the moment the `limit`-th last call leaves each rule's window.
 * `calls`: start times, ascending.
 */
export function nextSlot(calls: readonly number[], rules: readonly RateRule[], now: number, blockedUntil = 0): number {
  let at = Math.max(now, blockedUntil, calls.at(-1) ?? 0);
  for (const r of rules) {
    if (calls.length >= r.limit) at = Math.max(at, calls[calls.length - r.limit]! + r.periodMs + marginMs(r));
  }
  return at;
}

/** Drops what no rule can look at any more: older than the longest window, beyond the largest limit. */
export function trimCalls(calls: readonly number[], rules: readonly RateRule[], now: number): number[] {
  const longest = Math.max(0, ...rules.map((r) => r.periodMs + marginMs(r)));
  const keep = Math.max(0, ...rules.map((r) => r.limit));
  return calls.filter((t) => t > now - longest).slice(-keep);
}

export const pacingKey = (apiKey: string): string => sha256Hex(`simpleapi-pacing:${apiKey}`);

export interface DbPacerOptions {
  maxWaitMs: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export function createDbPacer(db: Db, limits: RateLimits, opts: DbPacerOptions): Pacer {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  return {
    async acquire(apiKey, host) {
      const rules = limits[host];
      if (rules.length === 0) return;
      const key = pacingKey(apiKey);
      const slot = await db.transaction(async (tx) => {
        await tx.query('insert into provider_pacing (key_hash, host) values ($1, $2) on conflict do nothing', [key, host]);
        const r = await tx.query<{ calls: (string | number)[] | null; blocked_until: string | number | null }>(
          'select calls, blocked_until from provider_pacing where key_hash = $1 and host = $2 for update',
          [key, host],
        );
        const row = r.rows[0]!;
        const t = now();
        const calls = trimCalls((row.calls ?? []).map(Number), rules, t);
        const at = nextSlot(calls, rules, t, Number(row.blocked_until ?? 0));
        if (at - t > opts.maxWaitMs) {
          throw new ProviderError(
            'rate_limited',
            `SimpleAPI's rate limit for this key (${host}) allows the next call in ${at - t} ms.`,
            undefined,
            {
              retryAfterMs: at - t,
            },
          );
        }
        await tx.query('update provider_pacing set calls = $3 where key_hash = $1 and host = $2', [key, host, [...calls, at]]);
        return at;
      });
      const wait = slot - now();
      if (wait > 0) await sleep(wait);
    },

    async block(apiKey, host, waitMs) {
      const untilMs = now() + waitMs;
      await db.query(
        `insert into provider_pacing (key_hash, host, blocked_until) values ($1, $2, $3)
         on conflict (key_hash, host) do update set blocked_until = greatest(coalesce(provider_pacing.blocked_until, 0), excluded.blocked_until)`,
        [pacingKey(apiKey), host, untilMs],
      );
    },
  };
}
