/**
 * API keys (`sk_live_…`): shown once, stored as SHA-256, revocable. Owns the `api_keys` table;
 * the auth plugin authenticates through `ApiKeysService.authenticate`.
 */
export { createApiKeysService } from './api-keys.service.ts';
export type { ApiKey, ApiKeysService, KeyScope } from './api-keys.service.ts';
export { default as apiKeysRoutes } from './api-keys.routes.ts';
