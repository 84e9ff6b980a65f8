import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { openDatabase } from './open.ts';

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
