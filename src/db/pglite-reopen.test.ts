import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { MAIN_MIGRATIONS, openDatabase } from './open.ts';
import { openPglite } from './pglite.ts';

it('reopens an embedded database directory without re-running its migrations', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-reopen-'));
  try {
    const first = await openDatabase({ dir });
    await first.query(`insert into accounts (id, name, email) values ('00000000-0000-4000-8000-000000000001', 'A', 'a@example.com')`);
    expect((await first.query('select 1 from accounts')).rowCount).toBe(1);
    await first.close();
    const second = await openDatabase({ dir });
    expect((await second.query<{ n: number }>('select count(*)::int as n from accounts')).rows[0]!.n).toBe(1);
    await second.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('opens a directory the previous version made (PGlite defaults, migrated in-process) and keeps its rows', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-olddir-'));
  try {
    // What an earlier version left: PGlite's own initdb and settings, in this process.
    const { PGlite } = await import('@electric-sql/pglite');
    const old = await PGlite.create({ dataDir: dir });
    await old.exec('create table kept (v text)');
    await old.query(`insert into kept values ('before')`);
    await old.close();
    const db = await openDatabase({ dir });
    expect((await db.query<{ v: string }>('select v from kept')).rows).toEqual([{ v: 'before' }]);
    expect((await db.query<{ setting: string }>(`select setting from pg_settings where name = 'shared_buffers'`)).rows[0]!.setting).toBe(
      '2048',
    );
    await db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('creates a new directory in a child process, which also applies the migrations', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-newdir-'));
  try {
    // openPglite alone runs no migration in this process: what is there, the child did.
    const db = await openPglite(dir, { migrationsDir: MAIN_MIGRATIONS });
    const r = await db.query<{ n: number }>('select count(*)::int as n from schema_migrations');
    expect(r.rows[0]!.n).toBe(fs.readdirSync(MAIN_MIGRATIONS).filter((f) => f.endsWith('.sql')).length);
    expect((await db.query<{ setting: string }>(`select setting from pg_settings where name = 'shared_buffers'`)).rows[0]!.setting).toBe(
      '2048',
    );
    await db.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
