import type { Sql } from '../../db/types.ts';
import { cursorCondition, type Cursor } from '../../lib/pagination.ts';

/**
 * Deliveries of accepted documents to their receptors and of a tenant's signed answers to its
 * suppliers (kind respuesta), and the embedded default's local mailbox.
 * Every query is scoped by account (another account's row is never found). Functions take the
 * caller's `Sql`: a transaction or the pool, never a transaction of their own.
 */
export const DELIVERY_STATUSES = ['pending', 'sent', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
/** dte: accepted → resend; respuesta: recepcion (an upload's RespuestaEnvioDTE), accion (an acceptance or claim's answer). */
export type DeliveryTrigger = 'accepted' | 'resend' | 'recepcion' | 'accion';
export const DELIVERY_KINDS = ['dte', 'respuesta'] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];
export const RESPUESTA_TIPOS = ['RecepcionEnvio', 'ResultadoDTE', 'EnvioRecibos'] as const;
export type RespuestaTipo = (typeof RESPUESTA_TIPOS)[number];
export type DeliveryTransport = 'smtp' | 'mailbox';

export interface DeliveryRow {
  id: string;
  account_id: string;
  tenant_id: string;
  kind: DeliveryKind;
  /** kind dte: the document sent. */
  dte_id: string | null;
  /** kind respuesta: the upload whose RespuestaEnvioDTE it carries, or the received document and answer n. */
  received_envio_id: string | null;
  received_dte_id: string | null;
  accion_n: number | null;
  respuesta_tipo: RespuestaTipo | null;
  trigger: DeliveryTrigger;
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
  /** Default 'dte' (dteId); 'respuesta' names receivedEnvioId, or receivedDteId and accionN. */
  kind?: DeliveryKind;
  dteId: string | null;
  receivedEnvioId?: string | null;
  receivedDteId?: string | null;
  accionN?: number | null;
  respuestaTipo?: RespuestaTipo | null;
  trigger: DeliveryTrigger;
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
  dte_id: string | null;
  received_envio_id: string | null;
  received_dte_id: string | null;
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

const DELIVERY_COLS = `id, account_id, tenant_id, kind, dte_id, received_envio_id, received_dte_id, accion_n, respuesta_tipo, trigger, status, skip_reason, recipient, transport, attempts, max_attempts,
  last_error_code, last_error_message, message_id, smtp_response, next_attempt_at, sent_at, created_at, updated_at`;

const MAILBOX_SELECT = `select m.id, m.account_id, m.tenant_id, m.delivery_id, d.dte_id, d.received_envio_id, d.received_dte_id, m.message_id, m.from_address, m.to_address, m.subject,
    octet_length(m.raw) as size, m.created_at,
    coalesce((select json_agg(json_build_object('idx', a.idx, 'filename', a.filename, 'contentType', a.content_type,
        'size', octet_length(a.content)) order by a.idx)
      from exchange_mailbox_attachments a where a.mailbox_id = m.id), '[]'::json) as attachments
  from exchange_mailbox m join exchange_deliveries d on d.id = m.delivery_id and d.account_id = m.account_id`;

export const exchangeStore = {
  /** Returns false when the document already has its automatic delivery (exchange_deliveries_once). */
  async insertDelivery(tx: Sql, d: NewDelivery): Promise<boolean> {
    const r = await tx.query(
      `insert into exchange_deliveries (id, account_id, tenant_id, dte_id, trigger, status, skip_reason, recipient, max_attempts,
         next_attempt_at, created_at, updated_at, kind, received_envio_id, received_dte_id, accion_n, respuesta_tipo)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, case when $6 = 'pending' then $10::timestamptz end, $10, $10, $11, $12, $13, $14, $15)
       on conflict do nothing`,
      [
        d.id,
        d.accountId,
        d.tenantId,
        d.dteId,
        d.trigger,
        d.status,
        d.skipReason,
        d.recipient,
        d.maxAttempts,
        d.now,
        d.kind ?? 'dte',
        d.receivedEnvioId ?? null,
        d.receivedDteId ?? null,
        d.accionN ?? null,
        d.respuestaTipo ?? null,
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

  async getForUpdate(tx: Sql, accountId: string, id: string): Promise<DeliveryRow | undefined> {
    const r = await tx.query<DeliveryRow>(`select ${DELIVERY_COLS} from exchange_deliveries where account_id = $1 and id = $2 for update`, [
      accountId,
      id,
    ]);
    return r.rows[0];
  },

  /** A document's deliveries, oldest first. */
  async ofDte(sql: Sql, accountId: string, tenantId: string, dteId: string): Promise<DeliveryRow[]> {
    const r = await sql.query<DeliveryRow>(
      `select ${DELIVERY_COLS} from exchange_deliveries where account_id = $1 and tenant_id = $2 and dte_id = $3 order by created_at, id`,
      [accountId, tenantId, dteId],
    );
    return r.rows;
  },

  /** The answers sent to a supplier for one upload (its RespuestaEnvioDTE), oldest first. */
  async ofReceivedEnvio(sql: Sql, accountId: string, tenantId: string, envioId: string): Promise<DeliveryRow[]> {
    const r = await sql.query<DeliveryRow>(
      `select ${DELIVERY_COLS} from exchange_deliveries
       where account_id = $1 and tenant_id = $2 and received_envio_id = $3 order by created_at, id`,
      [accountId, tenantId, envioId],
    );
    return r.rows;
  },

  /** The answers sent to a supplier for one received document (its ResultadoDTE / EnvioRecibos), oldest first. */
  async ofReceivedDte(sql: Sql, accountId: string, tenantId: string, receivedDteId: string): Promise<DeliveryRow[]> {
    const r = await sql.query<DeliveryRow>(
      `select ${DELIVERY_COLS} from exchange_deliveries
       where account_id = $1 and tenant_id = $2 and received_dte_id = $3 order by created_at, id`,
      [accountId, tenantId, receivedDteId],
    );
    return r.rows;
  },

  /** A pending delivery found to have nothing to send after all (an answer the SII refused meanwhile). */
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
