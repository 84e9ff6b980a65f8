import type { Db, Sql } from '../../db/types.ts';
import { errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { decodeIterator, toPage, type Page } from '../../lib/pagination.ts';
import { newId } from '../../lib/tokens.ts';
import { cleanDetails } from './audit.details.ts';
import { auditStore, type AuditEventRow, type AuditFilter } from './audit.store.ts';
import { SYSTEM_ACTOR, type AuditActor, type AuditChange, type AuditRecorder } from './audit.types.ts';

/** The view of one event (GET /api/v1/audit-events, the dashboard page, its CSV). */
export interface AuditEvent {
  id: string;
  action: string;
  actor: { type: AuditActor['type']; id: string | null; label: string };
  target: { type: string; id: string | null };
  ip: string | null;
  userAgent: string | null;
  details: Record<string, unknown>;
  livemode: boolean;
  createdAt: string;
}

export const toAuditEvent = (r: AuditEventRow): AuditEvent => ({
  id: r.id,
  action: r.action,
  actor: { type: r.actor_type, id: r.actor_id, label: r.actor_label },
  target: { type: r.target_type, id: r.target_id },
  ip: r.ip,
  userAgent: r.user_agent,
  details: r.details,
  livemode: r.livemode,
  createdAt: r.created_at.toISOString(),
});

const USER_AGENT_MAX = 256;
const ACTION_RE = /^[a-z_]+(\.[a-z_]+)*\.?$/;

export interface AuditQuery {
  actor?: string | undefined;
  action?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

function instant(v: string | undefined, param: string): Date | undefined {
  if (v === undefined || v === '') return undefined;
  const d = new Date(v);
  if (Number.isNaN(d.getTime()))
    throw errors.invalid('invalid_audit_filter', `${param} must be an ISO 8601 date-time, like 2026-12-05T12:00:00Z.`, { param });
  return d;
}

/** Checks and converts the filters of the list, the page and its CSV alike. */
export function auditFilter(q: AuditQuery): AuditFilter {
  const action = q.action?.trim() || undefined;
  if (action !== undefined && (action.length > 100 || !ACTION_RE.test(action)))
    throw errors.invalid('invalid_audit_filter', 'action must be an action like tenant.created, or a prefix ending in a dot like tenant.', {
      param: 'action',
    });
  const since = instant(q.since, 'since');
  const until = instant(q.until, 'until');
  if (since && until && since >= until)
    throw errors.invalid('invalid_audit_filter', 'since must be earlier than until.', { param: 'since' });
  return { actor: q.actor?.trim() || undefined, action, since, until };
}

/**
 * The audit log (docs/audit.md). Services get `recorder` and call `recordIn(tx, actor, change)`
 * inside the transaction of the change; without an actor (a CLI command, a test calling the
 * service directly) the change is recorded as the system's.
 */
export function createAuditService(deps: {
  db: Db;
  clock: Clock;
  /**
   * The mode of the scope an event is kept under (src/modules/accounts/modes.ts): the event's mode is
   * where the change happened, whoever made it (a system change in test mode is a test event).
   */
  livemodeOf?: (scopeId: string, sql: Sql) => Promise<boolean | undefined>;
}) {
  const { db, clock } = deps;
  const recordIn = async (tx: Sql, actor: AuditActor | undefined, change: AuditChange) => {
    const a = actor ?? SYSTEM_ACTOR;
    const livemode = (await deps.livemodeOf?.(change.accountId, tx)) ?? a.livemode;
    await auditStore.insert(tx, {
      id: newId(),
      account_id: change.accountId,
      livemode,
      actor_type: a.type,
      actor_id: a.id,
      actor_label: a.label.slice(0, 320),
      action: change.action,
      target_type: change.target.type,
      target_id: change.target.id,
      ip: a.ip?.slice(0, 64) ?? null,
      user_agent: a.userAgent?.slice(0, USER_AGENT_MAX) ?? null,
      details: cleanDetails(change.details),
      created_at: clock.now(),
    });
  };
  const recorder: AuditRecorder = {
    recordIn,
    record: (actor, change) => db.transaction((tx) => recordIn(tx, actor, change)),
  };
  return {
    recorder,
    async list(accountId: string, q: AuditQuery & { limit: number; iterator?: string | undefined }): Promise<Page<AuditEvent>> {
      const cursor = decodeIterator(q.iterator);
      const rows = await auditStore.list(db, accountId, auditFilter(q), { limit: q.limit, cursor });
      return toPage(rows, q.limit, (r) => ({ createdAt: r.created_at.toISOString(), id: r.id }), toAuditEvent);
    },
    /** Deletes events older than `retentionDays` (AUDIT_RETENTION_DAYS); returns how many went. */
    async sweep(retentionDays: number, batch = 1000): Promise<number> {
      const cutoff = new Date(clock.now().getTime() - retentionDays * 86_400_000);
      let deleted = 0;
      for (;;) {
        const n = await auditStore.deleteOlderThan(db, cutoff, batch);
        deleted += n;
        if (n < batch) return deleted;
      }
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
