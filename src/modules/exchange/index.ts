/**
 * Outbound mail: a generic outbox of e-mails (docs/exchange.md, docs/design.md §11) — queues,
 * sends over SMTP or into the local mailbox, retries, records, and tells each delivery's owner how
 * it ended. The modules that own what is sent (dte: documents to receptors; received: answers to
 * suppliers) decide what goes, enqueue in their own transactions (`enqueue`), write the messages
 * (`registerSubject`'s composer) and serve the deliveries routes from `ofSubject` / `byId`. This
 * module imports neither of them.
 */
export { createExchangeService, DELIVERY_QUEUE } from './exchange.service.ts';
export type {
  ExchangeService,
  ExchangeDeps,
  MailToEnqueue,
  MailToCompose,
  MailAddressing,
  MailComposer,
  SubjectHandlers,
} from './exchange.service.ts';
export { createSmtpTransport, createMailboxTransport, recipientHash } from './exchange.mail.ts';
export type { MailTransport, OutgoingMail } from './exchange.mail.ts';
export { toDelivery } from './exchange.views.ts';
export type { Delivery, DeliveryAbout, MailDelivery, MailboxMessage } from './exchange.views.ts';
export { DeliveryList, DeliverySchema } from './exchange.schemas.ts';
export { DELIVERY_STATUSES } from './exchange.store.ts';
export type { Subject, SubjectDetail } from './exchange.store.ts';
export { exchangeJobHandlers } from './exchange.jobs.ts';
export { addressedHeaders, isDeliverableAddress, messageDomain } from './exchange.message.ts';
