import { EventEmitter } from 'node:events';
import type { Sql } from '../db/types.ts';
import { newId } from '../lib/tokens.ts';
import type { EventType } from './event-types.ts';

/**
 * The outbox. An event is written with the same transaction as the change that caused it, so a
 * committed change always has its event and a rolled-back one never does. Delivery happens after
 * commit, in workers (src/modules/webhooks). The payload is serialised once, here, and delivered
 * byte for byte on every attempt.
 *
 * Wake-ups (docs/webhooks.md "How delivery works"): the insert also NOTIFYs OUTBOX_CHANNEL, which
 * PostgreSQL delivers to every listening process when — and only if — the transaction commits; and
 * it tells this process's own workers through `onOutboxWritten`. Both are hints: a worker that
 * misses one still finds the row at its next backstop poll.
 */
export interface EmittedEvent {
  id: string;
  type: EventType;
  payload: string;
}

/** The PostgreSQL channel NOTIFYed by every transaction that writes work for the webhook workers. */
export const OUTBOX_CHANNEL = 'dte_outbox';

const written = new EventEmitter();
written.setMaxListeners(0);

/**
 * Subscribes to "work was written in this process" (an outbox row, a delivery). It fires on the
 * next turn of the event loop, which may be before the writing transaction commits: on PGlite, whose
 * one connection runs a transaction to its end before any other statement, a worker woken by it
 * reads after the commit; on PostgreSQL the NOTIFY, delivered at commit, is the reliable wake-up.
 */
export function onOutboxWritten(fn: () => void): () => void {
  written.on('written', fn);
  return () => written.off('written', fn);
}

/** Tells this process's workers that work was written (see onOutboxWritten). */
export function outboxWritten(): void {
  setImmediate(() => written.emit('written'));
}

export async function emitEvent(
  tx: Sql,
  e: { accountId: string; type: EventType; data: Record<string, unknown>; now: Date },
): Promise<EmittedEvent> {
  const id = newId();
  // The event's mode, top-level like Stripe's (docs/webhooks.md "Events"): its account_id is the
  // scope of one account in one mode, and a test twin names its live account (docs/design.md "Test mode").
  const scope = await tx.query<{ livemode: boolean }>('select live_account_id is null as livemode from accounts where id = $1', [
    e.accountId,
  ]);
  const livemode = scope.rows[0]?.livemode ?? true;
  const payload = JSON.stringify({ event: e.type, timestamp: e.now.toISOString(), livemode, data: e.data });
  // One statement: the row and its NOTIFY (sent by PostgreSQL at commit, dropped on rollback).
  await tx.query(
    `with e as (insert into outbox_events (id, account_id, event_type, payload, created_at) values ($1, $2, $3, $4, $5) returning 1)
     select pg_notify('${OUTBOX_CHANNEL}', '') from e`,
    [id, e.accountId, e.type, payload, e.now],
  );
  outboxWritten();
  return { id, type: e.type, payload };
}
