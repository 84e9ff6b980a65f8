import fs from 'node:fs';
import path from 'node:path';
import type { Db } from './types.ts';

/**
 * Applies the versioned `*.sql` files of a folder in name order, each in its own transaction,
 * recording them in `schema_migrations`. Files are named `YYYYMMDDHHMM_what.sql` so that work
 * from several branches sorts by time. A transaction-scoped advisory lock makes concurrent
 * starters against one PostgreSQL wait for each other instead of racing.
 */
export async function migrate(db: Db, dir: string): Promise<string[]> {
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  // Under the same lock as the files: two processes starting at once on a fresh PostgreSQL would
  // otherwise race in CREATE TABLE IF NOT EXISTS (a duplicate pg_type error for the loser).
  await db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock(727274)');
    await tx.query('create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())');
  });
  const applied: string[] = [];
  for (const file of files) {
    const sql = fs.readFileSync(path.join(dir, file), 'utf8');
    const did = await db.transaction(async (tx) => {
      await tx.query('select pg_advisory_xact_lock(727274)');
      const seen = await tx.query('select 1 from schema_migrations where name = $1', [file]);
      if (seen.rowCount > 0) return false;
      for (const statement of splitStatements(sql)) await tx.query(statement);
      await tx.query('insert into schema_migrations (name) values ($1)', [file]);
      return true;
    });
    if (did) applied.push(file);
  }
  return applied;
}

/** Splits on semicolons at line ends, outside dollar-quoted bodies (enough for our own files). */
export function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let current = '';
  let inDollar = false;
  for (const line of sql.split('\n')) {
    const dollars = line.match(/\$\$/g)?.length ?? 0;
    if (dollars % 2 === 1) inDollar = !inDollar;
    current += line + '\n';
    if (!inDollar && /;\s*(--.*)?$/.test(line)) {
      const s = current.trim();
      if (s.replace(/--.*$/gm, '').trim() && s !== ';') out.push(s);
      current = '';
    }
  }
  if (current.replace(/--.*$/gm, '').trim()) out.push(current.trim());
  return out;
}
