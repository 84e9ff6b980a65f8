import type { Db } from '../../db/types.ts';
import { createCrossProcessInvalidation } from '../../lib/cross-process-invalidation.ts';

/**
 * The process's cache of API key hash → account (docs/performance.md "The API key cache"), so an
 * authenticated request does not look its key up in the database.
 *
 * Invariants (the listener, acknowledgement and epoch machinery: src/lib/cross-process-invalidation.ts):
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

export interface CachedKey {
  accountId: string;
  apiKeyId: string;
  livemode: boolean;
  /** The key's display prefix, for the audit log's actor (never the key). */
  prefix: string;
}

export interface KeyCacheOptions {
  ttlMs?: number;
  max?: number;
  now?: () => number;
  log?: (message: string) => void;
}

export function createKeyCache(db: Pick<Db, 'listen' | 'listenLocally' | 'query'>, opts: KeyCacheOptions = {}) {
  const ttlMs = opts.ttlMs ?? 30_000;
  const max = opts.max ?? 10_000;
  const now = opts.now ?? (() => performance.now());
  const byHash = new Map<string, CachedKey & { expires: number }>();
  const hashById = new Map<string, string>();

  const drop = (apiKeyId: string) => {
    sync.invalidated();
    const hash = hashById.get(apiKeyId);
    if (hash !== undefined) byHash.delete(hash);
    hashById.delete(apiKeyId);
  };
  const sync = createCrossProcessInvalidation(db, {
    namePrefix: NAME_PREFIX,
    channels: [REVOKED_CHANNEL],
    ackChannel: ACK_CHANNEL,
    log: opts.log,
    onMessage(_channel, apiKeyId) {
      drop(apiKeyId);
      sync.acknowledge(apiKeyId);
    },
    onReset() {
      byHash.clear();
      hashById.clear();
    },
  });
  // Without a listener (PGlite) there is nothing to wait for; with one, nothing is cached until it listens.
  const usable = () => !sync.crossProcess || sync.listening();

  return {
    /** The current epoch: pass it back to `set` with the result of a lookup started now. */
    epoch: sync.epoch,
    get(hash: string): CachedKey | undefined {
      if (!usable()) return undefined;
      const e = byHash.get(hash);
      if (!e) return undefined;
      if (e.expires <= now()) {
        byHash.delete(hash);
        hashById.delete(e.apiKeyId);
        return undefined;
      }
      return { accountId: e.accountId, apiKeyId: e.apiKeyId, livemode: e.livemode, prefix: e.prefix };
    },
    /** Stores an active key looked up since `startedAt` (an epoch), unless anything was invalidated meanwhile. */
    set(hash: string, key: CachedKey, startedAt: number) {
      if (!usable() || startedAt !== sync.epoch()) return;
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
      if (!sync.crossProcess) return { committed: async () => drop(apiKeyId), cancel: () => {} };
      const acks = sync.expectAcks(apiKeyId);
      const waiting = await sync.liveListeners();
      return {
        cancel: acks.stop,
        async committed() {
          drop(apiKeyId);
          try {
            await sync.waitForAcks(
              waiting,
              acks.received,
              (missing, ms) => `api key ${apiKeyId} revoked, but ${missing} listening process(es) did not acknowledge within ${ms} ms`,
            );
          } finally {
            acks.stop();
          }
        },
      };
    },
    size: () => byHash.size,
  };
}

export type KeyCache = ReturnType<typeof createKeyCache>;
