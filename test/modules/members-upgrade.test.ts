import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { MAIN_MIGRATIONS } from '../../src/db/open.ts';
import { migrate } from '../../src/db/migrate.ts';
import { describeEachDb, openTestDb } from '../support/db.ts';

/**
 * The upgrade to teams (migration 202612041100_teams_members; docs/dashboard.md "Members and
 * roles"): an account made before it becomes its holder's, who is its owner with the password it
 * had, and a session open during the upgrade stays logged in as that owner.
 */
const TEAMS = '202612041100_teams_members.sql';
const before = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-teams-upgrade-'));
for (const f of fs.readdirSync(MAIN_MIGRATIONS).filter((f) => f.endsWith('.sql') && f < TEAMS))
  fs.copyFileSync(path.join(MAIN_MIGRATIONS, f), path.join(before, f));
afterAll(() => fs.rmSync(before, { recursive: true, force: true }));

describeEachDb('upgrade to members', (backend) => {
  it('makes every account holder its owner, moves the password, and keeps open sessions', async () => {
    const t = await openTestDb(backend, { migrationsDir: before });
    try {
      const id = '00000000-0000-4000-8000-0000000000a1';
      await t.db.query(
        `insert into accounts (id, name, email, password_hash, created_at, updated_at) values ($1, 'Antes', 'antes@example.com', 'scrypt$1$x', now(), now())`,
        [id],
      );
      await t.db.query(
        `insert into accounts (id, name, email, created_at, updated_at) values ('00000000-0000-4000-8000-0000000000a2', 'CLI', 'cli@example.com', now(), now())`,
      );
      await t.db.query(
        `insert into dashboard_sessions (token_hash, account_id, created_at, last_seen_at, expires_at) values ('h1', $1, now(), now(), now() + interval '1 hour'), ('h2', null, now(), now(), now() + interval '1 hour')`,
        [id],
      );
      fs.copyFileSync(path.join(MAIN_MIGRATIONS, TEAMS), path.join(before, TEAMS));
      expect(await migrate(t.db, before)).toEqual([TEAMS]);
      const members = await t.db.query<{ account_id: string; email: string; name: string; role: string; password_hash: string | null }>(
        'select account_id, email, name, role, password_hash from account_members order by email',
      );
      expect(members.rows).toEqual([
        { account_id: id, email: 'antes@example.com', name: 'Antes', role: 'owner', password_hash: 'scrypt$1$x' },
        { account_id: '00000000-0000-4000-8000-0000000000a2', email: 'cli@example.com', name: 'CLI', role: 'owner', password_hash: null },
      ]);
      const accounts = await t.db.query<{ n: number }>('select count(*)::int as n from accounts where password_hash is not null');
      expect(accounts.rows[0]!.n).toBe(0);
      const sessions = await t.db.query<{ token_hash: string; email: string | null }>(
        'select s.token_hash, m.email from dashboard_sessions s left join account_members m on m.id = s.member_id order by s.token_hash',
      );
      expect(sessions.rows).toEqual([
        { token_hash: 'h1', email: 'antes@example.com' },
        { token_hash: 'h2', email: null },
      ]);
    } finally {
      fs.rmSync(path.join(before, TEAMS), { force: true });
      await t.close();
    }
  });
});
