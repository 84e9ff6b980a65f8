import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { createPglite } from './pglite.ts';
import type { Db } from './types.ts';

/**
 * The embedded database's statements run in one call each, prepared once by name
 * (src/db/pglite-statements.ts): the same rows and errors as PGlite's own query(), and the escapes
 * when a prepared statement can no longer run.
 */
let pg: PGlite;
let db: Db;

beforeAll(async () => {
  ({ pg, db } = await createPglite(undefined));
  await db.query(`create table s (id uuid primary key, n numeric, b bytea, j jsonb, at timestamptz, ok boolean, tags text[])`);
});
afterAll(() => db.close());

const ROW = [
  '00000000-0000-4000-8000-000000000001',
  '12.50',
  Buffer.from([0, 1, 2, 255]),
  JSON.stringify({ a: 'ñandú', n: [1, 2] }),
  new Date('2026-11-28T12:00:00.123Z'),
  true,
  ['x', 'y,z'],
];

it('returns what PGlite itself returns, values serialised by the parameters’ types, twice over one prepared statement', async () => {
  await db.query('insert into s values ($1, $2, $3, $4, $5, $6, $7)', ROW);
  const text = 'select * from s where id = $1 and ok = $2 and $3::text[] @> tags';
  const theirs = await pg.query(text, [ROW[0], true, ['x', 'y,z', 'w']]);
  for (let i = 0; i < 2; i++) {
    const ours = await db.query<Record<string, unknown>>(text, [ROW[0], true, ['x', 'y,z', 'w']]);
    expect(ours.rowCount).toBe(1);
    expect({ ...ours.rows[0], b: new Uint8Array(ours.rows[0]!.b as Buffer) }).toEqual(theirs.rows[0]);
    expect(Buffer.isBuffer(ours.rows[0]!.b)).toBe(true);
  }
  expect((await db.query('select count(*)::int as n from s where n = $1 and at = $2', ['12.5', ROW[4]])).rows).toEqual([{ n: 1 }]);
  expect((await db.query('select $1::text is null as is_null', [null])).rows).toEqual([{ is_null: true }]);
  expect((await db.query('update s set ok = false where ok')).rowCount).toBe(1);
});

it('reports a failed statement with its code, and the next statements run; in a transaction it rolls back', async () => {
  const insert = 'insert into s (id) values ($1)';
  await expect(db.query(insert, [ROW[0]])).rejects.toMatchObject({ code: '23505' });
  await expect(db.query(insert, ['not a uuid'])).rejects.toMatchObject({ code: '22P02' });
  await expect(
    db.transaction(async (tx) => {
      await tx.query(insert, ['00000000-0000-4000-8000-000000000002']);
      await tx.query(insert, [ROW[0]]);
    }),
  ).rejects.toMatchObject({ code: '23505' });
  expect((await db.query('select count(*)::int as n from s')).rows).toEqual([{ n: 1 }]);
  await db.transaction(async (tx) => tx.query(insert, ['00000000-0000-4000-8000-000000000003']));
  expect((await db.query('select count(*)::int as n from s')).rows).toEqual([{ n: 2 }]);
});

it('a statement after its transaction ended is refused', async () => {
  let leaked: { query: Db['query'] } | undefined;
  await db.transaction(async (tx) => {
    leaked = tx;
  });
  await expect(leaked!.query('select 1')).rejects.toThrow(/closed/);
});

it('runs again when the session’s statements were discarded, or a table changed under a prepared statement', async () => {
  const text = 'select * from s where id = $1';
  expect((await db.query(text, [ROW[0]])).rowCount).toBe(1);
  await pg.exec('discard all'); // without telling the runner: it prepares again
  expect((await db.query(text, [ROW[0]])).rowCount).toBe(1);
  await db.query('alter table s add column extra text');
  const r = await db.query<Record<string, unknown>>(text, [ROW[0]]); // 0A000 as prepared: run unnamed
  expect(r.rows[0]).toHaveProperty('extra', null);
  expect((await db.query<Record<string, unknown>>(text, [ROW[0]])).rows[0]).toHaveProperty('extra', null);
});

it('sends bytea parameters as bytes (binary format): every byte value, a Buffer that is a view into a larger one, an empty one', async () => {
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const pool = Buffer.concat([Buffer.from('prefix'), all, Buffer.from('suffix')]);
  const view = pool.subarray(6, 6 + 256);
  for (const [id, b] of [
    ['00000000-0000-4000-8000-0000000000b1', all],
    ['00000000-0000-4000-8000-0000000000b2', view],
    ['00000000-0000-4000-8000-0000000000b3', Buffer.alloc(0)],
  ] as const) {
    await db.query('insert into s (id, b) values ($1, $2)', [id, b]);
    const back = (await pg.query<{ b: Uint8Array; n: number }>('select b, length(b) as n from s where id = $1', [id])).rows[0]!;
    expect(Buffer.from(back.b).equals(b)).toBe(true);
    expect(back.n).toBe(b.length);
  }
  // Several in one statement, as the DTE store's batch does, and in a text one (unnamed) statement.
  const r = await db.query<{ n: number }>('select sum(length(x))::int as n from unnest(array[$1::bytea, $2::bytea]) as x', [all, view]);
  expect(r.rows).toEqual([{ n: 512 }]);
});
