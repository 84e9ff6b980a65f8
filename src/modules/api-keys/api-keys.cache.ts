import crypto from 'node:crypto';
import type { Db } from '../../db/types.ts';

/**
 * The process's cache of API key hash → account (docs/performance.md "The API key cache"), so an
 * authenticated request does not look its key up in the database.
 *
 * Invariants:
 * - Only active keys are cached; a key's row never changes except to be revoked (and its advisory
 *   last_used_at), so revocation is the only thing a cache has to learn about.
 * - A revocation commits together with a NOTIFY on REVOKED_CHANNEL (api-keys.store.ts). Every
 *   process LISTENs on a connection named `dte-keycache:<instance>`; on the notification it drops
 *   the key and then answers on ACK_CHANNEL. The revoking process reads who listens (from
 *   pg_stat_activity) before it commits, and answers the revocation only once each of them has
 *   acknowledged (or is gone): so when the client hears "revoked", no process still has the key.
 *   A listener that neither acknowledges nor disappears within ACK_TIMEOUT_MS is logged.
 * - A cache is used only while its listener is connected: when the connection is lost, the cache
 *   is emptied and every request goes to the database until LISTEN is back (notifications sent in
 *   between are lost, so the cache is emptied again then).
 * - A lookup that was in flight when a revocation (or a lost listener) arrived is not cached: each
 *   invalidation bumps an epoch, and a result is stored only if the epoch did not change.
 * - Bounded (oldest entries go first) and each entry expires after `ttlMs`, a backstop for what
 *   nothing notifies (a row changed by hand in the database).
 * On PGlite only one process can open the database, so the revoking process is the only one with
 * a cache: it drops the key itself and no notification is needed.
 */
export const REVOKED_CHANNEL = 'dte_api_key_revoked';
export const ACK_CHANNEL = 'dte_api_key_revoked_ack';
const NAME_PREFIX = 'dte-keycache:';
export const ACK_TIMEOUT_MS = 3000;

export interface CachedKey {
  accountId: string;
  apiKeyId: string;
}

export interface KeyCacheOptions {
  ttlMs?: number;
  max?: number;
  now?: () => number;
  log?: (message: string) => void;
}

export function createKeyCache(db: Pick<Db, 'listen' | 'query'>, opts: KeyCacheOptions = {}) {
  const ttlMs = opts.ttlMs ?? 30_000;
  const max = opts.max ?? 10_000;
  const now = opts.now ?? (() => performance.now());
  const log = opts.log ?? ((m: string) => console.warn(m));
  const byHash = new Map<string, CachedKey & { expires: number }>();
  const hashById = new Map<string, string>();
  let epoch = 0;
  // Without a listener (PGlite) there is nothing to wait for; with one, nothing is cached until it listens.
  let usable = !db.listen;
  /** Key id → the listeners that have acknowledged its revocation, while a revocation waits. */
  const acks = new Map<string, Set<string>>();
  const instance = `${NAME_PREFIX}${crypto.randomUUID()}`;

  const clear = () => {
    epoch++;
    byHash.clear();
    hashById.clear();
  };
  const drop = (apiKeyId: string) => {
    epoch++;
    const hash = hashById.get(apiKeyId);
    if (hash !== undefined) byHash.delete(hash);
    hashById.delete(apiKeyId);
  };

  const listener = db.listen?.({
    channels: [REVOKED_CHANNEL, ACK_CHANNEL],
    name: instance,
    onMessage(channel, payload) {
      if (channel === REVOKED_CHANNEL) {
        drop(payload);
        listener!.notify(ACK_CHANNEL, `${instance} ${payload}`);
      } else {
        const [who, id] = payload.split(' ');
        if (who && id) acks.get(id)?.add(who);
      }
    },
    onState(listening) {
      clear();
      usable = listening;
    },
  });

  const liveListeners = async (): Promise<Set<string>> => {
    const r = await db.query<{ name: string }>(
      `select application_name as name from pg_stat_activity where datname = current_database() and application_name like $1`,
      [`${NAME_PREFIX}%`],
    );
    return new Set(r.rows.map((x) => x.name));
  };

  return {
    /** The current epoch: pass it back to `set` with the result of a lookup started now. */
    epoch: () => epoch,
    get(hash: string): CachedKey | undefined {
      if (!usable) return undefined;
      const e = byHash.get(hash);
      if (!e) return undefined;
      if (e.expires <= now()) {
        byHash.delete(hash);
        hashById.delete(e.apiKeyId);
        return undefined;
      }
      return { accountId: e.accountId, apiKeyId: e.apiKeyId };
    },
    /** Stores an active key looked up since `startedAt` (an epoch), unless anything was invalidated meanwhile. */
    set(hash: string, key: CachedKey, startedAt: number) {
      if (!usable || startedAt !== epoch) return;
      byHash.set(hash, { ...key, expires: now() + ttlMs });
      hashById.set(key.apiKeyId, hash);
      if (byHash.size > max) {
        const [oldest, e] = byHash.entries().next().value!;
        byHash.delete(oldest);
        hashById.delete(e.apiKeyId);
      }
    },
    /**
     * Call before committing the revocation of `apiKeyId`: learns who listens now. After the
     * commit, `committed()` drops the key here and resolves once every one of them has
     * acknowledged it (or has gone away); `cancel()` if nothing was revoked.
     */
    async beginRevocation(apiKeyId: string): Promise<{ committed: () => Promise<void>; cancel: () => void }> {
      if (!db.listen) return { committed: async () => drop(apiKeyId), cancel: () => {} };
      const received = new Set<string>();
      acks.set(apiKeyId, received);
      let waiting = await liveListeners();
      const cancel = () => {
        if (acks.get(apiKeyId) === received) acks.delete(apiKeyId);
      };
      return {
        cancel,
        async committed() {
          drop(apiKeyId);
          try {
            const deadline = Date.now() + ACK_TIMEOUT_MS;
            let refreshAt = Date.now() + 250;
            for (;;) {
              for (const who of received) waiting.delete(who);
              if (waiting.size === 0) return;
              if (Date.now() > deadline) {
                log(
                  `api key ${apiKeyId} revoked, but ${waiting.size} listening process(es) did not acknowledge within ${ACK_TIMEOUT_MS} ms`,
                );
                return;
              }
              if (Date.now() > refreshAt) {
                // A process that went away has no cache left to clear.
                const live = await liveListeners();
                waiting = new Set([...waiting].filter((w) => live.has(w)));
                refreshAt = Date.now() + 250;
              }
              await new Promise((r) => setTimeout(r, 2));
            }
          } finally {
            cancel();
          }
        },
      };
    },
    size: () => byHash.size,
  };
}

export type KeyCache = ReturnType<typeof createKeyCache>;
