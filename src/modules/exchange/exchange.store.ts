import type { Sql } from '../../db/types.ts';
import { cursorCondition, type Cursor } from '../../lib/pagination.ts';

/**
 * The outbox's deliveries (docs/exchange.md): each names its subject — a kind the owning module
 * chose and that module's id, with an opaque detail — and never a document's columns; and the
 * embedded default's local mailbox.
 * Every query is scoped by account (another account's row is never found). Functions take the
 * caller's `Sql`: a transaction or the pool, never a transaction of their own.
 */
export const DELIVERY_STATUSES = ['pending', 'sent', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export type DeliveryTransport = 'smtp' | 'mailbox';

/** What a delivery is about, in its owner's words: `kind` (e.g. dte) and the owner's id. */
export interface Subject {
  kind: string;
  id: string;
}
/** What the owner keeps beside the subject's id (flat, JSON): read back unchanged, never interpreted here. */
export type SubjectDetail = Record<string, string | number | null>;

export interface DeliveryRow {
  id: string;
  account_id: string;
  tenant_id: string;
  subject_kind: string;
  subject_id: string;
  subject_detail: SubjectDetail | string | null;
  /** Why the owner wrote it (its own word, e.g. accepted, resend). */
  trigger: string;
  status: DeliveryStatus;
  skip_reason: string | null;
  recipient: string | null;
  transport: DeliveryTransport | null;
  attempts: number;
  max_attempts: number;
  last_error_code: string | null;
  last_error_message: string | null;
  message_id: string | null;
  smtp_response: string | null;
  next_attempt_at: Date | null;
  sent_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewDelivery {
  id: string;
  accountId: string;
  tenantId: string;
  subject: Subject;
  detail: SubjectDetail | null;
  /** Unique within the account when given: a second insert with it writes nothing. */
  onceKey: string | null;
  trigger: string;
  status: 'pending' | 'skipped';
  skipReason: string | null;
  recipient: string | null;
  maxAttempts: number;
  now: Date;
}

export interface MailboxRow {
  id: string;
  account_id: string;
  tenant_id: string;
  delivery_id: string;
  subject_kind: string;
  subject_id: string;
  message_id: string;
  from_address: string;
  to_address: string;
  subject: string;
  size: number;
  created_at: Date;
  attachments: { idx: number; filename: string; contentType: string; size: number }[];
}

export interface NewMailboxMessage {
  id: string;
  accountId: string;
  tenantId: string;
  deliveryId: string;
  messageId: string;
  from: string;
  to: string;
  subject: string;
  raw: Buffer;
  attachments: { filename: string; contentType: string; content: Buffer }[];
  now: Date;
}

const DELIVERY_COLS = `id, account_id, tenant_id, subject_kind, subject_id, subject_detail, trigger, status, skip_reason, recipient, transport, attempts, max_attempts,
  last_error_code, last_error_message, message_id, smtp_response, next_attempt_at, sent_at, created_at, updated_at`;

const MAILBOX_SELECT = `select m.id, m.account_id, m.tenant_id, m.delivery_id, d.subject_kind, d.subject_id, m.message_id, m.from_address, m.to_address, m.subject,
    octet_length(m.raw) as size, m.created_at,
    coalesce((select json_agg(json_build_object('idx', a.idx, 'filename', a.filename, 'contentType', a.content_type,
        'size', octet_length(a.content)) order by a.idx)
      from exchange_mailbox_attachments a where a.mailbox_id = m.id), '[]'::json) as attachments
  from exchange_mailbox m join exchange_deliveries d on d.id = m.delivery_id and d.account_id = m.account_id`;

export const exchangeStore = {
  /** Returns false when a delivery with the same once key is there already (exchange_deliveries_once). */
  async insertDelivery(tx: Sql, d: NewDelivery): Promise<boolean> {
    const r = await tx.query(
      `insert into exchange_deliveries (id, account_id, tenant_id, subject_kind, subject_id, subject_detail, once_key, trigger, status,
         skip_reason, recipient, max_attempts, next_attempt_at, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12, case when $9 = 'pending' then $13::timestamptz end, $13, $13)
       on conflict do nothing`,
      [
        d.id,
        d.accountId,
        d.tenantId,
        d.subject.kind,
        d.subject.id,
        d.detail ? JSON.stringify(d.detail) : null,
        d.onceKey,
        d.trigger,
        d.status,
        d.skipReason,
        d.recipient,
        d.maxAttempts,
        d.now,
      ],
    );
    return r.rowCount === 1;
  },

  async get(sql: Sql, accountId: string, id: string): Promise<DeliveryRow | undefined> {
    const r = await sql.query<DeliveryRow>(`select ${DELIVERY_COLS} from exchange_deliveries where account_id = $1 and id = $2`, [
      accountId,
      id,
    ]);
    return r.rows[0];
  },

  /** A subject's deliveries within one tenant, oldest first. */
  async ofSubject(sql: Sql, accountId: string, tenantId: string, subject: Subject): Promise<DeliveryRow[]> {
    const r = await sql.query<DeliveryRow>(
      `select ${DELIVERY_COLS} from exchange_deliveries
       where account_id = $1 and tenant_id = $2 and subject_kind = $3 and subject_id = $4 order by created_at, id`,
      [accountId, tenantId, subject.kind, subject.id],
    );
    return r.rows;
  },

  /** A pending delivery found to have nothing to send after all (its composer said why). */
  async recordSkipped(sql: Sql, u: { id: string; accountId: string; reason: string; now: Date }): Promise<void> {
    await sql.query(
      `update exchange_deliveries set status = 'skipped', skip_reason = $3, next_attempt_at = null, updated_at = $4
       where account_id = $1 and id = $2 and status = 'pending'`,
      [u.accountId, u.id, u.reason, u.now],
    );
  },

  /** An attempt that will be made again: its count, its error, and when. */
  async recordRetry(
    sql: Sql,
    u: { id: string; accountId: string; attempts: number; code: string; message: string; nextAttemptAt: Date; now: Date },
  ): Promise<void> {
    await sql.query(
      `update exchange_deliveries set attempts = $3, last_error_code = $4, last_error_message = $5, next_attempt_at = $6, updated_at = $7
       where account_id = $1 and id = $2 and status = 'pending'`,
      [u.accountId, u.id, u.attempts, u.code, u.message, u.nextAttemptAt, u.now],
    );
  },

  async recordFailed(
    sql: Sql,
    u: { id: string; accountId: string; attempts: number; code: string; message: string; now: Date },
  ): Promise<void> {
    await sql.query(
      `update exchange_deliveries set status = 'failed', attempts = $3, last_error_code = $4, last_error_message = $5,
         next_attempt_at = null, updated_at = $6
       where account_id = $1 and id = $2 and status = 'pending'`,
      [u.accountId, u.id, u.attempts, u.code, u.message, u.now],
    );
  },

  async recordSent(
    sql: Sql,
    u: {
      id: string;
      accountId: string;
      attempts: number;
      transport: DeliveryTransport;
      messageId: string;
      response: string | null;
      now: Date;
    },
  ): Promise<void> {
    await sql.query(
      `update exchange_deliveries set status = 'sent', attempts = $3, transport = $4, message_id = $5, smtp_response = $6,
         next_attempt_at = null, sent_at = $7, updated_at = $7
       where account_id = $1 and id = $2 and status = 'pending'`,
      [u.accountId, u.id, u.attempts, u.transport, u.messageId, u.response, u.now],
    );
  },

  /** Once per delivery: a second call for the same delivery (a job run again) changes nothing. */
  async insertMailbox(tx: Sql, m: NewMailboxMessage): Promise<void> {
    const r = await tx.query(
      `insert into exchange_mailbox (id, account_id, tenant_id, delivery_id, message_id, from_address, to_address, subject, raw, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict (delivery_id) do nothing`,
      [m.id, m.accountId, m.tenantId, m.deliveryId, m.messageId, m.from, m.to, m.subject, m.raw, m.now],
    );
    if (r.rowCount !== 1) return;
    for (const [idx, a] of m.attachments.entries()) {
      await tx.query(
        `insert into exchange_mailbox_attachments (mailbox_id, idx, filename, content_type, content) values ($1, $2, $3, $4, $5)`,
        [m.id, idx, a.filename, a.contentType, a.content],
      );
    }
  },

  async listMailbox(sql: Sql, accountId: string, q: { limit: number; cursor: Cursor | undefined }): Promise<MailboxRow[]> {
    const c = cursorCondition(q.cursor, 3, 'm');
    const r = await sql.query<MailboxRow>(
      `${MAILBOX_SELECT} where m.account_id = $1 and ${c.sql} order by m.created_at desc, m.id desc limit $2`,
      [accountId, q.limit + 1, ...c.params],
    );
    return r.rows.map(normaliseMailbox);
  },

  async mailboxOfDelivery(sql: Sql, accountId: string, deliveryIds: readonly string[]): Promise<MailboxRow[]> {
    if (deliveryIds.length === 0) return [];
    const r = await sql.query<MailboxRow>(`${MAILBOX_SELECT} where m.account_id = $1 and m.delivery_id = any($2::uuid[])`, [
      accountId,
      deliveryIds,
    ]);
    return r.rows.map(normaliseMailbox);
  },

  async getMailbox(sql: Sql, accountId: string, id: string): Promise<MailboxRow | undefined> {
    const r = await sql.query<MailboxRow>(`${MAILBOX_SELECT} where m.account_id = $1 and m.id = $2`, [accountId, id]);
    return r.rows[0] ? normaliseMailbox(r.rows[0]) : undefined;
  },

  async mailboxRaw(sql: Sql, accountId: string, id: string): Promise<Buffer | undefined> {
    const r = await sql.query<{ raw: Buffer }>(`select raw from exchange_mailbox where account_id = $1 and id = $2`, [accountId, id]);
    return r.rows[0] ? Buffer.from(r.rows[0].raw) : undefined;
  },

  async mailboxAttachment(
    sql: Sql,
    accountId: string,
    id: string,
    idx: number,
  ): Promise<{ filename: string; content_type: string; content: Buffer } | undefined> {
    const r = await sql.query<{ filename: string; content_type: string; content: Buffer }>(
      `select a.filename, a.content_type, a.content from exchange_mailbox_attachments a
       join exchange_mailbox m on m.id = a.mailbox_id
       where m.account_id = $1 and a.mailbox_id = $2 and a.idx = $3`,
      [accountId, id, idx],
    );
    const row = r.rows[0];
    return row ? { ...row, content: Buffer.from(row.content) } : undefined;
  },
};

// json_agg comes back parsed on both drivers; octet_length as a number or a numeric string.
function normaliseMailbox(r: MailboxRow): MailboxRow {
  const attachments = (typeof r.attachments === 'string' ? JSON.parse(r.attachments) : r.attachments) as MailboxRow['attachments'];
  return { ...r, size: Number(r.size), attachments: attachments.map((a) => ({ ...a, size: Number(a.size) })) };
}
