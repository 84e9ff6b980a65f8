import type { Sql } from '../db/types.ts';
import { newId } from '../lib/tokens.ts';
import type { EventType } from './event-types.ts';

/**
 * The outbox. An event is written with the same transaction as the change that caused it, so a
 * committed change always has its event and a rolled-back one never does. Delivery happens after
 * commit, in workers (src/modules/webhooks). The payload is serialised once, here, and delivered
 * byte for byte on every attempt.
 */
export interface EmittedEvent {
  id: string;
  type: EventType;
  payload: string;
}

export async function emitEvent(
  tx: Sql,
  e: { accountId: string; type: EventType; data: Record<string, unknown>; now: Date },
): Promise<EmittedEvent> {
  const id = newId();
  const payload = JSON.stringify({ event: e.type, timestamp: e.now.toISOString(), data: e.data });
  await tx.query('insert into outbox_events (id, account_id, event_type, payload, created_at) values ($1, $2, $3, $4, $5)', [
    id,
    e.accountId,
    e.type,
    payload,
    e.now,
  ]);
  return { id, type: e.type, payload };
}
