import type { Db, Sql } from '../../db/types.ts';
import { isExchanged } from '../../dte/index.ts';
import { errors } from '../../errors.ts';
import { isDeliverableAddress, toDelivery, type Delivery, type ExchangeService, type MailDelivery } from '../exchange/index.ts';
import type { TenantRef } from '../tenants/index.ts';
import type { AcceptedDte } from './dte.send.ts';

/**
 * Which documents are e-mailed to their receptors, and when (docs/exchange.md): the dte module's
 * rules, written through the exchange module's outbox, which only queues, sends and records.
 * - When the SII accepts a document its type says is exchanged (the catalogue: boletas are not),
 *   one automatic delivery, written in the transaction that records the acceptance; skipped when
 *   the receptor has no usable correo. At most one per document (its once key).
 * - A resend: only of an accepted document that is exchanged, to `to` or the receptor's correo.
 */
export const DTE_DELIVERY_SUBJECT = 'dte';
const ACCEPTED_STATES = ['accepted', 'accepted_with_objections'];

/** The documents these rules read (the dte module's read: a 404 for another tenant's). */
interface DocumentSource {
  get(
    tenant: TenantRef,
    id: string,
  ): Promise<{ id: string; tipoDte: number; status: string; receptor: { correo?: string | null | undefined } }>;
}

export interface DteDeliveriesDeps {
  db: Db;
  outbox: Pick<ExchangeService, 'enqueue' | 'ofSubject' | 'byId'>;
  documents: DocumentSource;
}

/** The contract's view of a document's delivery. */
const view = (m: MailDelivery): Delivery => toDelivery(m, { kind: 'dte', dteId: m.subject.id, respuesta: null });
const subjectOf = (dteId: string) => ({ kind: DTE_DELIVERY_SUBJECT, id: dteId });

export function createDteDeliveries(deps: DteDeliveriesDeps) {
  const { db, outbox } = deps;
  return {
    /** In the transaction that records a document's acceptance (dte.send's onAccepted port). */
    async onAccepted(tx: Sql, doc: AcceptedDte): Promise<void> {
      if (!isExchanged(doc.tipoDte)) return;
      const given = doc.receptor.correo?.trim() || null;
      const ok = isDeliverableAddress(given);
      await outbox.enqueue(tx, {
        accountId: doc.accountId,
        tenantId: doc.tenantId,
        subject: subjectOf(doc.dteId),
        trigger: 'accepted',
        to: given,
        skipReason: ok ? null : given ? 'receptor_email_invalid' : 'receptor_email_missing',
        onceKey: `dte:${doc.dteId}:accepted`,
      });
    },

    /** GET …/dte/{dteId}/deliveries: every delivery of the document, oldest first. */
    async list(tenant: TenantRef, dteId: string): Promise<{ data: Delivery[] }> {
      const doc = await deps.documents.get(tenant, dteId);
      return { data: (await outbox.ofSubject(tenant, subjectOf(doc.id))).map(view) };
    },

    /** POST …/dte/{dteId}/deliveries: send an accepted document again (to `to`, or its receptor's correo). */
    async resend(
      tenant: TenantRef,
      dteId: string,
      body: { to?: string | undefined },
      opts: { bindResult?: ((tx: Sql, id: string) => Promise<void>) | undefined } = {},
    ): Promise<Delivery> {
      const doc = await deps.documents.get(tenant, dteId);
      if (!isExchanged(doc.tipoDte))
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
      const id = await db.transaction(async (tx) => {
        const { id } = await outbox.enqueue(tx, {
          accountId: tenant.account_id,
          tenantId: tenant.id,
          subject: subjectOf(doc.id),
          trigger: 'resend',
          to,
        });
        await opts.bindResult?.(tx, id);
        return id;
      });
      return view((await outbox.byId(tenant.account_id, id))!);
    },

    /** A document's delivery by id within the account (the replay of a resend whose response was lost). */
    async byId(accountId: string, id: string): Promise<Delivery | undefined> {
      const m = await outbox.byId(accountId, id);
      return m && m.subject.kind === DTE_DELIVERY_SUBJECT ? view(m) : undefined;
    },
  };
}

export type DteDeliveries = ReturnType<typeof createDteDeliveries>;
