import { sha256Hex } from '../../lib/tokens.ts';
import type { Sql } from '../../db/types.ts';
import { quotaExceededText, type Host, type RateLimits, type RateRule } from '../simpleapi/protocol.ts';
import { dotnetRoundTrip } from './sii-format.ts';

/**
 * SimpleAPI's rate limits per API key and host [C "Limites de uso (RateLimit)"; D9], counted the
 * way AspNetCoreRateLimit counts them — the library whose headers SimpleAPI's answers carry
 * (`X-Rate-Limit-Limit: 1m`, `X-Rate-Limit-Remaining: 39`, `X-Rate-Limit-Reset: <ISO>` [C, 2025]):
 *
 *  - fixed windows per rule that start at the first call after the previous window ended (not on
 *    clock boundaries); a call inside a window adds one to its count;
 *  - rules are taken from the shortest period to the longest; the first whose count goes over its
 *    limit answers 429 `text/plain` "API calls quota exceeded! maximum admitted N per P." with
 *    `Retry-After` (seconds until that window ends) and the rules after it are not counted. So a
 *    429'd call counts in the windows it was checked against (the library's default, without
 *    StackBlockedRequests: a refused call is not added to the longer windows);
 *  - an accepted call carries the X-Rate-Limit-* headers of the rule with the longest period.
 *
 * The counters live in `emu_rate_counters` (one upsert per rule per call, atomic in the database),
 * so every process using one database — the in-process emulator of several service processes on
 * one PostgreSQL — counts against the same windows. Keys are stored as SHA-256 hashes.
 * Time is the wall clock (`now`), not the emulator's document clock: rate limits are real time.
 */
export type RateVerdict =
  { ok: true; headers: Record<string, string> } | { ok: false; rule: RateRule; retryAfterSeconds: number; text: string };

export interface RateLimiter {
  take(apiKey: string, host: Host): Promise<RateVerdict>;
}

const keyHash = (apiKey: string) => sha256Hex(`emulator-rate:${apiKey}`);

export function createRateLimiter(db: Sql, limits: RateLimits, now: () => number = Date.now): RateLimiter {
  const sorted: Record<Host, RateRule[]> = {
    api: [...limits.api].sort((a, b) => a.periodMs - b.periodMs),
    servicios: [...limits.servicios].sort((a, b) => a.periodMs - b.periodMs),
  };
  return {
    async take(apiKey, host): Promise<RateVerdict> {
      const rules = sorted[host];
      const key = keyHash(apiKey);
      let longest: { rule: RateRule; start: number; count: number } | undefined;
      for (const rule of rules) {
        const t = now();
        const r = await db.query<{ window_start_ms: string | number; count: number }>(
          `insert into emu_rate_counters as c (key_hash, host, period_ms, window_start_ms, count) values ($1, $2, $3, $4, 1)
           on conflict (key_hash, host, period_ms) do update set
             window_start_ms = case when c.window_start_ms + c.period_ms >= excluded.window_start_ms then c.window_start_ms else excluded.window_start_ms end,
             count = case when c.window_start_ms + c.period_ms >= excluded.window_start_ms then c.count + 1 else 1 end
           returning window_start_ms, count`,
          [key, host, rule.periodMs, t],
        );
        const start = Number(r.rows[0]!.window_start_ms);
        const count = Number(r.rows[0]!.count);
        if (count > rule.limit) {
          // Whole seconds, at least 1 (the library rounds; we round up, so that a client honouring
          // it never lands in the same window again).
          const retryAfterSeconds = Math.max(1, Math.ceil((start + rule.periodMs - t) / 1000));
          return { ok: false, rule, retryAfterSeconds, text: quotaExceededText(rule) };
        }
        longest = { rule, start, count };
      }
      if (!longest) return { ok: true, headers: {} };
      return {
        ok: true,
        headers: {
          'X-Rate-Limit-Limit': longest.rule.label,
          'X-Rate-Limit-Remaining': String(longest.rule.limit - longest.count),
          'X-Rate-Limit-Reset': dotnetRoundTrip(longest.start + longest.rule.periodMs),
        },
      };
    },
  };
}
