import type { Sql } from '../../db/types.ts';
import { cursorCondition, type Cursor } from '../../lib/pagination.ts';
import { OUTBOX_CHANNEL, outboxWritten } from '../../events/outbox.ts';

export interface MessageRow {
  id: string;
  account_id: string;
  event_type: string;
  payload: string;
  created_at: Date;
}

export interface AttemptRow {
  message_id: string;
  endpoint_id: string;
  attempt_number: number;
  status: 'succeeded' | 'failed';
  response_status_code: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
  attempted_at: Date;
  next_attempt_at: Date | null;
}

export interface DeliveryCounts {
  message_id: string;
  pending: boolean;
  failed: boolean;
  succeeded: boolean;
  cancelled: boolean;
}

/** Messages, their deliveries and the attempt log; every read is scoped by account. */
export const messagesStore = {
  async insertMessage(tx: Sql, m: { id: string; accountId: string; eventType: string; payload: string; createdAt: Date }): Promise<void> {
    await tx.query('insert into webhook_messages (id, account_id, event_type, payload, created_at) values ($1, $2, $3, $4, $5)', [
      m.id,
      m.accountId,
      m.eventType,
      m.payload,
      m.createdAt,
    ]);
  },
  /** One pending delivery per endpoint, due at `dueAt`. */
  async insertDeliveries(
    tx: Sql,
    rows: { id: string; accountId: string; messageId: string; endpointId: string }[],
    dueAt: Date,
    now: Date,
  ): Promise<void> {
    if (rows.length === 0) return;
    // With its NOTIFY, sent at commit, so the workers wake at once (delivery/wake.ts).
    await tx.query(
      `with i as (
         insert into webhook_deliveries (id, account_id, message_id, endpoint_id, status, next_attempt_at, created_at, updated_at)
         select d.id::uuid, d.account_id::uuid, d.message_id::uuid, d.endpoint_id::uuid, 'pending', $2, $3, $3
         from jsonb_to_recordset($1::jsonb) as d(id text, account_id text, message_id text, endpoint_id text)
         returning 1)
       select pg_notify('${OUTBOX_CHANNEL}', '') from i limit 1`,
      [
        JSON.stringify(rows.map((r) => ({ id: r.id, account_id: r.accountId, message_id: r.messageId, endpoint_id: r.endpointId }))),
        dueAt,
        now,
      ],
    );
    outboxWritten();
  },
  async get(tx: Sql, accountId: string, id: string): Promise<MessageRow | undefined> {
    const r = await tx.query<MessageRow>('select * from webhook_messages where account_id = $1 and id::text = $2', [accountId, id]);
    return r.rows[0];
  },
  async list(
    tx: Sql,
    accountId: string,
    o: { limit: number; cursor?: Cursor | undefined; eventType?: string | undefined; endpointId?: string | undefined },
  ): Promise<MessageRow[]> {
    const c = cursorCondition(o.cursor, 5, 'm');
    const r = await tx.query<MessageRow>(
      `select m.* from webhook_messages m
       where m.account_id = $1 and ($3::text is null or m.event_type = $3)
         and ($4::text is null or exists (
           select 1 from webhook_deliveries d where d.message_id = m.id and d.account_id = $1 and d.endpoint_id::text = $4))
         and ${c.sql}
       order by m.created_at desc, m.id desc limit $2`,
      [accountId, o.limit + 1, o.eventType ?? null, o.endpointId ?? null, ...c.params],
    );
    return r.rows;
  },
  async attemptsFor(tx: Sql, accountId: string, messageIds: string[]): Promise<AttemptRow[]> {
    if (messageIds.length === 0) return [];
    const r = await tx.query<AttemptRow>(
      `select message_id, endpoint_id, attempt_number, status, response_status_code, response_body, error, duration_ms,
              attempted_at, next_attempt_at
       from webhook_attempts where account_id = $1 and message_id = any($2::uuid[])
       order by attempted_at, attempt_number`,
      [accountId, messageIds],
    );
    return r.rows;
  },
  async deliveryCountsFor(tx: Sql, accountId: string, messageIds: string[]): Promise<DeliveryCounts[]> {
    if (messageIds.length === 0) return [];
    const r = await tx.query<DeliveryCounts>(
      `select message_id, bool_or(status = 'pending') as pending, bool_or(status = 'failed') as failed,
              bool_or(status = 'succeeded') as succeeded, bool_or(status = 'cancelled') as cancelled
       from webhook_deliveries where account_id = $1 and message_id = any($2::uuid[]) group by message_id`,
      [accountId, messageIds],
    );
    return r.rows;
  },
  /** Stops what has not been sent yet to a deleted endpoint (in-flight attempts finish on their own). */
  async cancelPendingFor(tx: Sql, accountId: string, endpointId: string, now: Date): Promise<void> {
    await tx.query(
      `update webhook_deliveries set status = 'cancelled', last_error = 'endpoint_deleted', updated_at = $3
       where account_id = $1 and endpoint_id::text = $2 and status = 'pending'`,
      [accountId, endpointId, now],
    );
  },
};
