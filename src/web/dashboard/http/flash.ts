import type { Clock } from '../../../lib/clock.ts';

/**
 * One-time flashes for the secrets a dashboard POST creates (a new API key, an activation link's
 * URL, a webhook signing secret), so the POST can answer 303 and the page that shows the secret
 * is a GET a reload cannot repeat (docs/dashboard.md "Redirect after POST, and secrets shown once").
 *
 * Invariants:
 * - kept in this process's memory only, never in the database, a log or a file (the project's
 *   rule: secrets never in plain text at rest); a restart forgets them;
 * - bound to the session (its token hash) and to a slot naming the page ("api-key",
 *   "link:<tenantId>"): another session, or another page, never reads them;
 * - read once: `take` removes the entry, so a reload, the back button or a second tab finds
 *   nothing; an entry not taken within `ttlMs` is dropped;
 * - bounded: at most `maxEntries` across all sessions, the oldest dropped first.
 */
export interface OneTimeFlash {
  put(sessionKey: string, slot: string, value: unknown): void;
  take<T>(sessionKey: string, slot: string): T | undefined;
  /** Entries held (for tests and metrics; never their values). */
  size(): number;
}

export function createOneTimeFlash(deps: { clock: Clock; ttlMs?: number; maxEntries?: number }): OneTimeFlash {
  const ttlMs = deps.ttlMs ?? 5 * 60_000;
  const maxEntries = deps.maxEntries ?? 10_000;
  // Insertion order is age order: a Map iterates oldest first, and `put` re-inserts.
  const entries = new Map<string, { value: unknown; expiresAt: number }>();
  const keyOf = (sessionKey: string, slot: string) => `${sessionKey}\u0000${slot}`;

  const sweep = (now: number) => {
    for (const [k, e] of entries) {
      if (e.expiresAt > now && entries.size <= maxEntries) break;
      entries.delete(k);
    }
  };

  return {
    put(sessionKey, slot, value) {
      const now = deps.clock.now().getTime();
      const k = keyOf(sessionKey, slot);
      entries.delete(k);
      entries.set(k, { value, expiresAt: now + ttlMs });
      sweep(now);
    },
    take<T>(sessionKey: string, slot: string): T | undefined {
      const k = keyOf(sessionKey, slot);
      const e = entries.get(k);
      if (!e) return undefined;
      entries.delete(k);
      return e.expiresAt > deps.clock.now().getTime() ? (e.value as T) : undefined;
    },
    size: () => entries.size,
  };
}
