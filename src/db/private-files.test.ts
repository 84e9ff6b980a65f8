import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { openDatabase } from './open.ts';

const modes = (dir: string) => {
  const out: { file: string; mode: number; dir: boolean }[] = [];
  const walk = (p: string) => {
    const st = fs.lstatSync(p);
    out.push({ file: path.relative(dir, p) || '.', mode: st.mode & 0o777, dir: st.isDirectory() });
    if (st.isDirectory()) for (const n of fs.readdirSync(p)) walk(path.join(p, n));
  };
  walk(dir);
  return out;
};

it('keeps every file of an embedded database private (0700 directories, 0600 files), whatever the umask', async () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-modes-'));
  const dir = path.join(parent, 'main');
  const before = process.umask(0o022);
  try {
    // A directory left world-readable by an older version, with a file in it.
    fs.mkdirSync(dir, { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'old-file'), 'x', { mode: 0o644 });
    const db = await openDatabase({ dir });
    for (let i = 0; i < 50; i++)
      await db.query(`insert into accounts (id, name, email) values (gen_random_uuid(), 'A', 'a${i}@example.com')`);
    // Files made after opening: a new relation, a new WAL segment.
    await db.query('create table later_table (id int primary key, v text)');
    await db.query("insert into later_table select g, repeat('x', 100) from generate_series(1, 2000) g");
    await db.query('select pg_switch_wal()');
    await db.query('checkpoint');
    await db.close();
    const all = modes(dir);
    expect(all.length).toBeGreaterThan(100); // PGlite's whole tree, WAL included
    expect(all.filter((m) => m.file.startsWith('pg_wal/')).length).toBeGreaterThan(0);
    const open = all.filter((m) => (m.dir ? m.mode !== 0o700 : (m.mode & 0o077) !== 0));
    expect(open).toEqual([]);
  } finally {
    process.umask(before);
    fs.rmSync(parent, { recursive: true, force: true });
  }
});
