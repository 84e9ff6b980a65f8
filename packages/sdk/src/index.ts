/**
 * @dte-service/sdk — a TypeScript client for the DTE issuing service (README "TypeScript SDK").
 */
export { DteClient, multipart, type DteClientOptions, type CallOptions, type ListPath, type ListItem } from './client.ts';
export {
  DteError,
  DteApiError,
  DteInvalidRequestError,
  DteAuthenticationError,
  DteNotFoundError,
  DteConflictError,
  DteRateLimitError,
  DteServerError,
  DteConnectionError,
  WebhookVerificationError,
  type WebhookFailure,
} from './errors.ts';
export {
  verifyWebhook,
  DEFAULT_TOLERANCE_SECONDS,
  type SignatureScheme,
  type VerifyWebhookOptions,
  type WebhookEvent,
  type WebhookEventData,
  type WebhookEventType,
  type WebhookHeaders,
} from './webhooks.ts';
export type { paths, components } from './schema.d.ts';
