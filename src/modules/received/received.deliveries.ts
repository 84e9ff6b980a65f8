import type { Sql } from '../../db/types.ts';
import { isDeliverableAddress, toDelivery, type Delivery, type ExchangeService, type MailDelivery } from '../exchange/index.ts';
import type { TenantRef } from '../tenants/index.ts';

/**
 * Which of the tenant's signed answers are e-mailed to its suppliers (docs/received.md, "Sending
 * the signed answers"): the received module's rules, written through the exchange module's outbox.
 * Every answer stored gets a delivery in the transaction that stores it — to the request's address,
 * else the supplier's CorreoEmisor — or a skipped one saying why there is none. Two subjects:
 * - `received_envio`: an upload, whose RespuestaEnvioDTE (RecepcionEnvio) it carries;
 * - `received_dte`: a received document, whose answer `n` (ResultadoDTE / EnvioRecibos) it carries
 *   (detail: tipo, n).
 */
export const RECEIVED_ENVIO_SUBJECT = 'received_envio';
export const RECEIVED_DTE_SUBJECT = 'received_dte';
export const RESPUESTA_TIPOS = ['RecepcionEnvio', 'ResultadoDTE', 'EnvioRecibos'] as const;
export type RespuestaTipo = (typeof RESPUESTA_TIPOS)[number];

/**
 * A signed answer to a supplier to deliver: the upload's RespuestaEnvioDTE (`receivedEnvioId`), or
 * the ResultadoDTE / EnvioRecibos of answer `n` to a received document. `to`: the request's
 * address, else the supplier's CorreoEmisor (a given one was validated by the route already).
 */
export interface RespuestaToSend {
  accountId: string;
  tenantId: string;
  answer: { receivedEnvioId: string } | { receivedDteId: string; n: number; tipo: 'ResultadoDTE' | 'EnvioRecibos' };
  to: string | null | undefined;
}

/** The received envíos and documents these lists are of (a 404 for another tenant's), the received module's reads. */
interface ReceivedReads {
  envio(tenant: TenantRef, envioId: string): Promise<{ id: string }>;
  get(tenant: TenantRef, id: string): Promise<{ id: string }>;
}

export interface ReceivedDeliveriesDeps {
  outbox: Pick<ExchangeService, 'enqueue' | 'ofSubject'>;
  /** Bound lazily: the received service is handed these deliveries in turn. */
  received: () => ReceivedReads;
}

/** What an answer's delivery's detail holds (written by onRespuesta). */
export const respuestaOf = (m: Pick<MailDelivery, 'subject' | 'detail'>) => {
  const tipo = String(m.detail?.tipo ?? 'RecepcionEnvio') as RespuestaTipo;
  const n = m.detail?.n;
  return {
    tipo,
    receivedEnvioId: m.subject.kind === RECEIVED_ENVIO_SUBJECT ? m.subject.id : null,
    receivedDteId: m.subject.kind === RECEIVED_DTE_SUBJECT ? m.subject.id : null,
    n: typeof n === 'number' ? n : null,
  };
};

/** The contract's view of an answer's delivery (kind respuesta). */
const view = (m: MailDelivery): Delivery => toDelivery(m, { kind: 'respuesta', dteId: null, respuesta: respuestaOf(m) });

export function createReceivedDeliveries(deps: ReceivedDeliveriesDeps) {
  const { outbox } = deps;
  return {
    /** In the transaction that stores a signed answer (outbox): its delivery, or a skipped one. Returns its id. */
    async onRespuesta(tx: Sql, r: RespuestaToSend): Promise<string> {
      const given = r.to?.trim() || null;
      const ok = isDeliverableAddress(given);
      const envio = 'receivedEnvioId' in r.answer ? r.answer : undefined;
      const accion = 'receivedDteId' in r.answer ? r.answer : undefined;
      const { id } = await outbox.enqueue(tx, {
        accountId: r.accountId,
        tenantId: r.tenantId,
        subject: envio
          ? { kind: RECEIVED_ENVIO_SUBJECT, id: envio.receivedEnvioId }
          : { kind: RECEIVED_DTE_SUBJECT, id: accion!.receivedDteId },
        detail: envio ? { tipo: 'RecepcionEnvio' } : { tipo: accion!.tipo, n: accion!.n },
        trigger: envio ? 'recepcion' : 'accion',
        to: given,
        skipReason: ok ? null : given ? 'supplier_email_invalid' : 'supplier_email_missing',
      });
      return id;
    },

    /** GET …/received/envios/{envioId}/deliveries: the upload's answer sent to the supplier. */
    async ofEnvio(tenant: TenantRef, envioId: string): Promise<{ data: Delivery[] }> {
      const e = await deps.received().envio(tenant, envioId);
      return { data: (await outbox.ofSubject(tenant, { kind: RECEIVED_ENVIO_SUBJECT, id: e.id })).map(view) };
    },

    /** GET …/received/{receivedId}/deliveries: the document's answers sent to the supplier. */
    async ofDocument(tenant: TenantRef, receivedId: string): Promise<{ data: Delivery[] }> {
      const doc = await deps.received().get(tenant, receivedId);
      return { data: (await outbox.ofSubject(tenant, { kind: RECEIVED_DTE_SUBJECT, id: doc.id })).map(view) };
    },
  };
}

export type ReceivedDeliveries = ReturnType<typeof createReceivedDeliveries>;
