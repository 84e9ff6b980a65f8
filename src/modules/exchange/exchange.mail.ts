import crypto from 'node:crypto';
import nodemailer from 'nodemailer';
import type { Db } from '../../db/types.ts';
import type { Clock } from '../../lib/clock.ts';
import { exchangeStore, type DeliveryTransport } from './exchange.store.ts';

/**
 * Where delivery e-mails go (docs/exchange.md, "Transports"): SMTP through nodemailer when
 * SMTP_URL is set, else the local mailbox in the database that the dashboard shows. Both compose
 * the same MIME message with nodemailer, so what the mailbox keeps is what SMTP would have sent.
 *
 * No address, password or server reply with an address in it ever reaches a log: errors carry a
 * code and a message with addresses replaced (`scrubAddresses`).
 */
export interface MailAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface OutgoingMail {
  /** The Message-ID header, `<…@…>`: the same on every attempt of one delivery, so a receptor can drop a duplicate. */
  messageId: string;
  from: string;
  to: string;
  replyTo?: string | undefined;
  subject: string;
  text: string;
  attachments: MailAttachment[];
}

export interface MailMeta {
  accountId: string;
  tenantId: string;
  deliveryId: string;
}

export interface SentMail {
  transport: DeliveryTransport;
  messageId: string;
  /** The server's final reply (`250 …`), addresses scrubbed; null for the mailbox. */
  response: string | null;
}

export interface MailTransport {
  readonly kind: DeliveryTransport;
  send(mail: OutgoingMail, meta: MailMeta): Promise<SentMail>;
  close(): void;
}

/** A failed attempt: `permanent` ones are not retried (the same message would be refused again). */
export class MailSendError extends Error {
  readonly code: string;
  readonly permanent: boolean;
  constructor(code: string, message: string, permanent: boolean) {
    super(message);
    this.name = 'MailSendError';
    this.code = code;
    this.permanent = permanent;
  }
}

const ADDRESS = /[^\s<>@"'(),;:[\]]+@[^\s<>@"'(),;:[\]]+/g;

/** Server replies often quote the address ("550 <x@y>: no such user"): replaced before storing or logging. */
export const scrubAddresses = (text: string): string => text.replace(ADDRESS, '[address]');

/** What a log may say about a recipient: a short hash, never the address. */
export const recipientHash = (address: string): string =>
  crypto.createHash('sha256').update(address.trim().toLowerCase()).digest('hex').slice(0, 16);

interface SmtpLikeError {
  code?: unknown;
  responseCode?: unknown;
  response?: unknown;
  message?: unknown;
}

/**
 * One SMTP failure as a delivery error. RFC 5321: a 5yz reply is a permanent refusal and a 4yz a
 * transient one; 503 (bad sequence of commands) is about the session, not the message, so it is
 * tried again. Authentication failures are the operator's settings, retried until the schedule
 * ends so that fixing SMTP_URL in time still delivers. Connection trouble is transient.
 */
export function classifySmtpError(e: unknown): MailSendError {
  const err = (typeof e === 'object' && e !== null ? e : {}) as SmtpLikeError;
  const responseCode = typeof err.responseCode === 'number' ? err.responseCode : undefined;
  const code = typeof err.code === 'string' ? err.code : undefined;
  const said = scrubAddresses(String(err.response ?? err.message ?? 'unknown error')).slice(0, 500);
  if (code === 'EAUTH' || code === 'ENOAUTH') return new MailSendError('smtp_auth_failed', `SMTP authentication failed: ${said}`, false);
  if (responseCode !== undefined && responseCode >= 500 && responseCode < 600 && responseCode !== 503)
    return new MailSendError('smtp_rejected', `The SMTP server refused the message (${responseCode}): ${said}`, true);
  if (responseCode !== undefined && responseCode >= 400 && responseCode < 500)
    return new MailSendError('smtp_deferred', `The SMTP server deferred the message (${responseCode}): ${said}`, false);
  if (code && ['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ETLS', 'ECONNREFUSED', 'ECONNRESET', 'EPROXY'].includes(code))
    return new MailSendError('smtp_unavailable', `The SMTP server could not be reached (${code}): ${said}`, false);
  return new MailSendError('smtp_error', `Sending failed${code ? ` (${code})` : ''}: ${said}`, false);
}

const toNodemailer = (mail: OutgoingMail) => ({
  messageId: mail.messageId,
  from: mail.from,
  to: mail.to,
  ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
  subject: mail.subject,
  text: mail.text,
  attachments: mail.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
  // No file or URL is ever read into a message: attachments are the buffers above.
  disableFileAccess: true,
  disableUrlAccess: true,
});

export interface SmtpSettings {
  url: string;
  connectionTimeoutMs?: number;
  socketTimeoutMs?: number;
}

/** SMTP_URL: smtp://user:pass@host:587 (STARTTLS when offered) or smtps://…:465. One connection per message. */
export function createSmtpTransport(s: SmtpSettings): MailTransport {
  const transporter = nodemailer.createTransport({
    url: s.url,
    connectionTimeout: s.connectionTimeoutMs ?? 30_000,
    greetingTimeout: s.connectionTimeoutMs ?? 30_000,
    socketTimeout: s.socketTimeoutMs ?? 60_000,
    logger: false,
    debug: false,
  });
  return {
    kind: 'smtp',
    async send(mail) {
      try {
        const info = await transporter.sendMail(toNodemailer(mail));
        return {
          transport: 'smtp',
          messageId: info.messageId || mail.messageId,
          response: scrubAddresses(String(info.response ?? '')) || null,
        };
      } catch (e) {
        throw classifySmtpError(e);
      }
    },
    close: () => transporter.close(),
  };
}

/**
 * The embedded default: the message is composed exactly as for SMTP and kept in the database
 * (exchange_mailbox), once per delivery. Nothing leaves the machine.
 */
export function createMailboxTransport(deps: { db: Db; clock: Clock }): MailTransport {
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  return {
    kind: 'mailbox',
    async send(mail, meta) {
      const info = await composer.sendMail(toNodemailer(mail));
      const raw = Buffer.isBuffer(info.message) ? info.message : Buffer.from(String(info.message));
      await deps.db.transaction((tx) =>
        exchangeStore.insertMailbox(tx, {
          id: crypto.randomUUID(),
          accountId: meta.accountId,
          tenantId: meta.tenantId,
          deliveryId: meta.deliveryId,
          messageId: mail.messageId,
          from: mail.from,
          to: mail.to,
          subject: mail.subject,
          raw,
          attachments: mail.attachments,
          now: deps.clock.now(),
        }),
      );
      return { transport: 'mailbox', messageId: mail.messageId, response: null };
    },
    close: () => composer.close(),
  };
}
