import type { Sql } from '../../../db/types.ts';
import type { SignatureScheme } from '../signing.ts';

/**
 * SQL of the delivery worker. Not scoped by account: the worker serves every account, and each
 * row it touches was found through a delivery id it holds a lease on.
 */
export interface ClaimedDelivery {
  id: string;
  lease_id: string;
}

/** A leased delivery with what sending it needs; the endpoint columns are null once it is deleted. */
export interface LoadedDelivery {
  id: string;
  account_id: string;
  message_id: string;
  endpoint_id: string;
  attempt_count: number;
  payload: string;
  event_type: string;
  url: string | null;
  signature_scheme: SignatureScheme | null;
  secret_enc: Buffer | null;
  previous_secret_enc: Buffer | null;
  previous_secret_expires_at: Date | null;
  disabled: boolean | null;
}

export interface AttemptRecord {
  deliveryId: string;
  leaseId: string;
  status: 'succeeded' | 'failed';
  /** The delivery's state after this attempt. */
  deliveryStatus: 'succeeded' | 'failed' | 'pending';
  nextAttemptAt: Date | null;
  responseStatusCode: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  attemptedAt: Date;
  now: Date;
}

export interface AttemptOutcome {
  deliveryId: string;
  attemptNumber: number;
  endpointId: string;
  /** Start of the endpoint's failing run after this batch (null: not failing). */
  failingSince: Date | null;
}

/**
 * Joined into the worker's own bookkeeping statements (leases, outcomes): that one commit does not
 * wait for its WAL flush. Only a crash of the database server can lose such a commit (its last few
 * hundred ms), and losing one is safe: a lost lease or outcome leaves the delivery pending, so it is
 * sent again with the same webhook-id (a duplicate, never a loss), and a later commit that was
 * flushed implies every earlier one was. The events themselves (outbox rows, written by the
 * changes that caused them) keep synchronous commits.
 */
export const NO_FLUSH_WAIT = `select set_config('synchronous_commit', 'off', true) as off`;

export const deliveriesStore = {
  /**
   * Leases up to `limit` due deliveries. Per endpoint it takes at most `free` of the endpoint's due
   * deliveries (`slots`: what this process has left under its per-endpoint limit; an endpoint not
   * listed has `perEndpoint`), oldest first, so one slow receiver cannot take every slot. A delivery
   * whose lease expired (its worker died) is due again. Rows another worker is leasing at the same
   * moment are skipped (SKIP LOCKED), not waited for. One statement, committed on its own before
   * anything is sent.
   */
  async claim(
    tx: Sql,
    o: { limit: number; slots: Map<string, number>; perEndpoint: number; now: Date; leaseMs: number; leaseId: string },
  ): Promise<ClaimedDelivery[]> {
    const r = await tx.query<ClaimedDelivery>(
      `with s as (${NO_FLUSH_WAIT}),
       c as (
         update webhook_deliveries d set locked_until = $2::timestamptz + ($3::int * interval '1 millisecond'), lease_id = $4
         where d.id in (
           select id from webhook_deliveries
           where id in (
             select id from (
               select w.id, w.next_attempt_at,
                      row_number() over (partition by w.endpoint_id order by w.next_attempt_at, w.id) as rn,
                      coalesce(f.free, $7) as free
               from webhook_deliveries w
               left join unnest($5::uuid[], $6::int[]) as f(endpoint_id, free) on f.endpoint_id = w.endpoint_id
               where w.status = 'pending' and w.next_attempt_at <= $2 and (w.locked_until is null or w.locked_until < $2)
             ) x where rn <= free order by next_attempt_at, id limit $1)
             and status = 'pending' and next_attempt_at <= $2 and (locked_until is null or locked_until < $2)
           for update skip locked)
         returning d.id, d.lease_id)
       select c.id, c.lease_id from c cross join s`,
      [o.limit, o.now, o.leaseMs, o.leaseId, [...o.slots.keys()], [...o.slots.values()], o.perEndpoint],
    );
    return r.rows;
  },
  async load(tx: Sql, ids: string[]): Promise<LoadedDelivery[]> {
    const r = await tx.query<LoadedDelivery>(
      `select d.id, d.account_id, d.message_id, d.endpoint_id, d.attempt_count, m.payload, m.event_type,
              e.url, e.signature_scheme, e.secret_enc, e.previous_secret_enc, e.previous_secret_expires_at, e.disabled
       from webhook_deliveries d
       join webhook_messages m on m.id = d.message_id
       left join webhook_endpoints e on e.id = d.endpoint_id
       where d.id = any($1::uuid[])`,
      [ids],
    );
    return r.rows;
  },
  /** Ends a lease without an attempt (endpoint deleted or disabled before the send). */
  async abandon(tx: Sql, id: string, leaseId: string, status: 'failed' | 'cancelled', reason: string, now: Date): Promise<void> {
    await tx.query(
      `update webhook_deliveries set status = $3, last_error = $4, locked_until = null, lease_id = null, updated_at = $5
       where id = $1 and lease_id = $2`,
      [id, leaseId, status, reason, now],
    );
  },
  /**
   * Records a batch of attempts, each only if its worker still holds the lease: the delivery's next
   * state, the attempt row, and the failing run of each endpoint involved (cleared by any success in
   * the batch, else started by its failures), in one statement, so they are atomic without a
   * transaction round trip. Returns one outcome per attempt recorded; an attempt whose lease was
   * lost (another worker took the delivery over after the lease ran out, and records its own
   * attempt) is left out. A success always wins; a failure does not revive a delivery that was
   * cancelled or failed by a disable meanwhile. `failingSince` is the start of the endpoint's
   * failing run.
   */
  async recordAttempts(sql: Sql, batch: AttemptRecord[]): Promise<AttemptOutcome[]> {
    if (batch.length === 0) return [];
    const rows = batch.map((a) => ({
      delivery_id: a.deliveryId,
      lease_id: a.leaseId,
      status: a.status,
      delivery_status: a.deliveryStatus,
      next_attempt_at: a.nextAttemptAt?.toISOString() ?? null,
      code: a.responseStatusCode,
      body: a.responseBody,
      error: a.error,
      duration_ms: a.durationMs,
      attempted_at: a.attemptedAt.toISOString(),
      now: a.now.toISOString(),
    }));
    const r = await sql.query<{ id: string; attempt_count: number; endpoint_id: string; failing_since: Date | null }>(
      `with s as (${NO_FLUSH_WAIT}),
       i as (
         select * from jsonb_to_recordset($1::jsonb) as x(delivery_id uuid, lease_id uuid, status text, delivery_status text,
           next_attempt_at timestamptz, code int, body text, error text, duration_ms int, attempted_at timestamptz, now timestamptz)),
       d as (
         update webhook_deliveries w set
           status = case when i.delivery_status = 'succeeded' then 'succeeded' when w.status = 'pending' then i.delivery_status else w.status end,
           attempt_count = w.attempt_count + 1,
           next_attempt_at = case when i.delivery_status = 'pending' and w.status = 'pending' then i.next_attempt_at else w.next_attempt_at end,
           locked_until = null, lease_id = null, last_error = i.error, updated_at = i.now
         from i where w.id = i.delivery_id and w.lease_id = i.lease_id
         returning w.id, w.attempt_count, w.account_id, w.message_id, w.endpoint_id),
       a as (
         insert into webhook_attempts (id, account_id, message_id, delivery_id, endpoint_id, attempt_number, status,
           response_status_code, response_body, error, duration_ms, attempted_at, next_attempt_at)
         select gen_random_uuid(), d.account_id, d.message_id, d.id, d.endpoint_id, d.attempt_count, i.status,
           i.code, i.body, i.error, i.duration_ms, i.attempted_at, case when i.delivery_status = 'pending' then i.next_attempt_at end
         from d join i on i.delivery_id = d.id),
       h as (
         select d.endpoint_id, bool_or(i.status = 'succeeded') as ok, min(i.now) as now
         from d join i on i.delivery_id = d.id group by d.endpoint_id),
       e as (
         update webhook_endpoints w set failing_since = case when h.ok then null else coalesce(w.failing_since, h.now) end
         from h where w.id = h.endpoint_id and (not h.ok or w.failing_since is not null)
         returning w.id, w.failing_since)
       select d.id, d.attempt_count, d.endpoint_id, e.failing_since from d left join e on e.id = d.endpoint_id cross join s`,
      [JSON.stringify(rows)],
    );
    return r.rows.map((d) => ({
      deliveryId: d.id,
      attemptNumber: d.attempt_count,
      endpointId: d.endpoint_id,
      failingSince: d.failing_since,
    }));
  },
};
