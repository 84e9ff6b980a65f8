import type { Sql } from '../../db/types.ts';
import { cursorCondition, type Cursor } from '../../lib/pagination.ts';

export interface AuditEventRow {
  id: string;
  account_id: string;
  livemode: boolean;
  actor_type: 'member' | 'api_key' | 'system';
  actor_id: string | null;
  actor_label: string;
  action: string;
  target_type: string;
  target_id: string | null;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
  created_at: Date;
}

export interface AuditFilter {
  /** A member's e-mail or id, or an API key's prefix or id. */
  actor?: string | undefined;
  /** An exact action (`tenant.created`), or a prefix ending in a dot (`tenant.`). */
  action?: string | undefined;
  since?: Date | undefined;
  until?: Date | undefined;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export const auditStore = {
  async insert(tx: Sql, e: Omit<AuditEventRow, 'details'> & { details: Record<string, unknown> }) {
    await tx.query(
      `insert into audit_events (id, account_id, livemode, actor_type, actor_id, actor_label, action, target_type, target_id,
         ip, user_agent, details, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13)`,
      [
        e.id,
        e.account_id,
        e.livemode,
        e.actor_type,
        e.actor_id,
        e.actor_label,
        e.action,
        e.target_type,
        e.target_id,
        e.ip,
        e.user_agent,
        JSON.stringify(e.details),
        e.created_at,
      ],
    );
  },
  /** One account's events, newest first; `limit + 1` rows so the caller knows whether more follow. */
  async list(tx: Sql, accountId: string, f: AuditFilter, page: { limit: number; cursor?: Cursor | undefined }) {
    const params: unknown[] = [accountId, page.limit + 1];
    const where = ['account_id = $1'];
    const add = (sql: (n: number) => string, v: unknown) => {
      params.push(v);
      where.push(sql(params.length));
    };
    if (f.actor !== undefined) add((n) => `(lower(actor_label) = lower($${n}) or actor_id = $${n})`, f.actor);
    if (f.action !== undefined) {
      if (f.action.endsWith('.')) add((n) => `action like $${n}`, `${escapeLike(f.action)}%`);
      else add((n) => `action = $${n}`, f.action);
    }
    if (f.since !== undefined) add((n) => `created_at >= $${n}`, f.since);
    if (f.until !== undefined) add((n) => `created_at < $${n}`, f.until);
    const c = cursorCondition(page.cursor, params.length + 1);
    params.push(...c.params);
    const r = await tx.query<AuditEventRow>(
      `select * from audit_events where ${where.join(' and ')} and ${c.sql} order by created_at desc, id desc limit $2`,
      params,
    );
    return r.rows;
  },
  /** Retention: events older than `cutoff` go, in batches so no transaction grows large. */
  async deleteOlderThan(tx: Sql, cutoff: Date, batch: number) {
    const r = await tx.query(`delete from audit_events where id in (select id from audit_events where created_at < $1 limit $2)`, [
      cutoff,
      batch,
    ]);
    return r.rowCount;
  },
};
