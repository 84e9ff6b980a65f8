import { readFileSync } from 'node:fs';
import { describe, inject } from 'vitest';
import { migrate } from '../../src/db/migrate.ts';
import { MAIN_MIGRATIONS, openDatabase } from '../../src/db/open.ts';
import { createPglite } from '../../src/db/pglite.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import type { Db } from '../../src/db/types.ts';
import { copyOfTemplate } from './pg-template.ts';
import { givePglite, takePglite, type Pooled } from './pglite-pool.ts';
import './pglite-template.setup.ts';

/**
 * Database suites run on PGlite always, and on PostgreSQL too when TEST_DATABASE_URL is set.
 * Each PostgreSQL test database is a database of its own on that server, copied from the run's
 * migrated template (pg-template.ts) and dropped after close; its tables are in `public`. Each
 * in-memory PGlite one is in its migrated state, made new or kept by the process from an earlier
 * test (pglite-pool.ts).
 */
export type Backend = 'pglite' | 'postgres';

export const backends = (): Backend[] => (process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite']);

export interface TestDb {
  db: Db;
  backend: Backend;
  url?: string;
  schema?: string;
  close(): Promise<void>;
}

export async function openTestDb(backend: Backend, opts: { migrationsDir?: string; dir?: string } = {}): Promise<TestDb> {
  if (backend === 'pglite') {
    const migrations = opts.migrationsDir ?? MAIN_MIGRATIONS;
    if (opts.dir) {
      const db = await openDatabase({ dir: opts.dir, migrationsDir: migrations });
      return { db, backend, close: () => db.close() };
    }
    // In memory: one the process kept from an earlier test, reset to its migrated state
    // (pglite-pool.ts), or a copy of the run's migrated template.
    const pooled = await takePglite(migrations, () => newPglite(migrations));
    return {
      // Closing `db` itself closes the database (some tests do, on purpose); it is then not kept.
      db: { ...pooled.db, close: () => pooled.pg.close() },
      backend,
      close: () => givePglite(migrations, pooled),
    };
  }
  // A copy of the migrated template database (test/support/pg-template.ts): complete by
  // construction, so it is opened without running the migrations again.
  const copy = await copyOfTemplate(process.env.TEST_DATABASE_URL!, opts.migrationsDir ?? MAIN_MIGRATIONS);
  const schema = 'public';
  const db = await openPostgres(copy.url, { schema });
  return {
    db,
    backend,
    url: copy.url,
    schema,
    async close() {
      await db.close();
      copy.drop();
    },
  };
}

/** A new in-memory database migrated with `migrations`. */
export async function newPglite(migrations: string): Promise<Pooled> {
  const template = templateOf(migrations);
  // A copy of the run's migrated template (pglite-template.setup.ts); migrate() then finds nothing
  // to do, and would catch a template older than the files.
  const opened = await createPglite(undefined, template ? { loadDataDir: template } : {});
  await migrate(opened.db, migrations);
  return opened;
}

const templates = new Map<string, Blob | undefined>();

/** The migrated template for a migrations folder, read once per test process; none outside vitest's setup. */
function templateOf(migrations: string): Blob | undefined {
  if (!templates.has(migrations)) {
    let file: string | undefined;
    try {
      file = inject('pgliteTemplates')?.[migrations];
    } catch {
      file = undefined; // not in a vitest worker (a child process of a test)
    }
    templates.set(migrations, file ? new Blob([readFileSync(file)]) : undefined);
  }
  return templates.get(migrations);
}

/** `describe` once per backend, with the backend name in the title. */
export function describeEachDb(title: string, fn: (backend: Backend) => void): void {
  for (const backend of backends()) describe(`${title} [${backend}]`, () => fn(backend));
}

/**
 * A second, independent pool on the same PostgreSQL database: it stands for a second server process
 * in tests of cross-process behaviour. On PGlite (one process by construction) there is none.
 */
export async function openSecondConnection(t: TestDb): Promise<Db | undefined> {
  return t.backend === 'postgres' ? openDatabase({ url: t.url, schema: t.schema }) : undefined;
}
