import type { Sql } from '../../db/types.ts';
import type { Role } from './roles.ts';

export interface MemberRow {
  id: string;
  account_id: string;
  email: string;
  name: string;
  role: Role;
  password_hash: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Every query but the login lookup is scoped by account (another account's member is not found). */
export const membersStore = {
  async insert(
    tx: Sql,
    m: { id: string; accountId: string; email: string; name: string; role: Role; passwordHash: string | null; now: Date },
  ) {
    const r = await tx.query<MemberRow>(
      `insert into account_members (id, account_id, email, name, role, password_hash, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $7) returning *`,
      [m.id, m.accountId, m.email, m.name, m.role, m.passwordHash, m.now],
    );
    return r.rows[0]!;
  },
  /** The login lookup: e-mails are unique across the installation. */
  async findByEmail(tx: Sql, email: string) {
    const r = await tx.query<MemberRow>('select * from account_members where lower(email) = lower($1)', [email]);
    return r.rows[0];
  },
  async get(tx: Sql, accountId: string, id: string) {
    const r = await tx.query<MemberRow>('select * from account_members where account_id = $1 and id::text = $2', [accountId, id]);
    return r.rows[0];
  },
  async list(tx: Sql, accountId: string) {
    const r = await tx.query<MemberRow>('select * from account_members where account_id = $1 order by created_at, id', [accountId]);
    return r.rows;
  },
  /** Locks the account's owners, so two requests cannot each remove "the other" last owner. */
  async lockOwners(tx: Sql, accountId: string) {
    const r = await tx.query<{ id: string }>(`select id from account_members where account_id = $1 and role = 'owner' for update`, [
      accountId,
    ]);
    return r.rows.map((x) => x.id);
  },
  async setRole(tx: Sql, accountId: string, id: string, role: Role, now: Date) {
    const r = await tx.query<MemberRow>(
      'update account_members set role = $3, updated_at = $4 where account_id = $1 and id::text = $2 returning *',
      [accountId, id, role, now],
    );
    return r.rows[0];
  },
  async setPasswordHash(tx: Sql, id: string, passwordHash: string, now: Date) {
    await tx.query('update account_members set password_hash = $2, updated_at = $3 where id = $1', [id, passwordHash, now]);
  },
  async setEmail(tx: Sql, accountId: string, oldEmail: string, email: string, now: Date) {
    await tx.query('update account_members set email = $3, updated_at = $4 where account_id = $1 and lower(email) = lower($2)', [
      accountId,
      oldEmail,
      email,
      now,
    ]);
  },
  async remove(tx: Sql, accountId: string, id: string) {
    const r = await tx.query<MemberRow>('delete from account_members where account_id = $1 and id::text = $2 returning *', [accountId, id]);
    return r.rows[0];
  },
};
