import crypto from 'node:crypto';
import type { Db } from '../../db/types.ts';
import { createCrossProcessInvalidation } from '../../lib/cross-process-invalidation.ts';
import type { TenantRow } from './tenants.store.ts';

/**
 * The process's cache of tenant rows for reads (docs/performance.md "The tenant cache"), so a
 * `GET` under /api/v1/tenants/{id}… makes no statement to resolve its tenant. On PGlite one
 * process owns the database, so its own commits are every change there is: the trigger's
 * notification reaches this cache through `db.listenLocally` before the commit resolves (and so
 * before the writer answers), and nothing needs waiting for (`settled()` returns at once).
 *
 * Invariants (the listener, echo and epoch machinery: src/lib/cross-process-invalidation.ts):
 * - Every change to a tenant row commits together with a NOTIFY on CHANGED_CHANNEL (a trigger on
 *   the table: migration 202611300900), whoever wrote it. Each process LISTENs on a connection
 *   named `dte-tenantcache:<instance>` and drops the row when told.
 * - A change is seen by every process on the next request: a write that changed a tenant calls
 *   `settled()` after its commit and before it answers. settled() reads who listens, sends a
 *   barrier on BARRIER_CHANNEL and waits until each of them has echoed it (or has gone away).
 *   Notifications reach a listener in commit order, so one that echoes the barrier has already
 *   dropped the row; one that began listening after the read started with an empty cache, after
 *   the change committed. A listener that neither echoes nor disappears within ACK_TIMEOUT_MS is
 *   logged and the write answered anyway (that process is stuck).
 * - No listener, no cache: used only while the listening connection is up; emptied when it is lost
 *   and again when LISTEN is back (notifications in between were missed).
 * - No stale insert: a lookup in flight when a notification (or a lost listener) arrives is not
 *   stored: each invalidation bumps an epoch and a result is kept only if the epoch is unchanged.
 * - Absent tenants are never cached (a 404 still asks the database); entries expire after ttlMs
 *   and at most `max` are kept.
 */
export const CHANGED_CHANNEL = 'dte_tenant_changed';
export const BARRIER_CHANNEL = 'dte_tenant_barrier';
const ECHO_CHANNEL = 'dte_tenant_barrier_echo';
const NAME_PREFIX = 'dte-tenantcache:';

export interface TenantCacheOptions {
  ttlMs?: number;
  max?: number;
  now?: () => number;
  log?: (message: string) => void;
}

export function createTenantCache(db: Pick<Db, 'listen' | 'listenLocally' | 'query'>, opts: TenantCacheOptions = {}) {
  const ttlMs = opts.ttlMs ?? 30_000;
  const max = opts.max ?? 10_000;
  const now = opts.now ?? (() => performance.now());
  const rows = new Map<string, { row: TenantRow; expires: number }>();
  const sync = createCrossProcessInvalidation(db, {
    namePrefix: NAME_PREFIX,
    channels: [CHANGED_CHANNEL, BARRIER_CHANNEL],
    ackChannel: ECHO_CHANNEL,
    log: opts.log,
    onMessage(channel, payload) {
      if (channel === CHANGED_CHANNEL) {
        sync.invalidated();
        rows.delete(payload);
      } else sync.acknowledge(payload);
    },
    onReset() {
      rows.clear();
    },
  });

  return {
    /** The current epoch: pass it back to `set` with the result of a lookup started now. */
    epoch: sync.epoch,
    /** The cached row of `id` within `accountId`, if any (another account's row is never returned). */
    get(accountId: string, id: string): TenantRow | undefined {
      if (!sync.listening()) return undefined;
      const e = rows.get(id);
      if (!e) return undefined;
      if (e.expires <= now()) {
        rows.delete(id);
        return undefined;
      }
      return e.row.account_id === accountId ? e.row : undefined;
    },
    /** Stores a row read since `startedAt` (an epoch), unless anything was invalidated meanwhile. */
    set(row: TenantRow, startedAt: number) {
      if (!sync.listening() || startedAt !== sync.epoch()) return;
      rows.delete(row.id);
      rows.set(row.id, { row, expires: now() + ttlMs });
      if (rows.size > max) rows.delete(rows.keys().next().value!);
    },
    /**
     * After a commit that changed tenant rows, before answering: resolves once every process that
     * listens has dropped what the commit changed (see above). Nothing to wait for without listeners.
     */
    async settled(): Promise<void> {
      if (!sync.crossProcess) return;
      const waiting = await sync.liveListeners();
      if (waiting.size === 0) return;
      const token = crypto.randomUUID();
      const echoes = sync.expectAcks(token);
      try {
        // Sent on the pool, not the listening connection: it must not depend on this process's listener.
        await db.query('select pg_notify($1, $2)', [BARRIER_CHANNEL, token]);
        await sync.waitForAcks(
          waiting,
          echoes.received,
          (missing, ms) => `tenant change committed, but ${missing} listening process(es) did not confirm within ${ms} ms`,
        );
      } finally {
        echoes.stop();
      }
    },
  };
}

export type TenantCache = ReturnType<typeof createTenantCache>;
