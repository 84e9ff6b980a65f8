/**
 * Webhooks: endpoints, signed messages built from the outbox, and their delivery (delivery/,
 * docs/webhooks.md "How delivery works"). Owns the webhook tables; other modules emit events
 * through src/events/outbox.ts only.
 */
export { createWebhooksService } from './webhooks.service.ts';
export type { WebhooksService, Endpoint, Attempt, Message, MessageStatus } from './webhooks.service.ts';
export { SIGNATURE_SCHEMES } from './signing.ts';
export type { SignatureScheme } from './signing.ts';
export { webhooksEncryptedColumns } from './webhooks.encrypted.ts';
export { webhookLoops, webhookPeriodics } from './webhooks.background.ts';
// The delivery worker on its own, for tests and bench/webhooks.ts that drive it with their own settings.
export { createDeliveryWorker } from './delivery/delivery-worker.ts';
export type { DeliveryWorker, DeliverySettings, DeliveryObserver } from './delivery/delivery-worker.ts';
export type { Sender, SendRequest, SendResult } from './delivery/http-sender.ts';
export type { Resolver, ResolvedAddress } from './delivery/url-policy.ts';
export { EVENT_DATA_SCHEMAS, WebhookPayloadSchema } from './event-schemas.ts';
export { default as webhooksRoutes } from './webhooks.routes.ts';
