/**
 * Outbound exchange: accepted documents e-mailed to their receptors as an EnvioDTE addressed to
 * them with the PDF (docs/exchange.md, docs/decisions.md §13); SMTP or the local mailbox. Told of
 * acceptances by the dte module through the `onAccepted` port; reads documents, tenants and
 * signers through the ports it is given.
 */
export { createExchangeService, DELIVERY_QUEUE } from './exchange.service.ts';
export type { ExchangeService, ExchangeDeps, AcceptedDocument } from './exchange.service.ts';
export { createSmtpTransport, createMailboxTransport, recipientHash } from './exchange.mail.ts';
export type { MailTransport, OutgoingMail } from './exchange.mail.ts';
export type { Delivery, MailboxMessage } from './exchange.views.ts';
export { DELIVERY_STATUSES } from './exchange.store.ts';
export { exchangeJobHandlers } from './exchange.jobs.ts';
export { default as exchangeRoutes } from './exchange.routes.ts';
export type { RespuestaToSend } from './exchange.service.ts';
export { isDeliverableAddress } from './exchange.message.ts';
