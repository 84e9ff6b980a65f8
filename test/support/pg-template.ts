import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase } from '../../src/db/open.ts';

/**
 * PostgreSQL test databases are copies of one migrated template database per migrations folder
 * (`CREATE DATABASE … TEMPLATE`), instead of a schema in which every migration runs again
 * (docs/performance.md, "The test suite", for what each costs).
 *
 * - A template is named by a hash of its folder's migration files, so one built from other files
 *   (another branch, an edited migration) is never used, and runs of different checkouts on one
 *   server each find their own. It is built under a temporary name and renamed once migrated, so a
 *   template found by its name is complete; a session advisory lock makes concurrent test
 *   processes build it once (the others wait, then find it). Templates refuse connections, since
 *   CREATE DATABASE fails while anyone is connected to its template.
 * - A process keeps one spare copy per folder it has used twice, made in the background while a
 *   test runs, and drops closed copies in the background (a DROP right after its pool closed
 *   waits on the server for the last backend to exit, in steps of 100 ms).
 * - A copy's name carries its run (from the global setup, pg-template.setup.ts) and its time: the
 *   setup's teardown drops the run's leftovers (spares, drops a worker's exit cut short), and any
 *   run's copies older than a day are taken for a killed run's, and dropped.
 */
export const TEMPLATE_PREFIX = 'dte_tpl_';
export const COPY_PREFIX = 'dte_test_';
const BUILD_LOCK = 727_275; // beside migrate()'s 727274 (src/db/migrate.ts)
const STALE_AFTER_S = 24 * 3600;

declare module 'vitest' {
  export interface ProvidedContext {
    /** Names this run's PostgreSQL test databases (pg-template.setup.ts). */
    pgRun: string;
  }
}

/** A hash of a migrations folder's `.sql` files: names and contents, in name order. */
export function migrationsHash(dir: string): string {
  const h = crypto.createHash('sha256');
  for (const f of fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.sql'))
    .sort()) {
    h.update(`${f}\0`)
      .update(fs.readFileSync(path.join(dir, f)))
      .update('\0');
  }
  return h.digest('hex').slice(0, 20);
}

/** `base` with its database name replaced. */
export function databaseUrl(base: string, name: string): string {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function withAdmin<T>(base: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const namesLike = async (c: pg.Client, pattern: string) =>
  (await c.query<{ datname: string }>('select datname from pg_database where datname like $1', [pattern])).rows.map((r) => r.datname);

const templates = new Map<string, Promise<string>>();

/** The template database for `migrations` on the server of `base`, built if absent (once per process). */
export function templateFor(base: string, migrations: string): Promise<string> {
  const name = `${TEMPLATE_PREFIX}${migrationsHash(migrations)}`;
  const key = `${base}\0${name}`;
  let p = templates.get(key);
  if (!p) {
    p = ensureTemplate(base, migrations);
    templates.set(key, p);
    p.catch(() => templates.delete(key));
  }
  return p;
}

/** Builds the template for `migrations` unless it exists; safe to call from several processes at once. */
export async function ensureTemplate(base: string, migrations: string): Promise<string> {
  const name = `${TEMPLATE_PREFIX}${migrationsHash(migrations)}`;
  await withAdmin(base, async (c) => {
    if ((await namesLike(c, name)).length > 0) return;
    await c.query('select pg_advisory_lock($1)', [BUILD_LOCK]);
    try {
      if ((await namesLike(c, name)).length > 0) return; // built by another process while this one waited
      // A build a killed process left half done: only the lock holder builds, so none is running.
      for (const wip of await namesLike(c, `${name}\\_wip\\_%`)) await c.query(`drop database if exists ${wip} with (force)`);
      const tmp = `${name}_wip_${crypto.randomBytes(4).toString('hex')}`;
      await c.query(`create database ${tmp}`);
      try {
        const db = await openDatabase({ url: databaseUrl(base, tmp), migrationsDir: migrations });
        await db.close();
        await c.query(`alter database ${tmp} with allow_connections false`);
        await c.query(`alter database ${tmp} rename to ${name}`);
      } catch (e) {
        await c.query(`drop database if exists ${tmp} with (force)`).catch(() => {});
        throw e;
      }
    } finally {
      await c.query('select pg_advisory_unlock($1)', [BUILD_LOCK]);
    }
  });
  return name;
}

export interface Copy {
  name: string;
  url: string;
  /** Drops the database in the background (closing every connection to it); resolves at once. */
  drop(): void;
}

let run: string | undefined;
function runId(): string {
  if (run === undefined) {
    try {
      run = inject('pgRun') ?? 'none';
    } catch {
      run = 'none'; // not in a vitest worker (a script, or a child process of a test)
    }
  }
  return run;
}

const copyName = () => `${COPY_PREFIX}${Math.floor(Date.now() / 1000).toString(36)}_${runId()}_${crypto.randomBytes(4).toString('hex')}`;

/** The creation time, in seconds, a copy's name carries. */
export const copyTime = (name: string): number => parseInt(name.slice(COPY_PREFIX.length).split('_')[0] ?? '', 36);

let drops: Promise<unknown> = Promise.resolve();

async function newCopy(base: string, template: string): Promise<Copy> {
  const name = copyName();
  await withAdmin(base, (c) => c.query(`create database ${name} template ${template}`));
  return {
    name,
    url: databaseUrl(base, name),
    drop() {
      // One at a time; FORCE: a child process a test started may still hold a connection. A drop
      // that fails (the server restarting under a test) leaves the copy to the run's teardown.
      drops = drops.then(() => withAdmin(base, (c) => c.query(`drop database if exists ${name} with (force)`))).catch(() => {});
    },
  };
}

const spares = new Map<string, Promise<Copy>>();
const uses = new Map<string, number>();

/** A new database copied from the migrated template of `migrations`. */
export async function copyOfTemplate(base: string, migrations: string): Promise<Copy> {
  const template = await templateFor(base, migrations);
  const key = `${base}\0${template}`;
  const spare = spares.get(key);
  spares.delete(key);
  const copy = (spare ? await spare.catch(() => undefined) : undefined) ?? (await newCopy(base, template));
  const n = (uses.get(key) ?? 0) + 1;
  uses.set(key, n);
  if (n >= 2) {
    const next = newCopy(base, template);
    next.catch(() => {}); // taken up, or replaced by a new copy, by the next call
    spares.set(key, next);
  }
  return copy;
}

/** Drops a run's copies (`run` given) or any run's copies older than a day. */
export async function dropCopies(base: string, which: { run: string } | 'stale'): Promise<number> {
  return withAdmin(base, async (c) => {
    if (which !== 'stale') {
      // A spare a worker started making as it finished is still being created on the server,
      // invisible in pg_database until then: wait for it (at most 10 s), then drop it with the rest.
      for (let i = 0; i < 50; i++) {
        const making = await c.query(
          `select 1 from pg_stat_activity where state = 'active' and query ilike $1 and pid <> pg_backend_pid()`,
          [`create database ${COPY_PREFIX}%\_${which.run}\_%`],
        );
        if (making.rowCount === 0) break;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    const now = Date.now() / 1000;
    const names = (await namesLike(c, `${COPY_PREFIX}%`)).filter((n) =>
      which === 'stale' ? now - copyTime(n) > STALE_AFTER_S : n.split('_')[3] === which.run,
    );
    for (const n of names) await c.query(`drop database if exists ${n} with (force)`);
    return names.length;
  });
}
