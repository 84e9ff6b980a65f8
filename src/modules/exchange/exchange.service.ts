import type { Db, Sql } from '../../db/types.ts';
import { isBoleta, isDteEngineError } from '../../dte/index.ts';
import { AppError, errors } from '../../errors.ts';
import { enqueue, fenced, type JobLease, type JobResult } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { decodeIterator, toPage, type Page } from '../../lib/pagination.ts';
import { newId, UUID_RE } from '../../lib/tokens.ts';
import type { TenantRef } from '../tenants/index.ts';
import { classifySmtpError, MailSendError, recipientHash, type MailTransport, type OutgoingMail } from './exchange.mail.ts';
import { isDeliverableAddress } from './exchange.message.ts';
import { exchangeStore, type DeliveryKind, type DeliveryRow, type RespuestaTipo } from './exchange.store.ts';
import { toDelivery, toMailboxMessage, type Delivery, type MailboxMessage } from './exchange.views.ts';

/**
 * Outbound exchange (docs/decisions.md §13, docs/exchange.md): an accepted document that is not a boleta
 * is e-mailed to its receptor as an EnvioDTE addressed to it (Caratula RutReceptor = the receptor,
 * signed with the tenant's certificate) with its PDF.
 *
 * Invariants:
 * - The automatic delivery is written by `onAccepted` in the caller's transaction, the one that
 *   records the acceptance (outbox): a committed acceptance always has its delivery row and job,
 *   a rolled-back one has neither. At most one per document (exchange_deliveries_once).
 * - Building the envelope, rendering the PDF and talking SMTP happen in the job, outside any
 *   transaction. The job is at least once: a crash after the server took the message and before
 *   `sent` was recorded sends it again, with the same Message-ID.
 * - Attempts are counted on the delivery row and spaced by `retryScheduleMs` (the job reschedules
 *   itself); a permanent refusal (SMTP 5yz) or the last attempt marks it `failed`.
 * - Logs carry the delivery id and a hash of the address, never the address.
 * - A second kind, `respuesta` (docs/received.md, "Sending the signed answers"): the tenant's signed
 *   answers to a supplier, enqueued by `onRespuesta` in the received module's transaction that
 *   stores the answer, sent to the supplier's address with the stored bytes attached unchanged,
 *   with the same jobs, retries and records. An answer the SII refused before its e-mail went out
 *   is not sent (`skipped`, answer_refused_by_sii).
 */
export const DELIVERY_QUEUE = 'exchange.deliver';

/** What the dte module tells this one when a document is accepted (its own row, in its transaction). */
export interface AcceptedDocument {
  accountId: string;
  tenantId: string;
  dteId: string;
  tipoDte: number;
  receptor: { correo?: string | null | undefined };
}

/**
 * A signed answer to a supplier to deliver (kind respuesta), told by the received module in the
 * transaction that stores the answer: the upload's RespuestaEnvioDTE (`receivedEnvioId`), or the
 * ResultadoDTE / EnvioRecibos of answer `n` to a received document. `to`: the request's address,
 * else the supplier's CorreoEmisor (a given one was validated by the route already).
 */
export interface RespuestaToSend {
  accountId: string;
  tenantId: string;
  answer: { receivedEnvioId: string } | { receivedDteId: string; n: number; tipo: 'ResultadoDTE' | 'EnvioRecibos' };
  to: string | null | undefined;
}

/** What this module reads of received envíos and documents (a 404 for another tenant's), through the received module's public reads. */
interface ReceivedReads {
  envio(tenant: TenantRef, envioId: string): Promise<{ id: string }>;
  get(tenant: TenantRef, id: string): Promise<{ id: string }>;
}

/**
 * What a composer is told of the delivery it writes the message for: its id, owner and what it
 * is about (the columns the sending module gave `onAccepted`, `resend` or `onRespuesta`).
 */
export interface DeliveryToCompose {
  id: string;
  accountId: string;
  tenantId: string;
  kind: DeliveryKind;
  dteId: string | null;
  receivedEnvioId: string | null;
  receivedDteId: string | null;
  accionN: number | null;
  respuestaTipo: RespuestaTipo | null;
}

/** The addressing the outbox fixed: the message's Message-ID is `<deliveryId@From domain>` (messageDomain). */
export interface MailAddressing {
  deliveryId: string;
  from: string;
  to: string;
}

/**
 * Writes one kind's message in the delivery job, outside any transaction; `undefined` when there is
 * nothing to send any more (recorded `skipped`, answer_refused_by_sii). The module that sends that
 * kind supplies it (src/modules/dte/dte.mail.ts, src/modules/received/received.mail.ts) and the
 * composition root registers it (`registerComposer`), so this module holds no document's content.
 */
export type MailComposer = (d: DeliveryToCompose, a: MailAddressing) => Promise<OutgoingMail | undefined>;

/** The documents this module reads, through the dte module's public reads. */
interface DocumentView {
  id: string;
  tipoDte: number;
  folio: number;
  status: string;
  fechaEmision: string;
  montoTotal: number;
  receptor: { rut: string; correo?: string | null | undefined };
}

export interface ExchangeDeps {
  db: Db;
  clock: Clock;
  transport: MailTransport;
  /** SMTP_FROM: the From of every message. */
  from: string;
  /** Delay before each attempt (EXCHANGE_RETRY_SCHEDULE); its length is the number of attempts. */
  retryScheduleMs: readonly number[];
  /** The dte module's read of a document (a resend's rules, and a 404 for another tenant's). */
  documents: { get(tenant: TenantRef, id: string): Promise<DocumentView> };
  /** Received envíos and documents, for the lists of answers sent to suppliers (kind respuesta). */
  respuestas?: ReceivedReads | undefined;
  log?: { warn: (obj: object, msg: string) => void; error: (obj: object, msg: string) => void };
}

const ACCEPTED_STATES = ['accepted', 'accepted_with_objections'];

/** What a log line says a delivery is about (ids only). */
const subjectOf = (d: DeliveryRow) =>
  d.kind === 'respuesta'
    ? {
        kind: d.kind,
        receivedEnvioId: d.received_envio_id ?? undefined,
        receivedDteId: d.received_dte_id ?? undefined,
        n: d.accion_n ?? undefined,
      }
    : { dteId: d.dte_id };

export function createExchangeService(deps: ExchangeDeps) {
  const { db, clock } = deps;
  const maxAttempts = Math.max(1, deps.retryScheduleMs.length);
  const delayBefore = (attempt: number) => deps.retryScheduleMs[attempt - 1] ?? deps.retryScheduleMs[deps.retryScheduleMs.length - 1] ?? 0;

  const enqueueDelivery = (tx: Sql, accountId: string, deliveryId: string) =>
    enqueue(tx, DELIVERY_QUEUE, { deliveryId, accountId }, { delayMs: delayBefore(1), singletonKey: `${DELIVERY_QUEUE}:${deliveryId}` });

  const respuestas = (): ReceivedReads => {
    if (!deps.respuestas) throw new Error('exchange: no source of received documents is wired');
    return deps.respuestas;
  };

  const composers = new Map<DeliveryKind, MailComposer>();

  /** Everything the message needs, gathered and built by its kind's composer outside any transaction. */
  const build = async (d: DeliveryRow) => {
    const compose = composers.get(d.kind);
    if (!compose) throw new Error(`exchange: no composer is registered for deliveries of kind ${d.kind}`);
    return compose(
      {
        id: d.id,
        accountId: d.account_id,
        tenantId: d.tenant_id,
        kind: d.kind,
        dteId: d.dte_id,
        receivedEnvioId: d.received_envio_id,
        receivedDteId: d.received_dte_id,
        accionN: d.accion_n,
        respuestaTipo: d.respuesta_tipo,
      },
      { deliveryId: d.id, from: deps.from, to: d.recipient! },
    );
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

  /** 404 for a document of another tenant or account (the dte module's read). */
  const documentOf = (tenant: TenantRef, dteId: string) => deps.documents.get(tenant, dteId);

  return {
    transportKind: deps.transport.kind,

    /** At wiring time: the composer of one kind's messages (one per kind). */
    registerComposer(kind: DeliveryKind, compose: MailComposer): void {
      composers.set(kind, compose);
    },

    /**
     * In the transaction that records a document's acceptance (the dte module calls it there): its
     * delivery, or a `skipped` entry when the receptor has no usable address; nothing for boletas.
     */
    async onAccepted(tx: Sql, doc: AcceptedDocument): Promise<void> {
      if (isBoleta(doc.tipoDte)) return;
      const given = doc.receptor.correo?.trim() || null;
      const ok = isDeliverableAddress(given);
      const id = newId();
      const inserted = await exchangeStore.insertDelivery(tx, {
        id,
        accountId: doc.accountId,
        tenantId: doc.tenantId,
        dteId: doc.dteId,
        trigger: 'accepted',
        status: ok ? 'pending' : 'skipped',
        skipReason: ok ? null : given ? 'receptor_email_invalid' : 'receptor_email_missing',
        recipient: given,
        maxAttempts,
        now: clock.now(),
      });
      if (inserted && ok) await enqueueDelivery(tx, doc.accountId, id);
    },

    /**
     * In the transaction that stores a signed answer to a supplier (the received module calls it
     * there, outbox): its delivery to the supplier's exchange address, or a `skipped` entry saying
     * why there is none. Returns the delivery's id.
     */
    async onRespuesta(tx: Sql, r: RespuestaToSend): Promise<string> {
      const given = r.to?.trim() || null;
      const ok = isDeliverableAddress(given);
      const id = newId();
      const envio = 'receivedEnvioId' in r.answer ? r.answer : undefined;
      const accion = 'receivedDteId' in r.answer ? r.answer : undefined;
      const tipo: RespuestaTipo = envio ? 'RecepcionEnvio' : accion!.tipo;
      await exchangeStore.insertDelivery(tx, {
        id,
        accountId: r.accountId,
        tenantId: r.tenantId,
        kind: 'respuesta',
        dteId: null,
        receivedEnvioId: envio?.receivedEnvioId ?? null,
        receivedDteId: accion?.receivedDteId ?? null,
        accionN: accion?.n ?? null,
        respuestaTipo: tipo,
        trigger: envio ? 'recepcion' : 'accion',
        status: ok ? 'pending' : 'skipped',
        skipReason: ok ? null : given ? 'supplier_email_invalid' : 'supplier_email_missing',
        recipient: given,
        maxAttempts,
        now: clock.now(),
      });
      if (ok) await enqueueDelivery(tx, r.accountId, id);
      return id;
    },

    /** GET …/received/envios/{envioId}/deliveries: the upload's answer sent to the supplier. */
    async listOfReceivedEnvio(tenant: TenantRef, envioId: string): Promise<{ data: Delivery[] }> {
      const e = await respuestas().envio(tenant, envioId);
      return { data: (await exchangeStore.ofReceivedEnvio(db, tenant.account_id, tenant.id, e.id)).map(toDelivery) };
    },

    /** GET …/received/{receivedId}/deliveries: the document's answers sent to the supplier. */
    async listOfReceivedDte(tenant: TenantRef, receivedId: string): Promise<{ data: Delivery[] }> {
      const doc = await respuestas().get(tenant, receivedId);
      return { data: (await exchangeStore.ofReceivedDte(db, tenant.account_id, tenant.id, doc.id)).map(toDelivery) };
    },

    /** GET …/dte/{dteId}/deliveries: every delivery of the document, oldest first. */
    async list(tenant: TenantRef, dteId: string): Promise<{ data: Delivery[] }> {
      const doc = await documentOf(tenant, dteId);
      return { data: (await exchangeStore.ofDte(db, tenant.account_id, tenant.id, doc.id)).map(toDelivery) };
    },

    /** POST …/dte/{dteId}/deliveries: send an accepted document again (to `to`, or its receptor's correo). */
    async resend(
      tenant: TenantRef,
      dteId: string,
      body: { to?: string | undefined },
      opts: { bindResult?: ((tx: Sql, id: string) => Promise<void>) | undefined } = {},
    ): Promise<Delivery> {
      const doc = await documentOf(tenant, dteId);
      if (isBoleta(doc.tipoDte))
        throw errors.conflict('delivery_not_applicable', `A boleta (type ${doc.tipoDte}) is not exchanged with its receptor.`);
      if (!ACCEPTED_STATES.includes(doc.status))
        throw errors.conflict(
          'dte_not_accepted',
          `The DTE is ${doc.status}: only a document the SII accepted is delivered to its receptor.`,
          {
            details: { status: doc.status },
          },
        );
      const to = body.to?.trim() || doc.receptor.correo?.trim() || null;
      if (body.to && !isDeliverableAddress(to))
        throw errors.invalid('invalid_email', '`to` is not an e-mail address a delivery can be sent to (name@domain.tld).', {
          param: 'to',
        });
      if (!isDeliverableAddress(to))
        throw errors.conflict(
          'receptor_email_missing',
          "The document's receptor has no usable correo: pass `to` with the receptor's exchange address.",
          { param: 'to', details: { correo: doc.receptor.correo ?? null } },
        );
      const id = newId();
      const now = clock.now();
      await db.transaction(async (tx) => {
        await exchangeStore.insertDelivery(tx, {
          id,
          accountId: tenant.account_id,
          tenantId: tenant.id,
          dteId: doc.id,
          trigger: 'resend',
          status: 'pending',
          skipReason: null,
          recipient: to,
          maxAttempts,
          now,
        });
        await enqueueDelivery(tx, tenant.account_id, id);
        await opts.bindResult?.(tx, id);
      });
      return toDelivery((await exchangeStore.get(db, tenant.account_id, id))!);
    },

    /** A delivery by id within the account (the replay of a resend whose response was lost). */
    async byId(accountId: string, id: string): Promise<Delivery | undefined> {
      const r = UUID_RE.test(id) ? await exchangeStore.get(db, accountId, id) : undefined;
      return r ? toDelivery(r) : undefined;
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
        const known = e instanceof AppError ? e.code : isDteEngineError(e) ? e.code : undefined;
        if (!known) deps.log?.error({ deliveryId: d.id, ...subjectOf(d), err: e }, 'exchange delivery could not be built');
        return failedAttempt(
          d,
          attempt,
          {
            code: known ?? 'delivery_build_failed',
            message: e instanceof AppError || isDteEngineError(e) ? e.message : 'The message could not be built; it is tried again.',
            permanent: false,
          },
          job.fence,
        );
      }
      if (!mail) {
        await fenced(db, job.fence, (sql) =>
          exchangeStore.recordSkipped(sql, { id: d.id, accountId, reason: 'answer_refused_by_sii', now: clock.now() }),
        );
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
