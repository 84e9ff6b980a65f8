import type { DeliveryRow, MailboxRow, RespuestaTipo } from './exchange.store.ts';

/** The API's views of the exchange rows (the response schemas in exchange.schemas.ts are their allow-list). */
export interface Delivery {
  id: string;
  tenantId: string;
  kind: DeliveryRow['kind'];
  dteId: string | null;
  respuesta: { tipo: RespuestaTipo; receivedEnvioId: string | null; receivedDteId: string | null; n: number | null } | null;
  trigger: DeliveryRow['trigger'];
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

export function toDelivery(r: DeliveryRow): Delivery {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    kind: r.kind,
    dteId: r.dte_id,
    respuesta: r.respuesta_tipo
      ? { tipo: r.respuesta_tipo, receivedEnvioId: r.received_envio_id, receivedDteId: r.received_dte_id, n: r.accion_n }
      : null,
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

export interface MailboxMessage {
  id: string;
  tenantId: string;
  deliveryId: string;
  /** The document a delivery sent (kind dte); null for an answer to a supplier (receivedDteId / receivedEnvioId). */
  dteId: string | null;
  receivedDteId: string | null;
  receivedEnvioId: string | null;
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
    dteId: r.dte_id,
    receivedDteId: r.received_dte_id,
    receivedEnvioId: r.received_envio_id,
    messageId: r.message_id,
    from: r.from_address,
    to: r.to_address,
    subject: r.subject,
    size: r.size,
    attachments: r.attachments.map((a) => ({ index: a.idx, filename: a.filename, contentType: a.contentType, size: a.size })),
    createdAt: new Date(r.created_at).toISOString(),
  };
}
