import type { Sql } from '../../db/types.ts';
import type { Role } from './roles.ts';

export interface InvitationRow {
  id: string;
  account_id: string;
  email: string;
  role: Role;
  token_hash: string;
  invited_by: string | null;
  created_at: Date;
  expires_at: Date;
}

/** Pending invitations, looked up by the SHA-256 of their token only; taking one deletes it (single use). */
export const invitationsStore = {
  /** One pending invitation per address and account: inviting again replaces it and voids the old link. */
  async upsert(
    tx: Sql,
    i: { id: string; accountId: string; email: string; role: Role; tokenHash: string; invitedBy: string; now: Date; expiresAt: Date },
  ) {
    await tx.query(`delete from member_invitations where account_id = $1 and lower(email) = lower($2)`, [i.accountId, i.email]);
    const r = await tx.query<InvitationRow>(
      `insert into member_invitations (id, account_id, email, role, token_hash, invited_by, created_at, expires_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8) returning *`,
      [i.id, i.accountId, i.email, i.role, i.tokenHash, i.invitedBy, i.now, i.expiresAt],
    );
    return r.rows[0]!;
  },
  async listPending(tx: Sql, accountId: string, now: Date) {
    const r = await tx.query<InvitationRow>(
      'select * from member_invitations where account_id = $1 and expires_at > $2 order by created_at desc, id',
      [accountId, now],
    );
    return r.rows;
  },
  async getByToken(tx: Sql, tokenHash: string) {
    const r = await tx.query<InvitationRow>('select * from member_invitations where token_hash = $1', [tokenHash]);
    return r.rows[0];
  },
  async takeByToken(tx: Sql, tokenHash: string) {
    const r = await tx.query<InvitationRow>('delete from member_invitations where token_hash = $1 returning *', [tokenHash]);
    return r.rows[0];
  },
  async remove(tx: Sql, accountId: string, id: string) {
    const r = await tx.query<InvitationRow>('delete from member_invitations where account_id = $1 and id::text = $2 returning *', [
      accountId,
      id,
    ]);
    return r.rows[0];
  },
  async purgeExpired(tx: Sql, now: Date) {
    const r = await tx.query('delete from member_invitations where expires_at <= $1', [now]);
    return r.rowCount;
  },
};
