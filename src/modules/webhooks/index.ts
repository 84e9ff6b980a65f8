/**
 * Webhooks: endpoints, signed messages built from the outbox, and their delivery. Owns the
 * webhook tables; other modules emit events through src/events/outbox.ts only.
 */
export { createWebhooksService } from './webhooks.service.ts';
export type { WebhooksService, Endpoint, Attempt, Message, MessageStatus } from './webhooks.service.ts';
export { SIGNATURE_SCHEMES, SECRET_PREFIX } from './signing.ts';
export type { SignatureScheme } from './signing.ts';
export { webhooksEncryptedColumns } from './webhooks.encrypted.ts';
export { webhookLoops, webhookPeriodics } from './webhooks.background.ts';
export { notifyIfCertificateRowExpiring, scanExpiringCertificates } from './certificate-expiring.ts';
export { default as webhooksRoutes } from './webhooks.routes.ts';
