/**
 * The provider's public surface for the rest of the service (docs/design.md §11): the port the
 * modules call (port.ts), how its errors become the API's (errors.ts), and the facts about the
 * SII's CAF keys and the provider's rate limits that config.ts reads. Kept light on purpose: a
 * module that only needs `ProviderError` does not load the adapters. The composition root builds
 * the provider through `src/provider/setup/index.ts`; the emulator's own surface (its CLI, its
 * key verifier, its bundled schemas) is `src/provider/emulator/index.ts`.
 */
export type {
  AcceptanceRegistration,
  Ambiente,
  BookStatus,
  DocumentOutcome,
  DocumentState,
  DocumentStatusRequest,
  Provider,
  ProviderCredentials,
  ProviderErrorKind,
  ProviderRoute,
  Quota,
  TypeStatistics,
  UploadResult,
  UploadStatus,
} from './port.ts';
export { ProviderError } from './port.ts';
export { isProviderError, providerErrorToAppError, rateLimitWaitMs } from './errors.ts';
export { SII_CAF_IDK, siiAmbienteOfIdk } from './sii-idk.ts';
export { cafKeysFor, type CafTrustByMode } from './caf-trust.ts';
export { EMULATOR_IDK } from './emulator/sii-key.ts';
export { parseRateLimits, type RateLimits } from './simpleapi/protocol.ts';
