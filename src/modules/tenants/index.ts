/**
 * Tenants: the companies an account issues for. Owns the `tenants` table; other modules reach a
 * tenant only through the ports of `TenantsService` (getRow, requireRow, refreshStatus,
 * requireReady as a function), never through its store.
 */
export { createTenantsService, normaliseRutEmpresa, requireReady, toTenant } from './tenants.service.ts';
export type { Tenant, TenantsService } from './tenants.service.ts';
export type { TenantRow, TenantFields } from './tenants.store.ts';
export type { TenantRef } from './tenants.service.ts';
export { credentialsComplete, DEFAULT_PROVIDER, needsApiKey, TENANT_PROVIDERS } from './tenants.provider.ts';
export type { TenantProvider } from './tenants.provider.ts';
export { createTenantLogos } from './tenants.logo.ts';
export type { TenantLogos, LogoInfo } from './tenants.logo.ts';
export { default as tenantsRoutes } from './tenants.routes.ts';
