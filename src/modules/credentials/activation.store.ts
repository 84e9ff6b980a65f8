import type { Sql } from '../../db/types.ts';

/** Activation links (token stored as SHA-256 only) and the hosted page's progress on them. */
export interface StagedCertificate {
  id: string;
  holderName: string;
  rut: string;
  notBefore: string;
  notAfter: string;
  fechaVencimiento: string;
  subject: string;
  issuer: string;
  serialNumber: string;
  fingerprint256: string;
  /** Base64 DER: public, kept to be moved to the tenant certificate on completion. */
  certificateDer: string;
}

export interface ActivationLinkRow {
  id: string;
  account_id: string;
  tenant_id: string;
  status: 'pending' | 'invalidated' | 'expired' | 'completed';
  expires_at: Date;
  created_at: Date;
  api_key_ref: string | null;
  api_key_verified_at: Date | null;
  staged_certificate: StagedCertificate | null;
  staged_password_ref: string | null;
}

const COLUMNS = `id, account_id, tenant_id, status, expires_at, created_at, api_key_ref, api_key_verified_at,
  staged_certificate, staged_password_ref`;

export const activationStore = {
  /**
   * Ends the tenant's pending link (expired when past its time, else invalidated) and returns
   * the staged secret refs it held, for deletion after commit.
   */
  async endPending(tx: Sql, accountId: string, tenantId: string, now: Date): Promise<string[]> {
    const r = await tx.query<{ api_key_ref: string | null; staged_password_ref: string | null }>(
      `update activation_links set
         status = case when expires_at <= $3 then 'expired' else 'invalidated' end,
         invalidated_at = case when expires_at <= $3 then null else $3::timestamptz end,
         updated_at = $3, staged_pfx = null, staged_certificate = null
       where account_id = $1 and tenant_id = $2 and status = 'pending'
       returning api_key_ref, staged_password_ref`,
      [accountId, tenantId, now],
    );
    return r.rows.flatMap((x) => [x.api_key_ref, x.staged_password_ref]).filter((x): x is string => !!x);
  },

  async insert(tx: Sql, l: { id: string; accountId: string; tenantId: string; tokenHash: string; expiresAt: Date; now: Date }) {
    await tx.query(
      `insert into activation_links (id, account_id, tenant_id, token_hash, status, expires_at, created_at, updated_at)
       values ($1, $2, $3, $4, 'pending', $5, $6, $6)`,
      [l.id, l.accountId, l.tenantId, l.tokenHash, l.expiresAt, l.now],
    );
  },

  /** The tenant's newest link, whatever its state (the dashboard shows it). Scoped by account. */
  async latestForTenant(tx: Sql, accountId: string, tenantId: string) {
    const r = await tx.query<ActivationLinkRow>(
      `select ${COLUMNS} from activation_links where account_id = $1 and tenant_id = $2 order by created_at desc, id desc limit 1`,
      [accountId, tenantId],
    );
    return r.rows[0];
  },

  /** By token hash: the hosted page knows no account, the token is its only credential. */
  async byTokenHash(tx: Sql, tokenHash: string, opts: { forUpdate?: boolean } = {}) {
    const r = await tx.query<ActivationLinkRow>(
      `select ${COLUMNS} from activation_links where token_hash = $1${opts.forUpdate ? ' for update' : ''}`,
      [tokenHash],
    );
    return r.rows[0];
  },

  async stagedPfx(tx: Sql, id: string) {
    const r = await tx.query<{ staged_pfx: Buffer | null }>('select staged_pfx from activation_links where id = $1', [id]);
    return r.rows[0]?.staged_pfx ?? null;
  },

  /** Step 1 saved. The caller holds the row lock (byTokenHash forUpdate) and knows the old ref. */
  async stageApiKey(tx: Sql, id: string, ref: string, verifiedAt: Date, now: Date) {
    const r = await tx.query(
      `update activation_links set api_key_ref = $2, api_key_verified_at = $3, updated_at = $4
       where id = $1 and status = 'pending' and expires_at > $4`,
      [id, ref, verifiedAt, now],
    );
    return r.rowCount === 1;
  },

  /** Step 2 uploaded, waiting for confirmation. Same locking as stageApiKey. */
  async stageCertificate(tx: Sql, id: string, cert: StagedCertificate, pfx: Buffer, passwordRef: string, now: Date) {
    const r = await tx.query(
      `update activation_links set staged_certificate = $2, staged_pfx = $3, staged_password_ref = $4, updated_at = $5
       where id = $1 and status = 'pending' and expires_at > $5`,
      [id, JSON.stringify(cert), pfx, passwordRef, now],
    );
    return r.rowCount === 1;
  },

  /**
   * The single-use gate: flips a pending, unexpired link to completed. The row is locked by the
   * caller's `for update` read; the WHERE makes a second completion a no-op (rowCount 0).
   */
  async complete(tx: Sql, id: string, now: Date) {
    const r = await tx.query(
      `update activation_links set status = 'completed', completed_at = $2, updated_at = $2,
         staged_pfx = null, staged_certificate = null, api_key_ref = null, staged_password_ref = null
       where id = $1 and status = 'pending' and expires_at > $2`,
      [id, now],
    );
    return r.rowCount === 1;
  },

  /** Drops staged .pfx files of links that can no longer complete (expired ones stay pending). */
  async clearStaleStaging(tx: Sql, now: Date) {
    const r = await tx.query(
      `update activation_links set staged_pfx = null, staged_certificate = null
       where staged_pfx is not null and (status <> 'pending' or expires_at <= $1)`,
      [now],
    );
    return r.rowCount;
  },
};
