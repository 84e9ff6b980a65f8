import { X509Certificate, type KeyObject } from 'node:crypto';
import type { Db, Sql } from '../../db/types.ts';
import { formatRutDotted } from '../../dte/rut.ts';
import { AppError, errors } from '../../errors.ts';
import { emitEvent } from '../../events/outbox.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId, UUID_RE } from '../../lib/tokens.ts';
import { providerErrorToAppError } from '../../provider/errors.ts';
import { ProviderError, type Provider, type ProviderCredentials } from '../../provider/port.ts';
import type { DataCipher } from '../../secrets/data-cipher.ts';
import type { SecretStore } from '../../secrets/secret-store.ts';
import type { TenantsService } from '../tenants/index.ts';
import { checkCertificate, type Declared } from './certificate-checks.ts';
import { apiKeyAad, pfxAad, pfxPasswordAad, refVersion, secretRefs } from './credentials.encrypted.ts';
import { credentialsStore, type CertificateRow } from './credentials.store.ts';
import { activationStore } from './activation.store.ts';
import { privateKeyFromPfx, PfxError, type PfxInspection } from './pfx/inspect.ts';
import type { PfxInspector } from './pfx/isolated.ts';
import { notifyIfCertificateRowExpiring } from '../webhooks/index.ts';

/**
 * Tenant credentials: the billing-provider API key and the signing certificates.
 *
 * Two databases are involved (main + secrets store), so writes follow one order: verify and
 * decrypt outside any transaction; write the new secret under a fresh ref; commit the main
 * database change that points to it (with the tenant summary and the event); then delete the
 * secret it replaced. A failure before commit deletes the fresh secret; a crash leaves at worst an
 * unreferenced secret, which the hourly sweep removes.
 */
export interface CertificateEntry {
  id: string;
  rutCertificado: string;
  nombreTitular: string;
  fechaVencimiento: string;
  esPrincipal: boolean;
  createdAt: string;
}

export interface CredentialStatus {
  apiKey: { configured: boolean; lastVerified: string | null };
  certificates: CertificateEntry[];
  ready: boolean;
}

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

export interface CertificateInput extends Required<Declared> {
  file: Buffer;
  password: string;
  nombreTitular: string;
  esPrincipal: boolean;
}

export const MAX_CERTIFICATES_PER_TENANT = 10;

export const toCertificateEntry = (r: CertificateRow): CertificateEntry => ({
  id: r.id,
  rutCertificado: formatRutDotted(r.rut_certificado),
  nombreTitular: r.nombre_titular,
  fechaVencimiento: r.fecha_vencimiento,
  esPrincipal: r.es_principal,
  createdAt: r.created_at.toISOString(),
});

export interface CredentialsDeps {
  db: Db;
  clock: Clock;
  secretStore: SecretStore;
  dataCipher: DataCipher;
  verifier: Pick<Provider, 'verifyApiKey'>;
  pfxInspector: PfxInspector;
  tenants: Pick<TenantsService, 'requireRow' | 'refreshStatus'>;
  log?: { warn: (obj: object, msg: string) => void };
}

export function createCredentialsService(deps: CredentialsDeps) {
  const { db, clock, secretStore, dataCipher, verifier, pfxInspector } = deps;

  const discard = async (refs: (string | undefined | null)[]) => {
    for (const ref of refs)
      if (ref)
        await secretStore
          .delete(ref)
          .catch((e: unknown) => deps.log?.warn({ err: e }, 'could not delete a replaced secret; the sweep will'));
  };

  const requireTenant = async (sql: Sql, accountId: string, tenantId: string, forUpdate = false) => {
    return deps.tenants.requireRow(sql, accountId, tenantId, { forUpdate });
  };

  /** After any credential change, inside its transaction: summary, tenant status, event. */
  const applyChange = async (tx: Sql, accountId: string, tenantId: string, now: Date) => {
    const s = await credentialsStore.writeSummary(tx, accountId, tenantId, now);
    await deps.tenants.refreshStatus(tx, accountId, tenantId);
    if (s?.api_key_verified_at && s.certificate_configured)
      await emitEvent(tx, {
        accountId,
        type: 'tenant.credentials.updated',
        data: { tenantId, apiKey: { configured: true }, certificate: { configured: true } },
        now,
      });
  };

  /** Asks the provider; maps its refusal to 422/502/504. Never inside a transaction. */
  const verifyApiKey = async (apiKey: string): Promise<Date> => {
    try {
      await verifier.verifyApiKey(apiKey);
    } catch (e) {
      // Rejected or expired key → 422; provider down or slow → 502/504. Nothing is saved.
      throw e instanceof ProviderError ? providerErrorToAppError(e) : e;
    }
    return clock.now();
  };

  /** Reads an untrusted .pfx in a worker and applies the clock-dependent checks. */
  const inspectCertificate = async (file: Buffer, password: string, declared?: Declared) => {
    let info: PfxInspection;
    try {
      info = await pfxInspector.inspect(file, password);
    } catch (e) {
      if (e instanceof PfxError)
        throw errors.unprocessable(e.code, e.message, { param: e.code === 'certificate_password_invalid' ? 'password' : 'file' });
      throw e;
    }
    return { info, ...checkCertificate(info, clock.now(), declared) };
  };

  const putSecret = async (ref: string, aad: string, value: string) => {
    await secretStore.put(ref, value, aad);
    return ref;
  };

  const service = {
    verifyApiKey,
    inspectCertificate,
    applyChange,
    discard,
    putSecret,

    async setApiKey(accountId: string, tenantId: string, apiKey: string) {
      await requireTenant(db, accountId, tenantId);
      const verifiedAt = await verifyApiKey(apiKey);
      const version = newId();
      const ref = await putSecret(secretRefs.apiKey(tenantId, version), apiKeyAad(accountId, tenantId, version), apiKey);
      let replaced: string | undefined;
      try {
        replaced = await db.transaction(async (tx) => {
          await requireTenant(tx, accountId, tenantId, true);
          const now = clock.now();
          const old = await credentialsStore.upsertApiKey(tx, accountId, tenantId, ref, verifiedAt, now);
          await applyChange(tx, accountId, tenantId, now);
          return old;
        });
      } catch (e) {
        await discard([ref]);
        throw e;
      }
      await discard([replaced]);
      return { apiKey: { configured: true, lastVerified: verifiedAt.toISOString() } };
    },

    async addCertificate(accountId: string, tenantId: string, input: CertificateInput): Promise<CertificateEntry> {
      await requireTenant(db, accountId, tenantId);
      const { info, rut, fechaVencimiento } = await inspectCertificate(input.file, input.password, {
        rutCertificado: input.rutCertificado,
        fechaVencimiento: input.fechaVencimiento,
      });
      const duplicate = await credentialsStore.findByFingerprint(db, accountId, tenantId, info.fingerprint256);
      if (duplicate) throw duplicateError(duplicate.id);
      const id = newId();
      const passwordRef = await putSecret(secretRefs.pfxPassword(tenantId, id), pfxPasswordAad(accountId, tenantId, id), input.password);
      try {
        const row = await db.transaction(async (tx) => {
          await requireTenant(tx, accountId, tenantId, true);
          const count = await credentialsStore.countCertificates(tx, accountId, tenantId);
          if (count >= MAX_CERTIFICATES_PER_TENANT)
            throw errors.conflict(
              'certificate_limit_reached',
              `A tenant can hold at most ${MAX_CERTIFICATES_PER_TENANT} certificates. Delete one first.`,
            );
          const now = clock.now();
          const inserted = await credentialsStore.insertCertificate(
            tx,
            accountId,
            tenantId,
            {
              id,
              rutCertificado: rut,
              nombreTitular: input.nombreTitular,
              fechaVencimiento,
              subject: info.subject,
              issuer: info.issuer,
              serialNumber: info.serialNumber,
              fingerprint256: info.fingerprint256,
              notBefore: new Date(info.notBefore),
              notAfter: new Date(info.notAfter),
              certificateDer: Buffer.from(info.certificateDer),
              pfxCiphertext: dataCipher.encrypt(input.file, pfxAad(accountId, tenantId, id)),
              passwordRef,
            },
            input.esPrincipal || count === 0,
            now,
          );
          await applyChange(tx, accountId, tenantId, now);
          await notifyIfCertificateRowExpiring(tx, inserted, now); // certificate.expiring, if already in the 30-day window
          return inserted;
        });
        return toCertificateEntry(row);
      } catch (e) {
        await discard([passwordRef]);
        if ((e as { code?: string }).code === '23505') {
          const again = await credentialsStore.findByFingerprint(db, accountId, tenantId, info.fingerprint256);
          if (again) throw duplicateError(again.id);
        }
        throw e;
      }
    },

    /** Makes a certificate the one that signs the tenant's documents from now on. */
    async makePrincipal(accountId: string, tenantId: string, certificateId: string): Promise<CertificateEntry> {
      const row = await db.transaction(async (tx) => {
        await requireTenant(tx, accountId, tenantId, true);
        if (!UUID_RE.test(certificateId)) return undefined;
        const now = clock.now();
        const cert = await credentialsStore.getCertificate(tx, accountId, tenantId, certificateId);
        // An expired certificate cannot sign: making it primary would only make every create fail.
        if (cert && !cert.es_principal && cert.not_after.getTime() <= now.getTime())
          throw errors.unprocessable(
            'certificate_expired',
            `The certificate expired on ${cert.not_after.toISOString()}; make a current one primary instead.`,
            {
              param: 'certificateId',
              details: { notAfter: cert.not_after.toISOString() },
            },
          );
        if (!cert || cert.es_principal) return cert;
        const row = await credentialsStore.makePrincipal(tx, cert, now);
        // Only a real change of signer is a credentials change worth an event.
        await applyChange(tx, accountId, tenantId, now);
        return row;
      });
      if (!row) throw errors.notFound('certificate', certificateId);
      return toCertificateEntry(row);
    },

    async deleteCertificate(accountId: string, tenantId: string, certificateId: string) {
      const gone = await db.transaction(async (tx) => {
        await requireTenant(tx, accountId, tenantId, true);
        if (!UUID_RE.test(certificateId)) return undefined;
        const now = clock.now();
        const removed = await credentialsStore.deleteCertificate(tx, accountId, tenantId, certificateId, now);
        if (removed) await applyChange(tx, accountId, tenantId, now);
        return removed;
      });
      if (!gone) throw errors.notFound('certificate', certificateId);
      await discard([gone.password_ref]);
    },

    async status(accountId: string, tenantId: string): Promise<CredentialStatus> {
      await requireTenant(db, accountId, tenantId);
      const apiKey = await credentialsStore.getApiKey(db, accountId, tenantId);
      const certificates = (await credentialsStore.listCertificates(db, accountId, tenantId)).map(toCertificateEntry);
      return {
        apiKey: { configured: !!apiKey, lastVerified: apiKey?.verified_at.toISOString() ?? null },
        certificates,
        ready: !!apiKey && certificates.length > 0,
      };
    },

    /**
     * For the issuing module: the primary certificate, its private key and the .pfx with its
     * password, decrypted for this call only (do not keep them). `sql` may be the caller's
     * transaction; the secrets store is another database, read outside it.
     */
    async getSigningMaterial(sql: Sql, accountId: string, tenantId: string): Promise<SigningMaterial> {
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
    },

    /** For provider calls: the tenant's billing-provider API key, decrypted for this call only. */
    async getProviderApiKey(accountId: string, tenantId: string): Promise<string> {
      const row = await credentialsStore.getApiKey(db, accountId, tenantId);
      if (!row) throw errors.conflict('api_key_not_configured', "This tenant's billing-provider API key is not configured yet.");
      const key = await secretStore.getString(row.secret_ref, apiKeyAad(accountId, tenantId, refVersion(row.secret_ref)));
      if (key === undefined) throw new Error(`the API key of tenant ${tenantId} is missing from the secrets store`);
      return key;
    },

    /** Everything a provider call with the certificate needs (folios, uploads, status). */
    async getProviderCredentials(accountId: string, tenantId: string): Promise<Required<ProviderCredentials>> {
      const apiKey = await service.getProviderApiKey(accountId, tenantId);
      const m = await service.getSigningMaterial(db, accountId, tenantId);
      return { apiKey, pfx: m.pfx, pfxPassword: m.pfxPassword, rutCertificado: m.rutCertificado };
    },

    /**
     * Removes secrets no row points to any more (a crash between the two databases, a deleted
     * tenant, an abandoned activation) once they are older than `graceMs`, and staged .pfx files of
     * links that can no longer complete.
     */
    async sweep(graceMs = 86_400_000): Promise<{ secretsDeleted: number; stagedCleared: number }> {
      const now = clock.now();
      const cutoff = new Date(now.getTime() - graceMs);
      let after: string | undefined;
      let secretsDeleted = 0;
      for (;;) {
        const batch = await secretStore.list({ prefix: 'tenant/', olderThan: cutoff, ...(after ? { after } : {}), limit: 500 });
        if (batch.length === 0) break;
        const refs = batch.map((b) => b.ref);
        const live = await credentialsStore.referencedSecretRefs(db, refs, now);
        for (const ref of refs) if (!live.has(ref) && (await secretStore.delete(ref))) secretsDeleted++;
        after = refs[refs.length - 1];
      }
      const stagedCleared = await db.transaction((tx) => activationStore.clearStaleStaging(tx, now));
      return { secretsDeleted, stagedCleared };
    },
  };
  return service;
}

const duplicateError = (id: string) =>
  new AppError('conflict', 'certificate_duplicate', `This certificate is already stored for the tenant (id ${id}).`, {
    param: 'file',
    details: { certificateId: id },
  });

export type CredentialsService = ReturnType<typeof createCredentialsService>;
