import type { PGlite } from '@electric-sql/pglite';
import { forgetPreparedStatements } from '../../src/db/pglite-statements.ts';
import type { Db } from '../../src/db/types.ts';

/**
 * Migrated in-memory PGlite databases kept by a test process between tests, by migrations folder
 * (and between test files: they share their worker process, `isolate: false` in vitest.config.ts).
 * Opening one, even from the migrated template, costs a second or more (it unpacks the 42 MB data
 * directory and boots a WebAssembly PostgreSQL) and every test app opens two; putting one back in
 * its migrated state costs tens of milliseconds (docs/performance.md "The test suite").
 *
 * A database is put back only when that is proven complete: tables, sequences and recorded
 * migrations a test added removed (the in-process emulator migrates its own tables into the
 * service's database: docs/performance.md, "Seventh round"), every table emptied and every
 * sequence restarted, session state discarded, and the schema's fingerprint (everything a test
 * could have created or altered) equal to the one it had when it was made. Otherwise, or when
 * the test closed it itself, it is dropped and the next test gets a new one.
 */
export interface Pooled {
  pg: PGlite;
  db: Db;
}

/** Up to this many idle databases per migrations folder (each holds its WebAssembly heap). */
const MAX_IDLE = 2;
/** A reset that does not finish in this time (a transaction left waiting) drops the database. */
const RESET_TIMEOUT_MS = 10_000;

interface Shape {
  tables: string[];
  sequences: string[];
  /** schema_migrations' names. */
  migrations: string[];
  fingerprint: string;
}

const idle = new Map<string, Pooled[]>();
const shapes = new WeakMap<PGlite, Shape>();

/** An idle database migrated with `migrations`, or a new one from `create`. */
export async function takePglite(migrations: string, create: () => Promise<Pooled>): Promise<Pooled> {
  const ready = idle.get(migrations)?.pop();
  if (ready) return ready;
  const made = await create();
  shapes.set(made.pg, await shapeOf(made.pg));
  return made;
}

/** Puts a database back in its migrated state and keeps it for the next test, or closes it. */
export async function givePglite(migrations: string, p: Pooled): Promise<void> {
  if (p.pg.closed) return;
  const shape = shapes.get(p.pg);
  let clean = false;
  if (shape) {
    try {
      clean = await withTimeout(resetToMigrated(p.pg, shape), RESET_TIMEOUT_MS);
    } catch {
      clean = false;
    }
  }
  const list = idle.get(migrations) ?? [];
  if (clean && list.length < MAX_IDLE) {
    list.push(p);
    idle.set(migrations, list);
    return;
  }
  await p.pg.close().catch(() => {});
}

/**
 * Drops the tables and sequences added since the database was made and forgets the migrations
 * recorded since, empties the tables and restarts the sequences it had, and discards session state
 * (settings, prepared statements, LISTEN, advisory locks, temporary tables, cursors). True only if
 * the schema is then the one it was made with (anything else added or altered: a view, a column, a
 * foreign key to an added table that the drop took with it); schema_migrations keeps the rows it
 * had (they are part of the migrated state).
 */
export async function resetToMigrated(pg: PGlite, shape: Shape): Promise<boolean> {
  // Outside any transaction block (DISCARD ALL refuses to run in one): a test that left one open
  // is rolled back first.
  await pg.exec('rollback');
  await pg.exec('discard all');
  forgetPreparedStatements(pg); // the Db's named statements went with the session
  const now = await relationsOf(pg);
  const added = (was: string[], is: string[]) => is.filter((x) => !was.includes(x));
  const undo: string[] = [];
  const tables = added(shape.tables, now.tables);
  if (tables.length > 0) undo.push(`drop table if exists ${tables.join(', ')} cascade`);
  const sequences = added(shape.sequences, now.sequences);
  if (sequences.length > 0) undo.push(`drop sequence if exists ${sequences.join(', ')} cascade`);
  if (undo.length > 0) await pg.exec(undo.join(';\n'));
  await pg.query('delete from public.schema_migrations where not (name = any($1::text[]))', [shape.migrations]);
  const statements: string[] = [];
  if (shape.tables.length > 0) statements.push(`truncate ${shape.tables.join(', ')} restart identity cascade`);
  for (const s of shape.sequences) statements.push(`alter sequence ${s} restart`);
  if (statements.length > 0) await pg.exec(statements.join(';\n'));
  return (await fingerprintOf(pg)) === shape.fingerprint;
}

/** The tables (but schema_migrations) and sequences of the user's schemas, the migrations recorded, and the fingerprint. */
export async function shapeOf(pg: PGlite): Promise<Shape> {
  const migrations = (await pg.query<{ name: string }>('select name from public.schema_migrations order by name')).rows.map((r) => r.name);
  return { ...(await relationsOf(pg)), migrations, fingerprint: await fingerprintOf(pg) };
}

async function relationsOf(pg: PGlite): Promise<{ tables: string[]; sequences: string[] }> {
  const rel = async (kinds: string) =>
    (
      await pg.query<{ name: string }>(
        `select format('%I.%I', n.nspname, c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where c.relkind = any($1::"char"[]) and ${USER_SCHEMA} and not (n.nspname = 'public' and c.relname = 'schema_migrations')
         order by 1`,
        [kinds.split('')],
      )
    ).rows.map((r) => r.name);
  return { tables: await rel('rp'), sequences: await rel('S') };
}

const USER_SCHEMA = `n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and n.nspname not like 'pg\\_temp\\_%' and n.nspname not like 'pg\\_toast\\_temp\\_%'`;

/**
 * One string for everything a test could change outside table rows and sequence positions: the
 * user's schemas, relations, columns, constraints, indexes, functions, triggers, types, enum
 * labels, extensions, roles, large objects and the migrations recorded.
 */
export async function fingerprintOf(pg: PGlite): Promise<string> {
  const parts = [
    `select nspname from pg_namespace n where ${USER_SCHEMA}`,
    `select format('%s.%s:%s', n.nspname, c.relname, c.relkind) from pg_class c join pg_namespace n on n.oid = c.relnamespace where ${USER_SCHEMA}`,
    `select format('%s.%s.%s:%s:%s:%s:%s', n.nspname, c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
       pg_get_expr(d.adbin, d.adrelid), a.attisdropped)
     from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
     left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum where a.attnum > 0 and ${USER_SCHEMA}`,
    `select format('%s:%s', co.conname, pg_get_constraintdef(co.oid)) from pg_constraint co join pg_namespace n on n.oid = co.connamespace where ${USER_SCHEMA}`,
    `select pg_get_indexdef(i.indexrelid) from pg_index i join pg_class c on c.oid = i.indexrelid join pg_namespace n on n.oid = c.relnamespace where ${USER_SCHEMA}`,
    `select format('%s.%s:%s', n.nspname, p.proname, md5(p.prosrc)) from pg_proc p join pg_namespace n on n.oid = p.pronamespace where ${USER_SCHEMA}`,
    `select format('%s:%s:%s', t.tgname, t.tgenabled, pg_get_triggerdef(t.oid)) from pg_trigger t where not t.tgisinternal`,
    `select format('%s.%s', n.nspname, t.typname) from pg_type t join pg_namespace n on n.oid = t.typnamespace where ${USER_SCHEMA}`,
    `select format('%s:%s', enumtypid::regtype, enumlabel) from pg_enum`,
    `select extname from pg_extension`,
    `select rolname from pg_roles`,
    `select oid::text from pg_largeobject_metadata`,
    `select name from public.schema_migrations`,
  ];
  // Each part sorted by its text, so that rewriting a table's files (TRUNCATE) does not reorder it.
  const sql = `select concat_ws(' | ', ${parts.map((p) => `(select md5(coalesce(string_agg(x, ',' order by x), '')) from (${p}) as s(x))`).join(', ')}) as f`;
  return (await pg.query<{ f: string }>(sql)).rows[0]!.f;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`database reset took over ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
