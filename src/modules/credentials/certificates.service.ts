import type { Db, Sql } from '../../db/types.ts';
import type { AuditActor, AuditRecorder } from '../audit/index.ts';
import { formatRutDotted } from '../../dte/index.ts';
import { AppError, errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId, UUID_RE } from '../../lib/tokens.ts';
import type { DataCipher } from '../../secrets/data-cipher.ts';
import type { TenantsService } from '../tenants/index.ts';
import { notifyIfCertificateRowExpiring } from './certificate-expiring.ts';
import type { Declared } from './certificate-checks.ts';
import type { CredentialWriter } from './credential-writer.ts';
import { pfxAad, pfxPasswordAad, secretRefs } from './credentials.encrypted.ts';
import { credentialsStore, type CertificateRow } from './credentials.store.ts';

/**
 * The tenant's signing certificates (docs/credentials.md "Certificates"). The .pfx is the truth:
 * it is checked before anything is stored. Exactly one certificate is primary (it signs); every
 * change locks the tenant row first, so concurrent changes cannot leave two primaries or none.
 */
export interface CertificateEntry {
  id: string;
  rutCertificado: string;
  nombreTitular: string;
  fechaVencimiento: string;
  esPrincipal: boolean;
  createdAt: string;
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

const duplicateError = (id: string) =>
  new AppError('conflict', 'certificate_duplicate', `This certificate is already stored for the tenant (id ${id}).`, {
    param: 'file',
    details: { certificateId: id },
  });

export function createCertificatesService(deps: {
  db: Db;
  clock: Clock;
  dataCipher: DataCipher;
  writer: CredentialWriter;
  tenants: Pick<TenantsService, 'requireRow'>;
  audit?: AuditRecorder | undefined;
}) {
  const { db, clock, dataCipher, writer } = deps;
  const lockTenant = (tx: Sql, accountId: string, tenantId: string) =>
    deps.tenants.requireRow(tx, accountId, tenantId, { forUpdate: true });

  return {
    /**
     * The caller resolved the tenant (the tenant-scope plugin); its row is locked again for the write.
     * `bindResult`, when given, runs in the transaction that inserts the certificate: the API binds
     * the request's Idempotency-Key to it there, so a retry after a lost response answers with this
     * certificate (certificateById) instead of certificate_duplicate (src/http/plugins/idempotency.ts).
     */
    async addCertificate(
      accountId: string,
      tenantId: string,
      input: CertificateInput,
      opts: { bindResult?: ((tx: Sql, id: string) => Promise<void>) | undefined } = {},
      actor?: AuditActor,
    ): Promise<CertificateEntry> {
      const { info, rut, fechaVencimiento } = await writer.inspectCertificate(input.file, input.password, {
        rutCertificado: input.rutCertificado,
        fechaVencimiento: input.fechaVencimiento,
      });
      const duplicate = await credentialsStore.findByFingerprint(db, accountId, tenantId, info.fingerprint256);
      if (duplicate) throw duplicateError(duplicate.id);
      const id = newId();
      const password = {
        ref: secretRefs.pfxPassword(tenantId, id),
        aad: pfxPasswordAad(accountId, tenantId, id),
        value: input.password,
      };
      try {
        const row = await writer.write([password], async (tx) => {
          await lockTenant(tx, accountId, tenantId);
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
              passwordRef: password.ref,
            },
            input.esPrincipal || count === 0,
            now,
          );
          await writer.applyChange(tx, accountId, tenantId, now);
          await notifyIfCertificateRowExpiring(tx, inserted, now); // certificate.expiring, if already in the 30-day window
          await opts.bindResult?.(tx, id);
          await deps.audit?.recordIn(tx, actor, {
            accountId,
            action: 'certificate.uploaded',
            target: { type: 'certificate', id },
            details: {
              tenantId,
              rutCertificado: rut,
              fingerprint256: info.fingerprint256,
              notAfter: info.notAfter,
              primary: inserted.es_principal,
            },
          });
          return { result: inserted };
        });
        return toCertificateEntry(row);
      } catch (e) {
        // Two uploads of the same file raced past the check above: the unique index decides.
        if ((e as { code?: string }).code === '23505') {
          const again = await credentialsStore.findByFingerprint(db, accountId, tenantId, info.fingerprint256);
          if (again) throw duplicateError(again.id);
        }
        throw e;
      }
    },

    /** Makes a certificate the one that signs the tenant's documents from now on. */
    async makePrincipal(accountId: string, tenantId: string, certificateId: string, actor?: AuditActor): Promise<CertificateEntry> {
      const row = await writer.write([], async (tx) => {
        await lockTenant(tx, accountId, tenantId);
        if (!UUID_RE.test(certificateId)) return { result: undefined };
        const now = clock.now();
        const cert = await credentialsStore.getCertificate(tx, accountId, tenantId, certificateId);
        // An expired certificate cannot sign: making it primary would only make every create fail.
        if (cert && !cert.es_principal && cert.not_after.getTime() <= now.getTime())
          throw errors.unprocessable(
            'certificate_expired',
            `The certificate expired on ${cert.not_after.toISOString()}; make a current one primary instead.`,
            { param: 'certificateId', details: { notAfter: cert.not_after.toISOString() } },
          );
        if (!cert || cert.es_principal) return { result: cert };
        const promoted = await credentialsStore.makePrincipal(tx, cert, now);
        // Only a real change of signer is a credentials change worth an event.
        await writer.applyChange(tx, accountId, tenantId, now);
        await deps.audit?.recordIn(tx, actor, {
          accountId,
          action: 'certificate.made_primary',
          target: { type: 'certificate', id: cert.id },
          details: { tenantId },
        });
        return { result: promoted };
      });
      if (!row) throw errors.notFound('certificate', certificateId);
      return toCertificateEntry(row);
    },

    async deleteCertificate(accountId: string, tenantId: string, certificateId: string, actor?: AuditActor): Promise<void> {
      const gone = await writer.write([], async (tx) => {
        await lockTenant(tx, accountId, tenantId);
        if (!UUID_RE.test(certificateId)) return { result: false };
        const now = clock.now();
        const removed = await credentialsStore.deleteCertificate(tx, accountId, tenantId, certificateId, now);
        if (removed) {
          await writer.applyChange(tx, accountId, tenantId, now);
          await deps.audit?.recordIn(tx, actor, {
            accountId,
            action: 'certificate.removed',
            target: { type: 'certificate', id: certificateId },
            details: { tenantId },
          });
        }
        return { result: !!removed, replaced: [removed?.password_ref] };
      });
      if (!gone) throw errors.notFound('certificate', certificateId);
    },

    /** A certificate by id within the account (the replay of an upload whose response was lost). */
    async certificateById(accountId: string, certificateId: string): Promise<CertificateEntry> {
      const row = UUID_RE.test(certificateId) ? await credentialsStore.getCertificate(db, accountId, null, certificateId) : undefined;
      if (!row) throw errors.notFound('certificate', certificateId);
      return toCertificateEntry(row);
    },

    async list(accountId: string, tenantId: string): Promise<CertificateEntry[]> {
      return (await credentialsStore.listCertificates(db, accountId, tenantId)).map(toCertificateEntry);
    },
  };
}

export type CertificatesService = ReturnType<typeof createCertificatesService>;
