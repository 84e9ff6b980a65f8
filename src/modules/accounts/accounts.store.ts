import type { Sql } from '../../db/types.ts';

export interface AccountRow {
  id: string;
  name: string;
  email: string;
  /** No longer read: the password is the owner member's (migration 202612041100_teams_members). */
  password_hash: string | null;
  /** Set on an account's test twin (migration 202612050900_test_mode): the live account it belongs to. */
  live_account_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export const accountsStore = {
  async insert(tx: Sql, a: { id: string; name: string; email: string; now: Date }) {
    const r = await tx.query<AccountRow>(
      `insert into accounts (id, name, email, created_at, updated_at)
       values ($1, $2, $3, $4, $4) returning *`,
      [a.id, a.name, a.email, a.now],
    );
    return r.rows[0]!;
  },
  async get(tx: Sql, id: string) {
    const r = await tx.query<AccountRow>('select * from accounts where id = $1', [id]);
    return r.rows[0];
  },
  async findByEmail(tx: Sql, email: string) {
    const r = await tx.query<AccountRow>('select * from accounts where lower(email) = lower($1) and live_account_id is null', [email]);
    return r.rows[0];
  },
  /** The account's test twin, made on first use; concurrent first uses agree on one row. */
  async testTwin(tx: Sql, liveAccountId: string, newId: string, now: Date) {
    await tx.query(
      `insert into accounts (id, name, email, live_account_id, created_at, updated_at)
       select $2, name, email, id, $3, $3 from accounts where id = $1 and live_account_id is null
       on conflict (live_account_id) where live_account_id is not null do nothing`,
      [liveAccountId, newId, now],
    );
    const r = await tx.query<AccountRow>('select * from accounts where live_account_id = $1', [liveAccountId]);
    return r.rows[0];
  },
  async update(tx: Sql, id: string, patch: { name?: string; email?: string }, now: Date) {
    const r = await tx.query<AccountRow>(
      `update accounts set name = coalesce($2, name), email = coalesce($3, email), updated_at = $4
       where id = $1 returning *`,
      [id, patch.name ?? null, patch.email ?? null, now],
    );
    return r.rows[0];
  },
};
