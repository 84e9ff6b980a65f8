import type { Sql } from '../../db/types.ts';

/**
 * Who did a change, built by the route from its request (docs/audit.md): services receive it as
 * an explicit argument and know nothing of HTTP. `label` is a member's e-mail or an API key's
 * display prefix, never a key; `livemode` is the mode the caller acts in.
 */
export interface AuditActor {
  type: 'member' | 'api_key' | 'system';
  id: string | null;
  label: string;
  ip: string | null;
  userAgent: string | null;
  livemode: boolean;
}

/** What changed. `details` holds only non-secret facts (names, ids, states); it is filtered again on write. */
export interface AuditChange {
  accountId: string;
  action: string;
  target: { type: string; id: string | null };
  details?: Record<string, unknown>;
}

/** Records one change inside the transaction that makes it (`tx`), so both commit or neither does. */
export type RecordAuditIn = (tx: Sql, actor: AuditActor | undefined, change: AuditChange) => Promise<void>;

/** What a service is handed: record inside its transaction, or (where it has none) on its own. */
export interface AuditRecorder {
  recordIn: RecordAuditIn;
  record(actor: AuditActor | undefined, change: AuditChange): Promise<void>;
}

/** A change made by the service itself (a CLI command, a background job). */
export const SYSTEM_ACTOR: AuditActor = { type: 'system', id: null, label: 'system', ip: null, userAgent: null, livemode: true };
