import type { Db } from '../../../db/types.ts';
import type { Clock } from '../../../lib/clock.ts';
import { NO_FLUSH_WAIT } from './deliveries.store.ts';

/**
 * Outbox → messages + deliveries.
 *
 * Invariant: in ONE transaction, the outbox rows are locked (SKIP LOCKED, so several workers split
 * the work), each becomes a message (same id, same payload bytes) plus one pending delivery per
 * enabled endpoint of its account whose filter matches, and the rows are marked dispatched. A crash
 * before commit leaves the rows undispatched and nothing else written; after commit every event has
 * its deliveries. So an event is never lost and never fanned out twice (unless a crash of the
 * database server loses the dispatch commit itself, which then happens again: a repeat, no loss).
 */
export async function dispatchOutbox(db: Db, clock: Clock, opts: { batch?: number; firstDelayMs?: number } = {}): Promise<number> {
  const batch = opts.batch ?? 200;
  return db.transaction(async (tx) => {
    const ids = (
      await tx.query<{ id: string }>(
        `select id from outbox_events where dispatched_at is null order by created_at, id limit $1 for update skip locked`,
        [batch],
      )
    ).rows.map((r) => r.id);
    if (ids.length === 0) return 0;
    // This commit need not wait for its WAL flush (deliveries.store.ts NO_FLUSH_WAIT): if a server
    // crash loses it, the outbox rows, committed durably by their writers, are undispatched again
    // and fanned out afresh under the same message ids — repeats at worst, never a loss.
    await tx.query(NO_FLUSH_WAIT);
    const now = clock.now();
    // Copied inside the database, so the payload bytes are never re-serialised on the way.
    await tx.query(
      `insert into webhook_messages (id, account_id, event_type, payload, created_at)
       select id, account_id, event_type, payload, created_at from outbox_events where id = any($1::uuid[])`,
      [ids],
    );
    await tx.query(
      `insert into webhook_deliveries (id, account_id, message_id, endpoint_id, status, next_attempt_at, created_at, updated_at)
       select gen_random_uuid(), o.account_id, o.id, e.id, 'pending', $2, $3, $3
       from outbox_events o
       join webhook_endpoints e on e.account_id = o.account_id and not e.disabled
         and (e.filter_types = '[]'::jsonb or e.filter_types @> jsonb_build_array(o.event_type))
       where o.id = any($1::uuid[])`,
      [ids, new Date(now.getTime() + (opts.firstDelayMs ?? 0)), now],
    );
    await tx.query('update outbox_events set dispatched_at = $2 where id = any($1::uuid[])', [ids, now]);
    return ids.length;
  });
}
