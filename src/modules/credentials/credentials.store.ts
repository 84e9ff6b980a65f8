import type { Sql } from '../../db/types.ts';

/**
 * Rows of the credentials tables. Every query is scoped by account, except the expiry scan and the
 * orphan sweep, which serve every account. Secrets are never selected into general-purpose rows:
 * the .pfx envelope is read only by `getPrimaryForSigning`, for signing.
 */
export interface CertificateRow {
  id: string;
  account_id: string;
  tenant_id: string;
  rut_certificado: string;
  nombre_titular: string;
  fecha_vencimiento: string;
  es_principal: boolean;
  subject: string;
  issuer: string;
  serial_number: string;
  fingerprint_sha256: string;
  not_before: Date;
  not_after: Date;
  password_ref: string;
  created_at: Date;
  updated_at: Date;
}

export interface NewCertificate {
  id: string;
  rutCertificado: string;
  nombreTitular: string;
  fechaVencimiento: string;
  subject: string;
  issuer: string;
  serialNumber: string;
  fingerprint256: string;
  notBefore: Date;
  notAfter: Date;
  certificateDer: Buffer;
  pfxCiphertext: Buffer;
  passwordRef: string;
}

export interface ApiKeyRow {
  tenant_id: string;
  secret_ref: string;
  verified_at: Date;
}

const CERT_COLUMNS = `id, account_id, tenant_id, rut_certificado, nombre_titular,
  to_char(fecha_vencimiento, 'YYYY-MM-DD') as fecha_vencimiento, es_principal, subject, issuer, serial_number,
  fingerprint_sha256, not_before, not_after, password_ref, created_at, updated_at`;

export const credentialsStore = {
  async getApiKey(tx: Sql, accountId: string, tenantId: string) {
    const r = await tx.query<ApiKeyRow>(
      'select tenant_id, secret_ref, verified_at from tenant_api_keys where account_id = $1 and tenant_id = $2',
      [accountId, tenantId],
    );
    return r.rows[0];
  },

  /** Sets the tenant's API key; returns the ref it replaced, for deletion after commit. */
  async upsertApiKey(tx: Sql, accountId: string, tenantId: string, ref: string, verifiedAt: Date, now: Date) {
    const old = await this.getApiKey(tx, accountId, tenantId);
    await tx.query(
      `insert into tenant_api_keys (tenant_id, account_id, secret_ref, verified_at, created_at, updated_at)
       values ($2, $1, $3, $4, $5, $5)
       on conflict (tenant_id) do update set secret_ref = excluded.secret_ref, verified_at = excluded.verified_at,
         updated_at = excluded.updated_at`,
      [accountId, tenantId, ref, verifiedAt, now],
    );
    return old && old.secret_ref !== ref ? old.secret_ref : undefined;
  },

  async listCertificates(tx: Sql, accountId: string, tenantId: string) {
    const r = await tx.query<CertificateRow>(
      `select ${CERT_COLUMNS} from tenant_certificates where account_id = $1 and tenant_id = $2 order by created_at, id`,
      [accountId, tenantId],
    );
    return r.rows;
  },

  /** By id within the account, and within the tenant unless `tenantId` is null. */
  async getCertificate(tx: Sql, accountId: string, tenantId: string | null, id: string) {
    const r = await tx.query<CertificateRow>(
      `select ${CERT_COLUMNS} from tenant_certificates
       where account_id = $1 and ($2::uuid is null or tenant_id = $2::uuid) and id::text = $3`,
      [accountId, tenantId, id],
    );
    return r.rows[0];
  },

  async findByFingerprint(tx: Sql, accountId: string, tenantId: string, fingerprint: string) {
    const r = await tx.query<CertificateRow>(
      `select ${CERT_COLUMNS} from tenant_certificates where account_id = $1 and tenant_id = $2 and fingerprint_sha256 = $3`,
      [accountId, tenantId, fingerprint],
    );
    return r.rows[0];
  },

  async insertCertificate(tx: Sql, accountId: string, tenantId: string, c: NewCertificate, principal: boolean, now: Date) {
    if (principal)
      await tx.query(
        'update tenant_certificates set es_principal = false, updated_at = $3 where account_id = $1 and tenant_id = $2 and es_principal',
        [accountId, tenantId, now],
      );
    await tx.query(
      `insert into tenant_certificates (id, account_id, tenant_id, rut_certificado, nombre_titular, fecha_vencimiento,
         es_principal, subject, issuer, serial_number, fingerprint_sha256, not_before, not_after, certificate_der,
         pfx_ciphertext, password_ref, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17)`,
      [
        c.id,
        accountId,
        tenantId,
        c.rutCertificado,
        c.nombreTitular,
        c.fechaVencimiento,
        principal,
        c.subject,
        c.issuer,
        c.serialNumber,
        c.fingerprint256,
        c.notBefore,
        c.notAfter,
        c.certificateDer,
        c.pfxCiphertext,
        c.passwordRef,
        now,
      ],
    );
    return (await this.getCertificate(tx, accountId, tenantId, c.id))!;
  },

  /**
   * Makes a (non-primary) certificate the primary and demotes the others; returns the updated row.
   * Callers hold the tenant's row lock, so two concurrent changes cannot leave two primaries.
   */
  async makePrincipal(tx: Sql, cert: CertificateRow, now: Date): Promise<CertificateRow> {
    const { account_id: accountId, tenant_id: tenantId, id } = cert;
    // Demote, then promote: one statement doing both can trip the one-primary unique index,
    // which is checked row by row.
    await tx.query(
      'update tenant_certificates set es_principal = false, updated_at = $3 where account_id = $1 and tenant_id = $2 and es_principal',
      [accountId, tenantId, now],
    );
    await tx.query(
      'update tenant_certificates set es_principal = true, updated_at = $4 where account_id = $1 and tenant_id = $2 and id::text = $3',
      [accountId, tenantId, id, now],
    );
    return { ...cert, es_principal: true, updated_at: now };
  },

  /** Deletes one certificate; when it was the primary, the remaining one that expires last becomes primary. */
  async deleteCertificate(tx: Sql, accountId: string, tenantId: string, id: string, now: Date) {
    const r = await tx.query<{ password_ref: string; es_principal: boolean }>(
      `delete from tenant_certificates where account_id = $1 and tenant_id = $2 and id::text = $3
       returning password_ref, es_principal`,
      [accountId, tenantId, id],
    );
    const gone = r.rows[0];
    if (gone?.es_principal)
      await tx.query(
        `update tenant_certificates set es_principal = true, updated_at = $3
         where id = (select id from tenant_certificates where account_id = $1 and tenant_id = $2
                     order by not_after desc, created_at desc limit 1)`,
        [accountId, tenantId, now],
      );
    return gone;
  },

  async countCertificates(tx: Sql, accountId: string, tenantId: string) {
    const r = await tx.query<{ n: number }>('select count(*)::int as n from tenant_certificates where account_id = $1 and tenant_id = $2', [
      accountId,
      tenantId,
    ]);
    return Number(r.rows[0]!.n);
  },

  /** The primary certificate with its .pfx envelope and DER, for signing. */
  async getPrimaryForSigning(tx: Sql, accountId: string, tenantId: string) {
    const r = await tx.query<CertificateRow & { certificate_der: Buffer; pfx_ciphertext: Buffer }>(
      `select ${CERT_COLUMNS}, certificate_der, pfx_ciphertext from tenant_certificates
       where account_id = $1 and tenant_id = $2 and es_principal`,
      [accountId, tenantId],
    );
    return r.rows[0];
  },

  /** Writes the credential summary kept on the tenant row (tenants.status is then refreshed). */
  async writeSummary(tx: Sql, accountId: string, tenantId: string, now: Date) {
    const r = await tx.query<{ api_key_verified_at: Date | null; certificate_configured: boolean }>(
      `update tenants t set
         api_key_verified_at = (select verified_at from tenant_api_keys k where k.tenant_id = t.id),
         certificate_configured = exists (select 1 from tenant_certificates c where c.tenant_id = t.id),
         updated_at = $3
       where t.account_id = $1 and t.id = $2
       returning api_key_verified_at, certificate_configured`,
      [accountId, tenantId, now],
    );
    return r.rows[0];
  },

  /**
   * Takes the one `certificate.expiring` notice of a certificate; false when it was already taken.
   * In the caller's transaction, with the event, so a rollback releases it.
   */
  async claimExpiryNotice(tx: Sql, certificateId: string, accountId: string, now: Date): Promise<boolean> {
    const r = await tx.query(
      'insert into certificate_expiry_notices (certificate_id, account_id, notified_at) values ($1, $2, $3) on conflict do nothing',
      [certificateId, accountId, now],
    );
    return r.rowCount > 0;
  },

  /**
   * Certificates of every account expiring within `leadDays` of `today` (a date in Chile), not yet
   * past notAfter, never announced: the periodic scan's work, oldest expiry first.
   */
  async unannouncedExpiring(tx: Sql, q: { today: string; leadDays: number; now: Date; limit: number }) {
    const r = await tx.query<
      Pick<CertificateRow, 'id' | 'account_id' | 'tenant_id' | 'rut_certificado' | 'nombre_titular' | 'fecha_vencimiento' | 'not_after'>
    >(
      `select c.id, c.account_id, c.tenant_id, c.rut_certificado, c.nombre_titular,
              to_char(c.fecha_vencimiento, 'YYYY-MM-DD') as fecha_vencimiento, c.not_after
       from tenant_certificates c
       where c.fecha_vencimiento between $1::date and $1::date + $2::int and c.not_after > $3
         and not exists (select 1 from certificate_expiry_notices n where n.certificate_id = c.id)
       order by c.fecha_vencimiento, c.id limit $4`,
      [q.today, q.leadDays, q.now, q.limit],
    );
    return r.rows;
  },

  /** Every secret ref the main database still points to (for the orphan sweep). */
  async referencedSecretRefs(tx: Sql, refs: string[], now: Date): Promise<Set<string>> {
    if (refs.length === 0) return new Set();
    const r = await tx.query<{ ref: string }>(
      `select secret_ref as ref from tenant_api_keys where secret_ref = any($1::text[])
       union select password_ref from tenant_certificates where password_ref = any($1::text[])
       union select api_key_ref from activation_links where status = 'pending' and expires_at > $2 and api_key_ref = any($1::text[])
       union select staged_password_ref from activation_links where status = 'pending' and expires_at > $2 and staged_password_ref = any($1::text[])`,
      [refs, now],
    );
    return new Set(r.rows.map((x) => x.ref));
  },
};
