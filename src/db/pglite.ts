import { PGlite } from '@electric-sql/pglite';
import { lockDirectory } from './dir-lock.ts';
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

const wrap = (q: { query: PGlite['query'] }): Sql => ({
  async query<T>(text: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
    const r = await q.query(text, params as unknown[]);
    // PGlite reports affectedRows 0 for a SELECT; like pg's rowCount, a SELECT counts its rows.
    return { rows: normaliseRows<T>(r.rows), rowCount: r.affectedRows || r.rows.length };
  },
});

/** Opens an embedded database. `dir` undefined = in memory (tests). */
export async function openPglite(dir: string | undefined): Promise<Db> {
  if (dir) keepNewFilesPrivate();
  const release = dir ? await lockDirectory(dir) : () => {};
  let pg: PGlite;
  try {
    if (dir) makeTreePrivate(dir);
    pg = await PGlite.create(dir ? { dataDir: dir } : {});
    if (dir) makeTreePrivate(dir);
  } catch (e) {
    release();
    throw e;
  }
  const base = wrap(pg);
  return {
    kind: 'pglite',
    query: base.query,
    transaction: <T>(fn: (tx: Sql) => Promise<T>) => pg.transaction((tx) => fn(wrap(tx))),
    async close() {
      try {
        await pg.close();
      } finally {
        release();
      }
    },
  };
}
