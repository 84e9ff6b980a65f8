import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from './migrate.ts';
import { openPglite } from './pglite.ts';
import { openPostgres } from './postgres.ts';
import type { Db } from './types.ts';

export const MAIN_MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface OpenOptions {
  /** PostgreSQL connection string; when absent the embedded PGlite is used. */
  url?: string | undefined;
  /** PGlite data directory; undefined with no url = in memory. */
  dir?: string | undefined;
  schema?: string | undefined;
  migrationsDir?: string;
  poolMax?: number;
  /** PostgreSQL: named prepared statements (default on; DATABASE_PREPARED_STATEMENTS). */
  preparedStatements?: boolean | undefined;
}

export async function openDatabase(opts: OpenOptions): Promise<Db> {
  const db = opts.url
    ? await openPostgres(opts.url, {
        ...(opts.schema ? { schema: opts.schema } : {}),
        ...(opts.poolMax ? { max: opts.poolMax } : {}),
        ...(opts.preparedStatements === false ? { preparedStatements: false } : {}),
      })
    : await openPglite(opts.dir, { migrationsDir: opts.migrationsDir ?? MAIN_MIGRATIONS });
  try {
    // A new embedded directory was migrated by the child that created it: this finds nothing to do.
    await migrate(db, opts.migrationsDir ?? MAIN_MIGRATIONS);
  } catch (e) {
    await db.close();
    throw e;
  }
  return db;
}
