import type { Db } from '../../db/types.ts';
import type { AuditRecorder } from '../audit/index.ts';
import type { Clock } from '../../lib/clock.ts';
import type { DataCipher } from '../../secrets/data-cipher.ts';
import type { SecretStore } from '../../secrets/secret-store.ts';
import { credentialsComplete, DEFAULT_PROVIDER, needsApiKey, type TenantProvider, type TenantsService } from '../tenants/index.ts';
import { createApiKeyService, type ApiKeyState } from './api-key.service.ts';
import { createCertificatesService, type CertificateEntry } from './certificates.service.ts';
import type { CredentialWriter } from './credential-writer.ts';
import { createSigningMaterialSource } from './signing-material.ts';
import { createSecretSweep } from './sweep.ts';

/**
 * The credentials module as the rest of the app sees it (routes, dashboard, the signer cache,
 * folios): a composition of its parts, each keeping one invariant —
 * - api-key.service.ts and certificates.service.ts: what may be stored (docs/credentials.md);
 * - credential-writer.ts: the write order across the two databases, shared with the hosted
 *   page's activation.service.ts;
 * - signing-material.ts: decryption for one call only;
 * - sweep.ts: removal of secrets no row points to.
 */
export interface CredentialStatus {
  /** The tenant's provider: which path its documents take, and so what it needs. */
  provider: TenantProvider;
  /** `required`: false for a direct tenant (`sii`), whose calls need no API key. */
  apiKey: ApiKeyState & { required: boolean };
  certificates: CertificateEntry[];
  /** What the provider needs is configured. */
  ready: boolean;
  /** What is still needed before the tenant can issue, in the order to supply it. */
  missing: ('apiKey' | 'certificate')[];
}

export interface CredentialsDeps {
  db: Db;
  clock: Clock;
  secretStore: SecretStore;
  dataCipher: DataCipher;
  writer: CredentialWriter;
  tenants: Pick<TenantsService, 'requireRow' | 'findRow'>;
  /** The audit log's recorder (docs/audit.md): every credential change is recorded in its transaction. */
  audit?: AuditRecorder | undefined;
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
      const [tenant, key, certs] = await Promise.all([
        deps.tenants.findRow(deps.db, accountId, tenantId),
        apiKey.state(accountId, tenantId),
        certificates.list(accountId, tenantId),
      ]);
      const provider = tenant?.provider ?? DEFAULT_PROVIDER;
      const required = needsApiKey(provider);
      const missing: CredentialStatus['missing'] = [
        ...(required && !key.configured ? (['apiKey'] as const) : []),
        ...(certs.length === 0 ? (['certificate'] as const) : []),
      ];
      return {
        provider,
        apiKey: { ...key, required },
        certificates: certs,
        ready: credentialsComplete(provider, { apiKey: key.configured, certificate: certs.length > 0 }),
        missing,
      };
    },

    getSigningMaterial: signing.getSigningMaterial,
    getProviderApiKey: signing.getProviderApiKey,
    getProviderCredentials: signing.getProviderCredentials,
    sweep: createSecretSweep(deps),
  };
}

export type CredentialsService = ReturnType<typeof createCredentialsService>;
