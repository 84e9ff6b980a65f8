import type { Sql } from '../../db/types.ts';

export interface PendingSignupRow {
  email_key: string;
  email: string;
  name: string;
  password_hash: string;
  token_hash: string;
  created_at: Date;
  expires_at: Date;
}

/**
 * Sign-ups waiting for their e-mail to be confirmed, keyed by the lower-cased address (one per
 * address; a new sign-up replaces the old one and so voids its link). Looked up by the SHA-256 of
 * the confirmation token only.
 */
export const pendingSignupsStore = {
  async upsert(tx: Sql, p: { email: string; name: string; passwordHash: string; tokenHash: string; now: Date; expiresAt: Date }) {
    await tx.query(
      `insert into pending_signups (email_key, email, name, password_hash, token_hash, created_at, expires_at)
       values (lower($1), $1, $2, $3, $4, $5, $6)
       on conflict (email_key) do update set email = excluded.email, name = excluded.name, password_hash = excluded.password_hash,
         token_hash = excluded.token_hash, created_at = excluded.created_at, expires_at = excluded.expires_at`,
      [p.email, p.name, p.passwordHash, p.tokenHash, p.now, p.expiresAt],
    );
  },
  async removeByEmail(tx: Sql, email: string) {
    await tx.query('delete from pending_signups where email_key = lower($1)', [email]);
  },
  async getByToken(tx: Sql, tokenHash: string) {
    const r = await tx.query<PendingSignupRow>('select * from pending_signups where token_hash = $1', [tokenHash]);
    return r.rows[0];
  },
  /** Single use: the row is deleted as it is read, so two requests with one token cannot both get it. */
  async takeByToken(tx: Sql, tokenHash: string) {
    const r = await tx.query<PendingSignupRow>('delete from pending_signups where token_hash = $1 returning *', [tokenHash]);
    return r.rows[0];
  },
  async purgeExpired(tx: Sql, now: Date) {
    const r = await tx.query('delete from pending_signups where expires_at <= $1', [now]);
    return r.rowCount;
  },
};
