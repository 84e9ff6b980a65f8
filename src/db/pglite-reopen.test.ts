import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { MAIN_MIGRATIONS, openDatabase } from './open.ts';
import { openPglite } from './pglite.ts';

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

it('creates a new directory in a child process, which also applies the migrations, and reopens it without running them again', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-newdir-'));
  try {
    // openPglite alone runs no migration in this process: what is there, the child did.
    const db = await openPglite(dir, { migrationsDir: MAIN_MIGRATIONS });
    const r = await db.query<{ n: number }>('select count(*)::int as n from schema_migrations');
    expect(r.rows[0]!.n).toBe(fs.readdirSync(MAIN_MIGRATIONS).filter((f) => f.endsWith('.sql')).length);
    expect((await db.query<{ setting: string }>(`select setting from pg_settings where name = 'shared_buffers'`)).rows[0]!.setting).toBe(
      '2048',
    );
    await db.query(`insert into accounts (id, name, email) values ('00000000-0000-4000-8000-000000000001', 'A', 'a@example.com')`);
    await db.close();
    // The same directory again, as a restart opens it: the row kept, each migration recorded once.
    const again = await openDatabase({ dir });
    expect((await again.query<{ n: number }>('select count(*)::int as n from accounts')).rows[0]!.n).toBe(1);
    const runs = await again.query<{ n: number }>('select count(*)::int as n from schema_migrations');
    expect(runs.rows[0]!.n).toBe(r.rows[0]!.n);
    await again.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('a creation interrupted half way leaves no database to open, and the next start creates it whole', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-interrupted-'));
  try {
    // What a child killed half way leaves: a staging directory with part of a cluster, and (from a
    // move interrupted before PG_VERSION) some of its files already in the directory.
    fs.mkdirSync(`${dir}.creating/base`, { recursive: true });
    fs.writeFileSync(`${dir}.creating/base/junk`, 'half');
    fs.mkdirSync(path.join(dir, 'global'));
    fs.writeFileSync(path.join(dir, 'global', 'junk'), 'half');
    const db = await openPglite(dir, { migrationsDir: MAIN_MIGRATIONS });
    expect((await db.query<{ n: number }>('select count(*)::int as n from accounts')).rows[0]!.n).toBe(0);
    await db.close();
    expect(fs.existsSync(`${dir}.creating`)).toBe(false);
    expect(fs.existsSync(path.join(dir, 'global', 'junk'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'PG_VERSION'))).toBe(true);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(`${dir}.creating`, { recursive: true, force: true });
  }
});

it('the creating child does not outlive a parent killed with SIGKILL, and nothing half made is opened later', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-orphan-'));
  const { spawn } = await import('node:child_process');
  const parent = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import('${new URL('./pglite.ts', import.meta.url).href}').then((m) => m.openPglite(process.argv[1]))`,
      dir,
    ],
    { stdio: 'ignore' },
  );
  try {
    // The child's command line names the staging directory.
    const childPid = async (): Promise<number | undefined> => {
      for (const p of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
        try {
          if (fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(`${dir}.creating`)) return Number(p);
        } catch {
          // gone meanwhile
        }
      }
      return undefined;
    };
    let pid: number | undefined;
    for (let i = 0; i < 200 && pid === undefined; i++) {
      pid = await childPid();
      if (pid === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect(pid, 'the creating child started').toBeDefined();
    parent.kill('SIGKILL');
    let alive = true;
    for (let i = 0; i < 100 && alive; i++) {
      await new Promise((r) => setTimeout(r, 100));
      alive = fs.existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    }
    expect(alive, 'the child exited with its parent').toBe(false);
    expect(fs.existsSync(path.join(dir, 'PG_VERSION'))).toBe(false);
    const db = await openPglite(dir, { migrationsDir: MAIN_MIGRATIONS });
    expect((await db.query<{ n: number }>('select count(*)::int as n from schema_migrations')).rows[0]!.n).toBeGreaterThan(0);
    await db.close();
  } finally {
    parent.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(`${dir}.creating`, { recursive: true, force: true });
  }
});
