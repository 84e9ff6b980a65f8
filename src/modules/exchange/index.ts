/**
 * Outbound exchange: the outbox of e-mails to receptors and suppliers (docs/exchange.md, decisions
 * §13); SMTP or the local mailbox, retries, records. Told of acceptances by the dte module
 * (`onAccepted`) and of signed answers by the received module (`onRespuesta`) in their own
 * transactions; the messages are written by the composers those modules supply
 * (`registerComposer`), so this module holds no document's content.
 */
export { createExchangeService, DELIVERY_QUEUE } from './exchange.service.ts';
export type {
  ExchangeService,
  ExchangeDeps,
  AcceptedDocument,
  DeliveryToCompose,
  MailAddressing,
  MailComposer,
} from './exchange.service.ts';
export { createSmtpTransport, createMailboxTransport, recipientHash } from './exchange.mail.ts';
export type { MailTransport, OutgoingMail } from './exchange.mail.ts';
export type { Delivery, MailboxMessage } from './exchange.views.ts';
export { DELIVERY_STATUSES } from './exchange.store.ts';
export { exchangeJobHandlers } from './exchange.jobs.ts';
export { default as exchangeRoutes } from './exchange.routes.ts';
export type { RespuestaToSend } from './exchange.service.ts';
export { addressedHeaders, isDeliverableAddress, messageDomain } from './exchange.message.ts';
