import type { ProviderCredentials } from '../../provider/index.ts';
import type { TenantRow } from '../tenants/index.ts';

/** What the folios module needs from other modules, narrowed to what it uses (docs/design.md). */

/** The tenant's billing-provider credentials, decrypted for one call (the credentials module). */
export interface FolioCredentialsSource {
  getProviderCredentials(accountId: string, tenantId: string): Promise<Required<ProviderCredentials>>;
}

/** A tenant row, or a 404 that never tells whether it exists in another account (the tenants module). */
export type GetTenant = (accountId: string, tenantId: string) => Promise<TenantRow>;

/**
 * The tenant a call is about, already resolved within the caller's account (the tenant-scope
 * plugin on the API, the page's own lookup on the dashboard): the services trust it and scope
 * every query by both ids.
 */
export type { TenantRef } from '../tenants/index.ts';
