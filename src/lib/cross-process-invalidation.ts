import crypto from 'node:crypto';
import type { Db } from '../db/types.ts';

/**
 * The protocol a process-local cache uses so that it never serves what another process changed
 * (docs/performance.md "The API key cache" and "The tenant cache" are its two users). The cache
 * says what its notifications mean and what a token acknowledges; this module keeps the parts
 * that are the same for both.
 *
 * Invariants:
 * - One LISTEN connection per cache per process, named `<namePrefix><uuid>` (its
 *   application_name): a writer finds every cache that could hold what it changed by reading
 *   pg_stat_activity for that prefix (`liveListeners`), with no registry that could go stale.
 * - No listener, no cache: `listening()` is true only while that connection is up. When it is
 *   lost, and again when LISTEN is back (notifications sent in between were missed), `onReset`
 *   runs so the owner empties its cache.
 * - No stale insert: every invalidation bumps `epoch()` (the owner's `invalidated()` calls, and
 *   each reset), so the owner stores a lookup only if the epoch it started at is still current.
 * - Acknowledgements are `<instance> <token>` on `ackChannel`, sent by `acknowledge(token)` on the
 *   listening connection. Notifications reach a connection in commit order, so the owner sends
 *   one only after handling what the token answers for; they are counted only for a token that
 *   someone `expectAcks` for.
 * - `waitForAcks` returns once each listener it waits for has acknowledged or has left
 *   pg_stat_activity (a process gone has no cache left to clear), re-reading who is live every
 *   `refreshMs`. After `ackTimeoutMs` it logs and returns anyway: a stuck process must not hold
 *   the writer's answer forever.
 * Without `db.listen` (PGlite: one process opens the database) there is no one else to tell:
 * `crossProcess` is false. The process still hears its own commits' notifications through
 * `db.listenLocally` (delivered before each commit resolves), so `onMessage` runs as it does on
 * PostgreSQL and `listening()` is true once that LISTEN is in place (never, if it fails).
 */
export const ACK_TIMEOUT_MS = 3000;
const REFRESH_MS = 250;

export interface CrossProcessInvalidationOptions {
  /** application_name prefix of every listener of this cache, in every process. */
  namePrefix: string;
  /** The channels whose notifications go to `onMessage`. */
  channels: readonly string[];
  /** The channel acknowledgements arrive on (listened to as well, never passed to `onMessage`). */
  ackChannel: string;
  onMessage(channel: string, payload: string): void;
  /** The listening connection was lost or is back: empty the cache (the epoch is already bumped). */
  onReset(): void;
  ackTimeoutMs?: number;
  refreshMs?: number;
  log?: (message: string) => void;
}

export function createCrossProcessInvalidation(db: Pick<Db, 'listen' | 'listenLocally' | 'query'>, opts: CrossProcessInvalidationOptions) {
  const ackTimeoutMs = opts.ackTimeoutMs ?? ACK_TIMEOUT_MS;
  const refreshMs = opts.refreshMs ?? REFRESH_MS;
  const log = opts.log ?? ((m: string) => console.warn(m));
  const instance = `${opts.namePrefix}${crypto.randomUUID()}`;
  let epoch = 0;
  let listening = false;
  /** Token → the listeners that have acknowledged it, while someone waits for it. */
  const acks = new Map<string, Set<string>>();

  const listener = db.listen?.({
    channels: [...opts.channels, opts.ackChannel],
    name: instance,
    onMessage(channel, payload) {
      if (channel !== opts.ackChannel) return opts.onMessage(channel, payload);
      const [who, token] = payload.split(' ');
      if (who && token) acks.get(token)?.add(who);
    },
    onState(up) {
      epoch++;
      opts.onReset();
      listening = up;
    },
  });

  if (!listener)
    db.listenLocally?.({
      channels: opts.channels,
      onMessage: opts.onMessage,
      onState(up) {
        epoch++;
        opts.onReset();
        listening = up;
      },
    });

  const liveListeners = async (): Promise<Set<string>> => {
    const r = await db.query<{ name: string }>(
      `select application_name as name from pg_stat_activity where datname = current_database() and application_name like $1`,
      [`${opts.namePrefix}%`],
    );
    return new Set(r.rows.map((x) => x.name));
  };

  return {
    /** This process's listener name (its application_name). */
    instance,
    /** Whether other processes can be told anything (PostgreSQL): false on PGlite. */
    crossProcess: listener !== undefined,
    /** Whether the listening connection is up, so a cache may be used. */
    listening: () => listening,
    /** The current epoch: a lookup started now may be stored only while it is unchanged. */
    epoch: () => epoch,
    /** Call on every invalidation, so a lookup in flight across it is not stored. */
    invalidated() {
      epoch++;
    },
    /** Tells whoever waits for `token` that this process has handled it (dropped if not listening). */
    acknowledge(token: string) {
      listener?.notify(opts.ackChannel, `${instance} ${token}`);
    },
    /** The listeners of this cache now, in every process (this one included). */
    liveListeners,
    /**
     * Starts collecting acknowledgements of `token` into `received`; `stop()` when no longer
     * waiting (it leaves alone a later `expectAcks` of the same token).
     */
    expectAcks(token: string): { received: ReadonlySet<string>; stop: () => void } {
      const received = new Set<string>();
      acks.set(token, received);
      return {
        received,
        stop: () => {
          if (acks.get(token) === received) acks.delete(token);
        },
      };
    },
    /**
     * Resolves once every listener in `waiting` is in `received` or no longer live; after
     * ackTimeoutMs it logs `timeoutMessage(missing, ackTimeoutMs)` and resolves anyway. Returns how
     * many never answered.
     */
    async waitForAcks(
      waiting: ReadonlySet<string>,
      received: ReadonlySet<string>,
      timeoutMessage: (missing: number, timeoutMs: number) => string,
    ): Promise<number> {
      let pending = new Set(waiting);
      const deadline = Date.now() + ackTimeoutMs;
      let refreshAt = Date.now() + refreshMs;
      for (;;) {
        for (const who of received) pending.delete(who);
        if (pending.size === 0) return 0;
        if (Date.now() > deadline) {
          log(timeoutMessage(pending.size, ackTimeoutMs));
          return pending.size;
        }
        if (Date.now() > refreshAt) {
          const live = await liveListeners();
          pending = new Set([...pending].filter((w) => live.has(w)));
          refreshAt = Date.now() + refreshMs;
        }
        await new Promise((r) => setTimeout(r, 2));
      }
    },
  };
}

export type CrossProcessInvalidation = ReturnType<typeof createCrossProcessInvalidation>;
