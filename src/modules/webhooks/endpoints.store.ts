import type { Sql } from '../../db/types.ts';
import { cursorCondition, type Cursor } from '../../lib/pagination.ts';
import type { SignatureScheme } from './signing.ts';

export interface EndpointRow {
  id: string;
  account_id: string;
  url: string;
  description: string | null;
  filter_types: string[];
  signature_scheme: SignatureScheme;
  secret_enc: Buffer;
  previous_secret_enc: Buffer | null;
  previous_secret_expires_at: Date | null;
  disabled: boolean;
  disabled_reason: string | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type DisabledReason = 'manual' | 'gone' | 'failing';

export interface EndpointPatch {
  url?: string;
  description?: string | null;
  filterTypes?: string[];
  signatureScheme?: SignatureScheme;
}

/** Every query is scoped by account: another account's endpoint simply does not exist here. */
export const endpointsStore = {
  async insert(
    tx: Sql,
    e: {
      id: string;
      accountId: string;
      url: string;
      description: string | null;
      filterTypes: string[];
      scheme: SignatureScheme;
      secretEnc: Buffer;
      now: Date;
    },
  ): Promise<EndpointRow> {
    const r = await tx.query<EndpointRow>(
      `insert into webhook_endpoints (id, account_id, url, description, filter_types, signature_scheme, secret_enc, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $8) returning *`,
      [e.id, e.accountId, e.url, e.description, JSON.stringify(e.filterTypes), e.scheme, e.secretEnc, e.now],
    );
    return r.rows[0]!;
  },
  async get(tx: Sql, accountId: string, id: string, opts: { forUpdate?: boolean } = {}): Promise<EndpointRow | undefined> {
    const r = await tx.query<EndpointRow>(
      `select * from webhook_endpoints where account_id = $1 and id::text = $2${opts.forUpdate ? ' for update' : ''}`,
      [accountId, id],
    );
    return r.rows[0];
  },
  async count(tx: Sql, accountId: string): Promise<number> {
    const r = await tx.query<{ n: number }>('select count(*)::int as n from webhook_endpoints where account_id = $1', [accountId]);
    return r.rows[0]!.n;
  },
  async list(tx: Sql, accountId: string, opts: { limit: number; cursor?: Cursor | undefined }): Promise<EndpointRow[]> {
    const c = cursorCondition(opts.cursor, 3, 'e');
    const r = await tx.query<EndpointRow>(
      `select e.* from webhook_endpoints e where e.account_id = $1 and ${c.sql}
       order by e.created_at desc, e.id desc limit $2`,
      [accountId, opts.limit + 1, ...c.params],
    );
    return r.rows;
  },
  async update(tx: Sql, accountId: string, id: string, p: EndpointPatch, now: Date): Promise<EndpointRow | undefined> {
    const r = await tx.query<EndpointRow>(
      `update webhook_endpoints set
         url = coalesce($3, url),
         description = case when $4::boolean then $5 else description end,
         filter_types = coalesce($6::jsonb, filter_types),
         signature_scheme = coalesce($7, signature_scheme),
         updated_at = $8
       where account_id = $1 and id::text = $2 returning *`,
      [
        accountId,
        id,
        p.url ?? null,
        p.description !== undefined,
        p.description ?? null,
        p.filterTypes ? JSON.stringify(p.filterTypes) : null,
        p.signatureScheme ?? null,
        now,
      ],
    );
    return r.rows[0];
  },
  async setSecret(
    tx: Sql,
    accountId: string,
    id: string,
    s: { secretEnc: Buffer; previousEnc: Buffer | null; previousExpiresAt: Date | null; now: Date },
  ): Promise<void> {
    await tx.query(
      `update webhook_endpoints set secret_enc = $3, previous_secret_enc = $4, previous_secret_expires_at = $5, updated_at = $6
       where account_id = $1 and id::text = $2`,
      [accountId, id, s.secretEnc, s.previousEnc, s.previousExpiresAt, s.now],
    );
  },
  async remove(tx: Sql, accountId: string, id: string): Promise<boolean> {
    const r = await tx.query('delete from webhook_endpoints where account_id = $1 and id::text = $2', [accountId, id]);
    return r.rowCount > 0;
  },
  /**
   * Disables an endpoint and fails its pending deliveries that are not in flight (in-flight ones
   * record their own outcome). No account scope: the delivery worker calls it for a row it loaded.
   */
  async disable(tx: Sql, id: string, reason: DisabledReason, now: Date): Promise<void> {
    await tx.query(
      `update webhook_endpoints set disabled = true, disabled_reason = $2, disabled_at = $3, updated_at = $3
       where id = $1 and not disabled`,
      [id, reason, now],
    );
    await tx.query(
      `update webhook_deliveries set status = 'failed', last_error = $2, locked_until = null, lease_id = null, updated_at = $3
       where endpoint_id = $1 and status = 'pending' and (locked_until is null or locked_until < $3)`,
      [id, `endpoint_disabled: ${reason}`, now],
    );
  },
  async enable(tx: Sql, accountId: string, id: string, now: Date): Promise<void> {
    await tx.query(
      `update webhook_endpoints set disabled = false, disabled_reason = null, disabled_at = null, failing_since = null, updated_at = $3
       where account_id = $1 and id::text = $2`,
      [accountId, id, now],
    );
  },
};
