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

export const deliveriesStore = {
  /**
   * Leases up to `limit` due deliveries, at most one per endpoint per call and none for the
   * endpoints in `busy` (those already at this process's per-endpoint limit), so one slow
   * receiver cannot take every slot. A delivery whose lease expired (its worker died) is due again.
   */
  async claim(tx: Sql, o: { limit: number; busy: string[]; now: Date; leaseMs: number; leaseId: string }): Promise<ClaimedDelivery[]> {
    const r = await tx.query<ClaimedDelivery>(
      `update webhook_deliveries d set locked_until = $3::timestamptz + ($4::int * interval '1 millisecond'), lease_id = $5
       where d.id in (
         select id from webhook_deliveries
         where id in (
           select id from (
             select id, next_attempt_at, row_number() over (partition by endpoint_id order by next_attempt_at, id) as rn
             from webhook_deliveries
             where status = 'pending' and next_attempt_at <= $3 and (locked_until is null or locked_until < $3)
               and endpoint_id <> all($2::uuid[])
           ) x where rn = 1 order by next_attempt_at limit $1)
           and status = 'pending' and next_attempt_at <= $3 and (locked_until is null or locked_until < $3)
         for update skip locked)
       returning d.id, d.lease_id`,
      [o.limit, o.busy, o.now, o.leaseMs, o.leaseId],
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
   * Records one attempt, if this worker still holds the lease: the delivery's next state, the
   * attempt row and the endpoint's failing run (cleared by a success, started by a failure), in
   * one statement, so they are atomic without a transaction round trip. Returns undefined when the
   * lease was lost (another worker took the delivery over after the lease ran out; it records its
   * own attempt). A success always wins; a failure does not revive a delivery that was cancelled or
   * failed by a disable meanwhile. `failingSince` is the start of the endpoint's failing run.
   */
  async recordAttempt(
    sql: Sql,
    a: AttemptRecord,
  ): Promise<{ attemptNumber: number; endpointId: string; failingSince: Date | null } | undefined> {
    const ok = a.status === 'succeeded';
    const r = await sql.query<{ attempt_count: number; endpoint_id: string; failing_since: Date | null }>(
      `with d as (
         update webhook_deliveries set
           status = case when $3 = 'succeeded' then 'succeeded' when status = 'pending' then $3 else status end,
           attempt_count = attempt_count + 1,
           next_attempt_at = case when $3 = 'pending' and status = 'pending' then $4::timestamptz else next_attempt_at end,
           locked_until = null, lease_id = null, last_error = $5, updated_at = $6
         where id = $1 and lease_id = $2
         returning id, attempt_count, account_id, message_id, endpoint_id),
       a as (
         insert into webhook_attempts (id, account_id, message_id, delivery_id, endpoint_id, attempt_number, status,
           response_status_code, response_body, error, duration_ms, attempted_at, next_attempt_at)
         select gen_random_uuid(), d.account_id, d.message_id, d.id, d.endpoint_id, d.attempt_count, $7,
           $8, $9, $5, $10, $11, $12 from d
         returning 1),
       e as (
         update webhook_endpoints set failing_since = case when $13::boolean then null else coalesce(failing_since, $6) end
         where id = (select endpoint_id from d) and ($13::boolean is false or failing_since is not null)
         returning failing_since)
       select d.attempt_count, d.endpoint_id, (select failing_since from e) as failing_since, (select count(*) from a) as inserted from d`,
      [
        a.deliveryId,
        a.leaseId,
        a.deliveryStatus,
        a.nextAttemptAt,
        a.error,
        a.now,
        a.status,
        a.responseStatusCode,
        a.responseBody,
        a.durationMs,
        a.attemptedAt,
        a.deliveryStatus === 'pending' ? a.nextAttemptAt : null,
        ok,
      ],
    );
    const d = r.rows[0];
    if (!d) return undefined;
    return { attemptNumber: d.attempt_count, endpointId: d.endpoint_id, failingSince: d.failing_since };
  },
};
