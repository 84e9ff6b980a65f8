import type { Db } from '../../db/types.ts';
import type { Clock } from '../../lib/clock.ts';
import type { DataCipher } from '../../secrets/data-cipher.ts';
import type { SecretStore } from '../../secrets/secret-store.ts';
import type { TenantsService } from '../tenants/index.ts';
import { createApiKeyService, type ApiKeyState } from './api-key.service.ts';
import { createCertificatesService, type CertificateEntry } from './certificates.service.ts';
import type { CredentialWriter } from './credential-writer.ts';
import { createSigningMaterialSource } from './signing-material.ts';
import { createSecretSweep } from './sweep.ts';

/**
 * The credentials module as the rest of the app sees it (routes, dashboard, the DTE signer cache,
 * folios): a composition of its parts, each keeping one invariant —
 * - api-key.service.ts and certificates.service.ts: what may be stored (docs/credentials.md);
 * - credential-writer.ts: the write order across the two databases, shared with the hosted
 *   page's activation.service.ts;
 * - signing-material.ts: decryption for one call only;
 * - sweep.ts: removal of secrets no row points to.
 */
export interface CredentialStatus {
  apiKey: ApiKeyState;
  certificates: CertificateEntry[];
  ready: boolean;
}

export interface CredentialsDeps {
  db: Db;
  clock: Clock;
  secretStore: SecretStore;
  dataCipher: DataCipher;
  writer: CredentialWriter;
  tenants: Pick<TenantsService, 'requireRow'>;
}

export function createCredentialsService(deps: CredentialsDeps) {
  const apiKey = createApiKeyService(deps);
  const certificates = createCertificatesService(deps);
  const signing = createSigningMaterialSource(deps);
  return {
    setApiKey: apiKey.setApiKey,
    addCertificate: certificates.addCertificate,
    certificateById: certificates.certificateById,
    makePrincipal: certificates.makePrincipal,
    deleteCertificate: certificates.deleteCertificate,

    /**
     * Whether the tenant can issue. The caller resolved the tenant (the tenant-scope plugin, or
     * tenants.get in the dashboard); the reads are scoped by account, so another account's tenant
     * reads as nothing configured.
     */
    async status(accountId: string, tenantId: string): Promise<CredentialStatus> {
      const [key, certs] = await Promise.all([apiKey.state(accountId, tenantId), certificates.list(accountId, tenantId)]);
      return { apiKey: key, certificates: certs, ready: key.configured && certs.length > 0 };
    },

    getSigningMaterial: signing.getSigningMaterial,
    getProviderApiKey: signing.getProviderApiKey,
    getProviderCredentials: signing.getProviderCredentials,
    sweep: createSecretSweep(deps),
  };
}

export type CredentialsService = ReturnType<typeof createCredentialsService>;
