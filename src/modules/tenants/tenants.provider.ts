import type { ProviderRoute } from '../../provider/index.ts';

/**
 * The tenant's `provider` (docs/decisions.md §14, docs/credentials.md "A provider per tenant"): which path its documents take to the
 * SII, and so which credentials it needs. One home for that fact: the tenant status, the
 * credential status, the hosted page and the provider credentials all ask here.
 */
export type TenantProvider = ProviderRoute;

export const TENANT_PROVIDERS = ['simpleapi', 'sii'] as const satisfies readonly TenantProvider[];

export const DEFAULT_PROVIDER: TenantProvider = 'simpleapi';

/** Whether the tenant's calls need its billing-provider API key: only through SimpleAPI. */
export const needsApiKey = (provider: TenantProvider): boolean => provider === 'simpleapi';

/** Whether what `provider` needs is configured: the certificate always, the API key through SimpleAPI. */
export const credentialsComplete = (provider: TenantProvider, c: { apiKey: boolean; certificate: boolean }): boolean =>
  c.certificate && (c.apiKey || !needsApiKey(provider));
