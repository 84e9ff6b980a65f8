import type { Sql } from '../../db/types.ts';

export interface SessionRow {
  token_hash: string;
  account_id: string | null;
  member_id: string | null;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  /** The mode the dashboard shows (migration 202612051100_dashboard_session_mode). */
  mode: string;
  /** Joined from accounts when the session is logged in. */
  account_name: string | null;
  account_email: string | null;
  /** Joined from account_members: who is logged in, and the role read afresh on every request. */
  member_email: string | null;
  member_name: string | null;
  member_role: string | null;
}

/** Sessions are looked up by the hash of the cookie value only; the value itself is never stored. */
export const sessionsStore = {
  async insert(tx: Sql, s: { tokenHash: string; accountId: string | null; memberId: string | null; now: Date; expiresAt: Date }) {
    await tx.query(
      `insert into dashboard_sessions (token_hash, account_id, member_id, created_at, last_seen_at, expires_at) values ($1, $2, $3, $4, $4, $5)`,
      [s.tokenHash, s.accountId, s.memberId, s.now, s.expiresAt],
    );
  },
  async get(tx: Sql, tokenHash: string) {
    const r = await tx.query<SessionRow>(
      `select s.*, a.name as account_name, a.email as account_email,
         m.email as member_email, m.name as member_name, m.role as member_role
       from dashboard_sessions s left join accounts a on a.id = s.account_id
         left join account_members m on m.id = s.member_id and m.account_id = s.account_id
       where s.token_hash = $1`,
      [tokenHash],
    );
    return r.rows[0];
  },
  /** Written at most once a minute per session: the idle clock needs no finer grain. */
  async touch(tx: Sql, tokenHash: string, now: Date) {
    await tx.query(
      `update dashboard_sessions set last_seen_at = $2 where token_hash = $1 and last_seen_at < $2::timestamptz - interval '1 minute'`,
      [tokenHash, now],
    );
  },
  /** Only a logged-in session has a mode to switch; returns whether one was. */
  async setMode(tx: Sql, tokenHash: string, mode: 'live' | 'test') {
    const r = await tx.query('update dashboard_sessions set mode = $2 where token_hash = $1 and account_id is not null', [tokenHash, mode]);
    return r.rowCount > 0;
  },
  async remove(tx: Sql, tokenHash: string) {
    await tx.query('delete from dashboard_sessions where token_hash = $1', [tokenHash]);
  },
  async removeForAccount(tx: Sql, accountId: string) {
    const r = await tx.query('delete from dashboard_sessions where account_id = $1', [accountId]);
    return r.rowCount;
  },
  async removeForMember(tx: Sql, memberId: string) {
    const r = await tx.query('delete from dashboard_sessions where member_id = $1', [memberId]);
    return r.rowCount;
  },
  async purgeExpired(tx: Sql, now: Date, idleMs: number) {
    const r = await tx.query(
      `delete from dashboard_sessions where expires_at <= $1 or last_seen_at <= $1::timestamptz - ($2::float8 * interval '1 millisecond')`,
      [now, idleMs],
    );
    return r.rowCount;
  },
};
