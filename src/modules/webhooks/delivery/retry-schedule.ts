/**
 * When the next attempt happens (docs/webhooks.md "Retries, timeouts and disabling").
 * `schedule[i]` is the delay before attempt i + 1, so its length is the number of attempts
 * (default 0, 30 s, 5 min, 30 min, 2 h = 5 attempts). Each delay gets ±20 % jitter so that
 * endpoints that failed together do not retry together.
 */
export const JITTER = 0.2;
/** A receiver's Retry-After can push a retry later, but never beyond this. */
export const MAX_RETRY_AFTER_MS = 24 * 3600_000;

export const jittered = (delayMs: number, random: () => number = Math.random): number =>
  Math.round(delayMs * (1 - JITTER + 2 * JITTER * random()));

/**
 * Delay before the attempt after attempt number `attemptsMade` (1-based), or null when the
 * schedule is used up. A Retry-After from the receiver is honoured when it asks for more time than
 * the schedule gives, up to MAX_RETRY_AFTER_MS; it can never make a retry come sooner.
 */
export function nextDelayMs(
  schedule: readonly number[],
  attemptsMade: number,
  opts: { retryAfterMs?: number | undefined; random?: () => number } = {},
): number | null {
  const base = schedule[attemptsMade];
  if (base === undefined) return null;
  const delay = jittered(base, opts.random);
  if (opts.retryAfterMs === undefined) return delay;
  return Math.max(delay, Math.min(opts.retryAfterMs, MAX_RETRY_AFTER_MS));
}

/** Parses a Retry-After header (delta seconds or an HTTP date) into milliseconds from `now`. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d{1,10}$/.test(v)) return Number(v) * 1000;
  // HTTP dates only (IMF-fixdate ends in GMT); Date.parse alone would accept '-5' as a year.
  const t = /GMT$/.test(v) ? Date.parse(v) : Number.NaN;
  if (Number.isNaN(t)) return undefined;
  return Math.max(0, t - now.getTime());
}
