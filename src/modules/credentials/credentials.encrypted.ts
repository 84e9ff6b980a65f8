import { ownerAad } from '../../secrets/data-cipher.ts';
import type { EncryptedColumn } from '../../secrets/encrypted-columns.ts';

/**
 * Owner strings of the credentials module's envelopes, and its encrypted columns for key
 * rotation. A .pfx is bound to (account, tenant, certificate id): the same id is used while it is
 * staged on an activation link and after it becomes a tenant certificate, so completing an
 * activation moves the ciphertext without decrypting it.
 */
export const pfxAad = (accountId: string, tenantId: string, certificateId: string) =>
  ownerAad({ accountId, tenantId, kind: 'pfx', id: certificateId });

/** Secrets-store refs. A ref says where a value is; the owner string says whose it must be. */
export const secretRefs = {
  apiKey: (tenantId: string, version: string) => `tenant/${tenantId}/provider-api-key/${version}`,
  pfxPassword: (tenantId: string, certificateId: string) => `tenant/${tenantId}/pfx-password/${certificateId}`,
};

/**
 * Owner strings of secrets, always built from what the caller asks for (its account, the tenant,
 * the certificate row) and never read back from a stored ref: a row pointed at another tenant's
 * or another certificate's secret then fails to decrypt instead of handing it over.
 */
export const apiKeyAad = (accountId: string, tenantId: string, version: string) =>
  ownerAad({ accountId, tenantId, kind: 'provider-api-key', id: version });

export const pfxPasswordAad = (accountId: string, tenantId: string, certificateId: string) =>
  ownerAad({ accountId, tenantId, kind: 'pfx-password', id: certificateId });

/** The version part of an API-key ref (the last path segment). */
export const refVersion = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1);

const str = (v: unknown) => String(v);

export const credentialsEncryptedColumns: EncryptedColumn[] = [
  {
    table: 'tenant_certificates',
    column: 'pfx_ciphertext',
    key: 'id',
    needs: ['account_id', 'tenant_id'],
    aad: (r) => pfxAad(str(r.account_id), str(r.tenant_id), str(r.id)),
  },
  {
    table: 'activation_links',
    column: 'staged_pfx',
    key: 'id',
    needs: ['account_id', 'tenant_id', 'staged_certificate'],
    aad: (r) => pfxAad(str(r.account_id), str(r.tenant_id), str((r.staged_certificate as { id: string }).id)),
  },
];
