import type { KeyObject } from 'node:crypto';
import type { Sql } from '../../db/types.ts';
import { prepareSigner, type PreparedSigner } from '../../dte/index.ts';

/**
 * The tenant's signing key, prepared once and kept in this process's memory for a short time:
 * reading it means decrypting the .pfx, fetching its password from the secrets store and opening
 * the PKCS#12, which would otherwise dominate each DTE create. Never written anywhere.
 * A certificate replaced or removed through the API takes effect here within `ttlMs`.
 */
export interface SigningMaterialSource {
  getSigningMaterial(
    sql: Sql,
    accountId: string,
    tenantId: string,
  ): Promise<{ certificateId: string; privateKey: KeyObject; certificateDer: Buffer; rutCertificado: string; notAfter: Date }>;
}

export interface TenantSigner {
  certificateId: string;
  signer: PreparedSigner;
  rutCertificado: string;
}

export function createSignerCache(deps: { source: SigningMaterialSource; db: Sql; ttlMs?: number; now?: () => number }) {
  const ttl = deps.ttlMs ?? 60_000;
  const now = deps.now ?? Date.now;
  const entries = new Map<string, { at: number; value: Promise<TenantSigner> }>();
  return {
    get(accountId: string, tenantId: string): Promise<TenantSigner> {
      const key = `${accountId}/${tenantId}`;
      const hit = entries.get(key);
      if (hit && now() - hit.at < ttl) return hit.value;
      const value = deps.source.getSigningMaterial(deps.db, accountId, tenantId).then((m) => ({
        certificateId: m.certificateId,
        signer: prepareSigner({ privateKey: m.privateKey, certificateDer: m.certificateDer }),
        rutCertificado: m.rutCertificado,
      }));
      entries.set(key, { at: now(), value });
      value.catch(() => entries.delete(key));
      if (entries.size > 1000) entries.delete(entries.keys().next().value as string);
      return value;
    },
    forget(accountId: string, tenantId: string) {
      entries.delete(`${accountId}/${tenantId}`);
    },
  };
}

export type SignerCache = ReturnType<typeof createSignerCache>;
