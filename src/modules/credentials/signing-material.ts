import { X509Certificate, type KeyObject } from 'node:crypto';
import type { Db, Sql } from '../../db/types.ts';
import { errors } from '../../errors.ts';
import type { ProviderCredentials } from '../../provider/index.ts';
import type { DataCipher } from '../../secrets/data-cipher.ts';
import type { SecretStore } from '../../secrets/secret-store.ts';
import { needsApiKey, type TenantsService } from '../tenants/index.ts';
import { apiKeyAad, pfxAad, pfxPasswordAad, refVersion } from './credentials.encrypted.ts';
import { credentialsStore } from './credentials.store.ts';
import { privateKeyFromPfx } from './pfx/inspect.ts';

/**
 * What the issuing modules (folios, DTE) read from the credentials (docs/credentials.md "For other
 * modules"): decrypted for one call only, never cached here — the prepared key is kept by
 * signer-cache.ts, which bounds its lifetime. Owner strings are built from what the
 * caller asks for, so a row pointed at another tenant's secret fails to decrypt (docs/secrets.md).
 */
export interface SigningMaterial {
  certificateId: string;
  privateKey: KeyObject;
  certificateDer: Buffer;
  certificatePem: string;
  /** Holder RUT in SII form (12345678-9). */
  rutCertificado: string;
  pfx: Buffer;
  pfxPassword: string;
  notAfter: Date;
}

export function createSigningMaterialSource(deps: {
  db: Db;
  secretStore: SecretStore;
  dataCipher: DataCipher;
  tenants: Pick<TenantsService, 'requireRow'>;
}) {
  const { db, secretStore, dataCipher } = deps;

  /**
   * The primary certificate, its private key and the .pfx with its password. `sql` may be the
   * caller's transaction; the secrets store is another database, read outside it.
   */
  const getSigningMaterial = async (sql: Sql, accountId: string, tenantId: string): Promise<SigningMaterial> => {
    const row = await credentialsStore.getPrimaryForSigning(sql, accountId, tenantId);
    if (!row)
      throw errors.conflict('certificate_not_configured', 'This tenant has no certificate yet. Upload one or send an activation link.');
    const pfx = dataCipher.decrypt(row.pfx_ciphertext, pfxAad(accountId, tenantId, row.id));
    const pfxPassword = await secretStore.getString(row.password_ref, pfxPasswordAad(accountId, tenantId, row.id));
    if (pfxPassword === undefined) throw new Error(`the password of certificate ${row.id} is missing from the secrets store`);
    return {
      certificateId: row.id,
      privateKey: privateKeyFromPfx(pfx, pfxPassword, row.certificate_der),
      certificateDer: row.certificate_der,
      certificatePem: new X509Certificate(row.certificate_der).toString(),
      rutCertificado: row.rut_certificado,
      pfx,
      pfxPassword,
      notAfter: row.not_after,
    };
  };

  /** For provider calls: the tenant's billing-provider API key. */
  const getProviderApiKey = async (accountId: string, tenantId: string): Promise<string> => {
    const row = await credentialsStore.getApiKey(db, accountId, tenantId);
    if (!row) throw errors.conflict('api_key_not_configured', "This tenant's billing-provider API key is not configured yet.");
    const key = await secretStore.getString(row.secret_ref, apiKeyAad(accountId, tenantId, refVersion(row.secret_ref)));
    if (key === undefined) throw new Error(`the API key of tenant ${tenantId} is missing from the secrets store`);
    return key;
  };

  return {
    getSigningMaterial,
    getProviderApiKey,
    /**
     * Everything a provider call with the certificate needs (folios, uploads, status, claims), and
     * the path it takes (`via`, the tenant's provider: src/provider/routed.ts). A direct tenant
     * (`sii`) needs no API key: `apiKey` is '' even when one is stored, so nothing meant for SimpleAPI
     * travels on the SII's path. Read at each call, so a provider changed by PATCH applies to the
     * next call; a document or CAF does not remember the path it took.
     */
    async getProviderCredentials(accountId: string, tenantId: string): Promise<Required<ProviderCredentials>> {
      const { provider, livemode } = await deps.tenants.requireRow(db, accountId, tenantId);
      const apiKey = needsApiKey(provider) ? await getProviderApiKey(accountId, tenantId) : '';
      const m = await getSigningMaterial(db, accountId, tenantId);
      // A test tenant's calls go to the built-in emulator whatever `via` says (docs/design.md "Test mode").
      return { apiKey, via: provider, livemode, pfx: m.pfx, pfxPassword: m.pfxPassword, rutCertificado: m.rutCertificado };
    },
  };
}

export type SigningMaterialSource = ReturnType<typeof createSigningMaterialSource>;
