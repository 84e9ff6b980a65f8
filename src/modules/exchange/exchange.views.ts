import type { DeliveryRow, MailboxRow, Subject, SubjectDetail } from './exchange.store.ts';

/**
 * The outbox's record of one delivery, as its owner reads it (exchange's public surface): what it
 * is about in the owner's words (`subject`, `detail`) and where the sending stands.
 */
export interface MailDelivery {
  id: string;
  tenantId: string;
  subject: Subject;
  detail: SubjectDetail | null;
  trigger: string;
  status: DeliveryRow['status'];
  skipReason: string | null;
  to: string | null;
  transport: DeliveryRow['transport'];
  attempts: number;
  maxAttempts: number;
  lastError: { code: string; message: string } | null;
  messageId: string | null;
  smtpResponse: string | null;
  nextAttemptAt: string | null;
  sentAt: string | null;
  createdAt: string;
  updatedAt: string;
}

const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);

// jsonb comes back parsed from both drivers; a string is parsed in case a driver leaves it as text.
const detailOf = (d: DeliveryRow['subject_detail']): SubjectDetail | null =>
  d == null ? null : typeof d === 'string' ? (JSON.parse(d) as SubjectDetail) : d;

export function toMailDelivery(r: DeliveryRow): MailDelivery {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    subject: { kind: r.subject_kind, id: r.subject_id },
    detail: detailOf(r.subject_detail),
    trigger: r.trigger,
    status: r.status,
    skipReason: r.skip_reason,
    to: r.recipient,
    transport: r.transport,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    lastError: r.last_error_code ? { code: r.last_error_code, message: r.last_error_message ?? '' } : null,
    messageId: r.message_id,
    smtpResponse: r.smtp_response,
    nextAttemptAt: r.status === 'pending' ? iso(r.next_attempt_at) : null,
    sentAt: iso(r.sent_at),
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

/**
 * The contract's Delivery resource (exchange.schemas.ts is its allow-list), served by the modules
 * that own the subjects (dte, received): they say what it is about in the contract's words.
 */
export interface DeliveryAbout {
  kind: 'dte' | 'respuesta';
  dteId: string | null;
  respuesta: { tipo: string; receivedEnvioId: string | null; receivedDteId: string | null; n: number | null } | null;
}
export type Delivery = Omit<MailDelivery, 'subject' | 'detail'> & DeliveryAbout;

/** The contract's view of a delivery, fields in the contract's order. */
export function toDelivery(m: MailDelivery, about: DeliveryAbout): Delivery {
  return {
    id: m.id,
    tenantId: m.tenantId,
    kind: about.kind,
    dteId: about.dteId,
    respuesta: about.respuesta,
    trigger: m.trigger,
    status: m.status,
    skipReason: m.skipReason,
    to: m.to,
    transport: m.transport,
    attempts: m.attempts,
    maxAttempts: m.maxAttempts,
    lastError: m.lastError,
    messageId: m.messageId,
    smtpResponse: m.smtpResponse,
    nextAttemptAt: m.nextAttemptAt,
    sentAt: m.sentAt,
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

export interface MailboxMessage {
  id: string;
  tenantId: string;
  deliveryId: string;
  /** What its delivery is about, in its owner's words (kind dte: the document sent). */
  about: Subject;
  messageId: string;
  from: string;
  to: string;
  subject: string;
  size: number;
  attachments: { index: number; filename: string; contentType: string; size: number }[];
  createdAt: string;
}

export function toMailboxMessage(r: MailboxRow): MailboxMessage {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    deliveryId: r.delivery_id,
    about: { kind: r.subject_kind, id: r.subject_id },
    messageId: r.message_id,
    from: r.from_address,
    to: r.to_address,
    subject: r.subject,
    size: r.size,
    attachments: r.attachments.map((a) => ({ index: a.idx, filename: a.filename, contentType: a.contentType, size: a.size })),
    createdAt: new Date(r.created_at).toISOString(),
  };
}
