import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite, type Results } from '@electric-sql/pglite';
import { lockDirectory } from './dir-lock.ts';
import { createStatementRunner } from './pglite-statements.ts';
import { keepNewFilesPrivate, makeTreePrivate } from './private-files.ts';
import type { Db, QueryResult, Sql } from './types.ts';

// PGlite returns bytea as Uint8Array; pg returns Buffer. Normalise to Buffer so stores see one type.
const normaliseRows = <T>(rows: unknown[]): T[] => {
  for (const row of rows as Record<string, unknown>[]) {
    for (const k in row) {
      const v = row[k];
      if (v instanceof Uint8Array && !Buffer.isBuffer(v)) row[k] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    }
  }
  return rows as T[];
};

/** The `Sql` over one way of running a statement (src/db/pglite-statements.ts). */
const wrap = (run: (text: string, params: readonly unknown[]) => Promise<Results>): Sql => ({
  async query<T>(text: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
    const r = await run(text, params);
    // PGlite reports affectedRows 0 for a SELECT; like pg's rowCount, a SELECT counts its rows.
    return { rows: normaliseRows<T>(r.rows), rowCount: r.affectedRows || r.rows.length };
  },
});

/**
 * PGlite's own start parameters, with smaller shared buffers. Its default (128 MB, sized for a
 * server of its own) lives in the process's WebAssembly heap, which never shrinks; the service's
 * working set is small and the OS page cache still holds the files. Runtime settings only:
 * existing data directories open unchanged (docs/performance.md "Memory").
 */
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/**
 * Node flags for a process that runs PGlite: keep its WebAssembly on V8's baseline compiler.
 * Without them V8 recompiles PostgreSQL's hottest functions with its optimising compiler, and
 * compiling those (very large) functions takes hundreds of MB for a moment: a server peaks near
 * 1 GiB instead of ~250 MB, for no measurable gain per query (docs/performance.md "Memory").
 * And keep V8's JavaScript heap near what is alive: the young generation capped at 2 × 8 MB (under
 * load V8 grew it to 2 × 64 MB and never gave it back), and the old generation allowed to grow to
 * 1.5 × what survived the last full collection before the next one (V8's own factor went higher, and
 * garbage waited). Together ~150 MB of a busy server's peak, for CPU per request within the noise
 * (docs/performance.md, "The JavaScript heap"). V8 reads them only at start, so they are on the
 * command line (`npm start`).
 */
export const PGLITE_NODE_FLAGS = [
  '--no-wasm-tier-up',
  '--no-wasm-dynamic-tiering',
  '--max-semi-space-size=8',
  '--heap-growing-percent=50',
] as const;

/** Whether this process was started with PGLITE_NODE_FLAGS. */
export const hasPgliteNodeFlags = (execArgv: readonly string[] = process.execArgv): boolean =>
  PGLITE_NODE_FLAGS.every((f) => execArgv.includes(f));

const INIT_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'pglite-init.ts');

/**
 * Creates a new data directory in a short-lived child process (PGlite's initdb, then `prepare`'s
 * module, e.g. the migrations), so the memory initdb needs for a moment (a second PostgreSQL
 * instance and its bootstrap, ~500 MB) is returned to the system when the child exits, instead of
 * staying in this process's peak. The caller holds the directory lock meanwhile.
 *
 * Invariants:
 * - `PG_VERSION` in `dir` means a whole, migrated database. The child builds it in a sibling
 *   staging directory (`<dir>.creating`, same filesystem); only after it succeeded are the files
 *   moved into `dir`, PG_VERSION last. A child killed half way (out of memory, Ctrl-C) leaves
 *   nothing in `dir` that a later start would open as a database; the next start begins again.
 * - The child never outlives this process: it has an IPC channel to it and exits when that closes
 *   (the lock, an fcntl lock, is never inherited by a child), so a restart can never initialise the
 *   same directory while an orphan still writes.
 */
async function initialiseInChild(dir: string, migrationsDir: string | undefined): Promise<void> {
  const staging = `${dir}.creating`;
  // What an interrupted earlier attempt left (we hold the lock: nobody else is creating it).
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { mode: 0o700 });
  const child = spawn(process.execPath, [...PGLITE_NODE_FLAGS, INIT_SCRIPT, staging, ...(migrationsDir ? [migrationsDir] : [])], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-4000)));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (c) => resolve(c));
  });
  if (code !== 0) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw new Error(`creating the embedded database in ${dir} failed (exit ${code}): ${err.trim()}`);
  }
  const entries = fs.readdirSync(staging).filter((e) => e !== 'PG_VERSION');
  for (const e of [...entries, 'PG_VERSION']) {
    // A same-named entry in `dir` can only be a leftover of a move that was interrupted (there is
    // no PG_VERSION, so no database): replaced.
    fs.rmSync(path.join(dir, e), { recursive: true, force: true });
    fs.renameSync(path.join(staging, e), path.join(dir, e));
  }
  fs.rmdirSync(staging);
}

/**
 * Opens PGlite on `dir` (undefined = in memory) with the service's settings; no lock.
 * `loadDataDir`: start from a copy of a database dumped with `dumpDataDir` instead of an empty one
 * (tests copy one migrated template rather than creating and migrating each database).
 */
export async function createPglite(dir: string | undefined, opts: { loadDataDir?: Blob } = {}): Promise<{ pg: PGlite; db: Db }> {
  const pg = await PGlite.create({
    ...(dir ? { dataDir: dir } : {}),
    ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
    startParams: START_PARAMS,
  });
  const run = createStatementRunner(pg);
  // As PGlite's own query(): a statement outside a transaction waits for any transaction to end,
  // then holds the query lock; one inside a transaction only the query lock (the transaction holds
  // the other). Its files are synced after each statement outside a transaction, as query() does.
  const base = wrap(async (text, params) => {
    await pg._checkReady();
    return pg._runExclusiveTransaction(() =>
      pg.runExclusive(async () => {
        const r = await run(text, params, false);
        await pg.syncToFs();
        return r;
      }),
    );
  });
  const db: Db = {
    kind: 'pglite',
    query: base.query,
    // PGlite's transaction (BEGIN, COMMIT or ROLLBACK, its locks); the statements go through `run`.
    transaction: <T>(fn: (tx: Sql) => Promise<T>) =>
      pg.transaction(async () => {
        let open = true;
        const tx = wrap((text, params) => {
          // As PGlite's own transaction object: a statement after the transaction ended is refused.
          if (!open) throw new Error('Transaction is closed');
          return pg.runExclusive(() => run(text, params, true));
        });
        try {
          return await fn(tx);
        } finally {
          open = false;
        }
      }),
    close: () => pg.close(),
    listenLocally({ channels, onMessage, onState }) {
      void (async () => {
        for (const c of channels) await pg.listen(c, (payload) => onMessage(c, payload));
        onState(true);
      })().catch(() => {
        // Not listening: onState(true) never comes, so no cache that needs it is ever used.
      });
    },
  };
  return { pg, db };
}

export interface OpenPgliteOptions {
  /**
   * For a directory that holds no database yet: the migrations to apply in the child process that
   * creates it (src/db/pglite-init.ts), so the first start does them outside this process too.
   */
  migrationsDir?: string | undefined;
}

/** Opens an embedded database. `dir` undefined = in memory (tests). */
export async function openPglite(dir: string | undefined, opts: OpenPgliteOptions = {}): Promise<Db> {
  if (dir) keepNewFilesPrivate();
  const release = dir ? await lockDirectory(dir) : () => {};
  let opened: { pg: PGlite; db: Db };
  try {
    if (dir) {
      if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) await initialiseInChild(dir, opts.migrationsDir);
      makeTreePrivate(dir);
    }
    opened = await createPglite(dir);
    if (dir) makeTreePrivate(dir);
  } catch (e) {
    release();
    throw e;
  }
  const { pg, db } = opened;
  return {
    ...db,
    async close() {
      try {
        await pg.close();
      } finally {
        release();
      }
    },
  };
}
