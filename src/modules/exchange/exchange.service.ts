import type { Db, Sql } from '../../db/types.ts';
import { AppError, errors } from '../../errors.ts';
import { enqueue, fenced, type JobLease, type JobResult } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { decodeIterator, toPage, type Page } from '../../lib/pagination.ts';
import { newId, UUID_RE } from '../../lib/tokens.ts';
import type { TenantRef } from '../tenants/index.ts';
import { classifySmtpError, MailSendError, recipientHash, type MailTransport, type OutgoingMail } from './exchange.mail.ts';
import { isDeliverableAddress } from './exchange.message.ts';
import { exchangeStore, type DeliveryRow, type Subject, type SubjectDetail } from './exchange.store.ts';
import { toMailboxMessage, toMailDelivery, type MailboxMessage, type MailDelivery } from './exchange.views.ts';

/**
 * The outbound-mail outbox (docs/exchange.md, docs/design.md §11): it queues, sends, retries and
 * records e-mails whose content and rules belong to the modules that own what they are about.
 * The dte module decides which documents go to their receptors, the received module which answers
 * go to suppliers; each enqueues in its own transaction and writes its messages with the composer
 * it registered. This module reads no document, signer, XML or PDF, and imports neither module.
 *
 * Invariants:
 * - A delivery is written by `enqueue` in the caller's transaction (outbox): a committed one always
 *   has its job, a rolled-back one has neither. A once key (the owner's) makes a second write a no-op.
 * - Composing the message and talking SMTP happen in the job, outside any transaction. The job is
 *   at least once: a crash after the server took the message and before `sent` was recorded sends
 *   it again, with the same Message-ID.
 * - Attempts are counted on the delivery row and spaced by `retryScheduleMs` (the job reschedules
 *   itself); a permanent refusal (SMTP 5yz) or the last attempt marks it `failed`.
 * - Once a delivery ends (sent, failed, or skipped by its composer), the owner's `onStatus` is told,
 *   after the record is committed.
 * - Logs carry the delivery id, its subject and a hash of the address, never the address.
 */
export const DELIVERY_QUEUE = 'exchange.deliver';

/** A delivery to write, in the owner's transaction. */
export interface MailToEnqueue {
  accountId: string;
  tenantId: string;
  subject: Subject;
  detail?: SubjectDetail | null | undefined;
  /** The owner's word for why (e.g. accepted, resend); shown on the record. */
  trigger: string;
  /** Where it goes; a deliverable address (isDeliverableAddress) unless `skipReason` is given. */
  to: string | null;
  /** Nothing to send (the owner's reason, e.g. no address): recorded `skipped`, no job. */
  skipReason?: string | null | undefined;
  /** At most one delivery per key within the account: a second `enqueue` with it writes nothing. */
  onceKey?: string | null | undefined;
}

/** What a composer is told of the delivery it writes the message for. */
export interface MailToCompose {
  id: string;
  accountId: string;
  tenantId: string;
  subject: Subject;
  detail: SubjectDetail | null;
}

/** The addressing the outbox fixed: the message's Message-ID is `<deliveryId@From domain>` (messageDomain). */
export interface MailAddressing {
  deliveryId: string;
  from: string;
  to: string;
}

/**
 * Writes one subject kind's message in the delivery job, outside any transaction; `{ skip }` when
 * there is nothing to send any more (recorded `skipped` with that reason).
 */
export type MailComposer = (d: MailToCompose, a: MailAddressing) => Promise<OutgoingMail | { skip: string }>;

/** What the owner of a subject kind registers at wiring time. */
export interface SubjectHandlers {
  compose: MailComposer;
  /**
   * Errors of the owner's own kinds thrown while composing (beside AppError), as the code and
   * message recorded on the attempt; undefined for an unexpected one (delivery_build_failed).
   */
  explainError?: ((e: unknown) => { code: string; message: string } | undefined) | undefined;
  /** Told once a delivery has ended (sent, failed, skipped by its composer), after commit. */
  onStatus?: ((d: MailDelivery) => Promise<void> | void) | undefined;
}

export interface ExchangeDeps {
  db: Db;
  clock: Clock;
  transport: MailTransport;
  /** SMTP_FROM: the From of every message. */
  from: string;
  /** Delay before each attempt (EXCHANGE_RETRY_SCHEDULE); its length is the number of attempts. */
  retryScheduleMs: readonly number[];
  log?: { warn: (obj: object, msg: string) => void; error: (obj: object, msg: string) => void };
}

/** What a log line says a delivery is about (ids only). */
const subjectOf = (d: DeliveryRow) => ({ subject: d.subject_kind, subjectId: d.subject_id });

export function createExchangeService(deps: ExchangeDeps) {
  const { db, clock } = deps;
  const maxAttempts = Math.max(1, deps.retryScheduleMs.length);
  const delayBefore = (attempt: number) => deps.retryScheduleMs[attempt - 1] ?? deps.retryScheduleMs[deps.retryScheduleMs.length - 1] ?? 0;

  const enqueueJob = (tx: Sql, accountId: string, deliveryId: string) =>
    enqueue(tx, DELIVERY_QUEUE, { deliveryId, accountId }, { delayMs: delayBefore(1), singletonKey: `${DELIVERY_QUEUE}:${deliveryId}` });

  const subjects = new Map<string, SubjectHandlers>();
  const handlersOf = (kind: string): SubjectHandlers => {
    const h = subjects.get(kind);
    if (!h) throw new Error(`exchange: nothing is registered for deliveries about ${kind}`);
    return h;
  };

  /** Everything the message needs, gathered and built by its subject's composer outside any transaction. */
  const build = (d: DeliveryRow) => {
    const m = toMailDelivery(d);
    return handlersOf(d.subject_kind).compose(
      { id: d.id, accountId: d.account_id, tenantId: d.tenant_id, subject: m.subject, detail: m.detail },
      { deliveryId: d.id, from: deps.from, to: d.recipient! },
    );
  };

  /** The owner hears of an ended delivery after commit; its failure is logged, the delivery stands. */
  const reportStatus = async (accountId: string, id: string): Promise<void> => {
    const row = await exchangeStore.get(db, accountId, id);
    if (!row || row.status === 'pending') return;
    const onStatus = subjects.get(row.subject_kind)?.onStatus;
    if (!onStatus) return;
    try {
      await onStatus(toMailDelivery(row));
    } catch (err) {
      deps.log?.error({ deliveryId: id, ...subjectOf(row), err }, 'exchange delivery status callback failed');
    }
  };

  /** A failed attempt: again after the schedule's next delay, or `failed` when permanent or the last. */
  const failedAttempt = async (
    d: DeliveryRow,
    attempt: number,
    e: { code: string; message: string; permanent: boolean },
    fence?: JobLease['fence'],
  ): Promise<JobResult> => {
    const now = clock.now();
    const log = { deliveryId: d.id, ...subjectOf(d), attempt, code: e.code, recipient: recipientHash(d.recipient ?? '') };
    if (e.permanent || attempt >= d.max_attempts) {
      await fenced(db, fence, (sql) =>
        exchangeStore.recordFailed(sql, { id: d.id, accountId: d.account_id, attempts: attempt, code: e.code, message: e.message, now }),
      );
      deps.log?.warn({ ...log, final: true }, 'exchange delivery failed');
      await reportStatus(d.account_id, d.id);
      return;
    }
    // ±20 % jitter, as webhook retries: deliveries deferred together do not all come back together.
    const waitMs = Math.round(delayBefore(attempt + 1) * (0.8 + 0.4 * Math.random()));
    await fenced(db, fence, (sql) =>
      exchangeStore.recordRetry(sql, {
        id: d.id,
        accountId: d.account_id,
        attempts: attempt,
        code: e.code,
        message: e.message,
        nextAttemptAt: new Date(now.getTime() + waitMs),
        now,
      }),
    );
    deps.log?.warn({ ...log, retryInMs: waitMs }, 'exchange delivery attempt failed; retrying');
    return { rescheduleInMs: waitMs };
  };

  return {
    transportKind: deps.transport.kind,

    /** At wiring time: the composer (and status callback) of one subject kind's deliveries, by its owner. */
    registerSubject(kind: string, handlers: SubjectHandlers): void {
      if (subjects.has(kind)) throw new Error(`exchange: deliveries about ${kind} are registered already`);
      subjects.set(kind, handlers);
    },

    /**
     * In the owner's transaction (outbox): writes the delivery, pending with its job, or skipped
     * with the owner's reason. Returns its id, and whether it was written (false: the once key's
     * delivery is there already).
     */
    async enqueue(tx: Sql, m: MailToEnqueue): Promise<{ id: string; inserted: boolean }> {
      const skipReason = m.skipReason ?? null;
      const to = m.to?.trim() || null;
      if (!skipReason && !isDeliverableAddress(to)) throw new Error('exchange: a pending delivery needs a deliverable address');
      const id = newId();
      const inserted = await exchangeStore.insertDelivery(tx, {
        id,
        accountId: m.accountId,
        tenantId: m.tenantId,
        subject: m.subject,
        detail: m.detail ?? null,
        onceKey: m.onceKey ?? null,
        trigger: m.trigger,
        status: skipReason ? 'skipped' : 'pending',
        skipReason,
        recipient: to,
        maxAttempts,
        now: clock.now(),
      });
      if (inserted && !skipReason) await enqueueJob(tx, m.accountId, id);
      return { id, inserted };
    },

    /** A subject's deliveries within the tenant, oldest first (the owner checked the subject is the tenant's). */
    async ofSubject(tenant: TenantRef, subject: Subject): Promise<MailDelivery[]> {
      if (!UUID_RE.test(subject.id)) return [];
      return (await exchangeStore.ofSubject(db, tenant.account_id, tenant.id, subject)).map(toMailDelivery);
    },

    /** A delivery by id within the account. */
    async byId(accountId: string, id: string): Promise<MailDelivery | undefined> {
      const r = UUID_RE.test(id) ? await exchangeStore.get(db, accountId, id) : undefined;
      return r ? toMailDelivery(r) : undefined;
    },

    /**
     * The delivery job: build, send, record. Idempotent: a delivery no longer pending is left alone.
     * A run whose lease another worker took over stops before sending and records nothing.
     */
    async runDelivery(payload: Record<string, unknown>, job: Partial<JobLease> = {}): Promise<JobResult> {
      const accountId = String(payload.accountId);
      const deliveryId = String(payload.deliveryId);
      if (!UUID_RE.test(accountId) || !UUID_RE.test(deliveryId)) return;
      const d = await exchangeStore.get(db, accountId, deliveryId);
      if (!d || d.status !== 'pending' || !d.recipient) return;
      const attempt = d.attempts + 1;
      let mail;
      try {
        mail = await build(d);
      } catch (e) {
        // The tenant's certificate removed or expired, the document unreadable: retried on the
        // schedule (the tenant can fix its certificate), then failed with the reason's code.
        const known = e instanceof AppError ? { code: e.code, message: e.message } : subjects.get(d.subject_kind)?.explainError?.(e);
        if (!known) deps.log?.error({ deliveryId: d.id, ...subjectOf(d), err: e }, 'exchange delivery could not be built');
        return failedAttempt(
          d,
          attempt,
          {
            code: known?.code ?? 'delivery_build_failed',
            message: known?.message ?? 'The message could not be built; it is tried again.',
            permanent: false,
          },
          job.fence,
        );
      }
      if ('skip' in mail) {
        const reason = mail.skip;
        await fenced(db, job.fence, (sql) => exchangeStore.recordSkipped(sql, { id: d.id, accountId, reason, now: clock.now() }));
        await reportStatus(accountId, d.id);
        return;
      }
      let sent;
      job.signal?.throwIfAborted(); // another run holds the job now: no second e-mail
      try {
        sent = await deps.transport.send(mail, { accountId, tenantId: d.tenant_id, deliveryId: d.id });
      } catch (e) {
        const err = e instanceof MailSendError ? e : classifySmtpError(e);
        return failedAttempt(d, attempt, err, job.fence);
      }
      await fenced(db, job.fence, (sql) =>
        exchangeStore.recordSent(sql, {
          id: d.id,
          accountId,
          attempts: attempt,
          transport: sent.transport,
          messageId: sent.messageId,
          response: sent.response,
          now: clock.now(),
        }),
      );
      await reportStatus(accountId, d.id);
    },

    /** The local mailbox (dashboard): the messages of the account, newest first. */
    async mailbox(accountId: string, q: { limit: number; iterator?: string | undefined }): Promise<Page<MailboxMessage>> {
      const rows = await exchangeStore.listMailbox(db, accountId, { limit: q.limit, cursor: decodeIterator(q.iterator) });
      return toPage(rows, q.limit, (r) => ({ createdAt: new Date(r.created_at).toISOString(), id: r.id }), toMailboxMessage);
    },

    async mailboxMessage(accountId: string, id: string): Promise<MailboxMessage> {
      const r = UUID_RE.test(id) ? await exchangeStore.getMailbox(db, accountId, id) : undefined;
      if (!r) throw errors.notFound('message', id);
      return toMailboxMessage(r);
    },

    /** The mailbox messages of these deliveries, by delivery id (the dashboard links a delivery to its message). */
    async mailboxOfDeliveries(accountId: string, deliveryIds: readonly string[]): Promise<Map<string, MailboxMessage>> {
      const rows = await exchangeStore.mailboxOfDelivery(db, accountId, deliveryIds);
      return new Map(rows.map((r) => [r.delivery_id, toMailboxMessage(r)]));
    },

    /** The message as it would have been sent (.eml). */
    async mailboxRaw(accountId: string, id: string): Promise<Buffer> {
      const raw = UUID_RE.test(id) ? await exchangeStore.mailboxRaw(db, accountId, id) : undefined;
      if (!raw) throw errors.notFound('message', id);
      return raw;
    },

    async mailboxAttachment(accountId: string, id: string, index: number) {
      const a = UUID_RE.test(id) && Number.isInteger(index) ? await exchangeStore.mailboxAttachment(db, accountId, id, index) : undefined;
      if (!a) throw errors.notFound('attachment');
      return { filename: a.filename, contentType: a.content_type, content: a.content };
    },

    close: () => deps.transport.close(),
  };
}

export type ExchangeService = ReturnType<typeof createExchangeService>;
