import type { Db } from '../../db/types.ts';
import type { AuditActor, AuditRecorder } from '../audit/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/tokens.ts';
import type { TenantsService } from '../tenants/index.ts';
import type { CredentialWriter } from './credential-writer.ts';
import { apiKeyAad, secretRefs } from './credentials.encrypted.ts';
import { credentialsStore } from './credentials.store.ts';

/**
 * The tenant's billing-provider API key (docs/credentials.md "The billing-provider API key"): only
 * a key the provider accepts is saved, under a fresh versioned ref, replacing the previous one.
 */
export interface ApiKeyState {
  configured: boolean;
  lastVerified: string | null;
}

export function createApiKeyService(deps: {
  db: Db;
  clock: Clock;
  writer: CredentialWriter;
  tenants: Pick<TenantsService, 'requireRow'>;
  audit?: AuditRecorder | undefined;
}) {
  const { db, clock, writer } = deps;
  return {
    /** The caller resolved the tenant (the tenant-scope plugin); its row is locked again for the write. */
    async setApiKey(accountId: string, tenantId: string, apiKey: string, actor?: AuditActor): Promise<{ apiKey: ApiKeyState }> {
      // A test tenant's key is checked by the built-in emulator (docs/design.md "Test mode").
      const { livemode } = await deps.tenants.requireRow(db, accountId, tenantId);
      const verifiedAt = await writer.verifyApiKey(apiKey, livemode);
      const version = newId();
      const fresh = { ref: secretRefs.apiKey(tenantId, version), aad: apiKeyAad(accountId, tenantId, version), value: apiKey };
      await writer.write([fresh], async (tx) => {
        // The tenant row lock serialises every credential change of the tenant (and its summary).
        await deps.tenants.requireRow(tx, accountId, tenantId, { forUpdate: true });
        const now = clock.now();
        const replaced = await credentialsStore.upsertApiKey(tx, accountId, tenantId, fresh.ref, verifiedAt, now);
        await writer.applyChange(tx, accountId, tenantId, now);
        // Never the key: only that one was set, and whether it replaced another.
        await deps.audit?.recordIn(tx, actor, {
          accountId,
          action: replaced ? 'credential.api_key_replaced' : 'credential.api_key_set',
          target: { type: 'tenant', id: tenantId },
          details: { verifiedAt },
        });
        return { result: undefined, replaced: [replaced] };
      });
      return { apiKey: { configured: true, lastVerified: verifiedAt.toISOString() } };
    },

    /** Whether a key is configured, for the status; never the key itself. */
    async state(accountId: string, tenantId: string): Promise<ApiKeyState> {
      const row = await credentialsStore.getApiKey(db, accountId, tenantId);
      return { configured: !!row, lastVerified: row?.verified_at.toISOString() ?? null };
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
