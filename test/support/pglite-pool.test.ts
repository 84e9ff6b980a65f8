import type { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.ts';
import { MAIN_MIGRATIONS } from '../../src/db/open.ts';
import { STATEMENT_NAME_PREFIX } from '../../src/db/pglite-statements.ts';
import { EMULATOR_MIGRATIONS } from '../../src/provider/emulator/store.ts';
import { SECRETS_MIGRATIONS } from '../../src/secrets/secret-store.ts';
import { newPglite } from './db.ts';
import { fingerprintOf, givePglite, shapeOf, takePglite, type Pooled } from './pglite-pool.ts';

/**
 * The pool of reused test databases (pglite-pool.ts) hands out a database that equals a new one:
 * proven here on a database dirtied in every table, sequence and piece of session state.
 */

/** One row in every table (foreign keys and triggers off), every sequence advanced. */
async function dirty(pg: PGlite): Promise<void> {
  const shape = await shapeOf(pg);
  await pg.exec('set session_replication_role = replica');
  for (const table of shape.tables) {
    const cols = (
      await pg.query<{ name: string; type: string }>(
        `select quote_ident(attname) as name, format_type(atttypid, atttypmod) as type from pg_attribute
         where attrelid = $1::regclass and attnum > 0 and not attisdropped and attgenerated = '' and attidentity = '' order by attnum`,
        [table],
      )
    ).rows;
    const checks = (
      await pg.query<{ def: string }>(
        `select pg_get_constraintdef(oid) as def from pg_constraint where conrelid = $1::regclass and contype = 'c'`,
        [table],
      )
    ).rows.map((r) => r.def);
    const values = cols.map((c) => valueFor(c.name, c.type, checks));
    await pg.query(`insert into ${table} (${cols.map((c) => c.name).join(', ')}) values (${values.join(', ')})`);
  }
  for (const s of shape.sequences) await pg.query(`select nextval('${s}')`);
  // Session state a test could leave behind.
  await pg.exec(`set statement_timeout = '1234s'; create temp table leftover (x int); select pg_advisory_lock(42);
    listen leftover_channel; prepare leftover_stmt as select 1; begin`);
}

/** A value of the column's type that its table's CHECK constraints accept (their first literal for it). */
function valueFor(name: string, type: string, checks: string[]): string {
  for (const def of checks) {
    const m = new RegExp(`\\(?${name}\\)? = (?:ANY \\(ARRAY\\[)?'([^']*)'`).exec(def);
    if (m) return `'${m[1]}'::${type}`;
  }
  if (type.endsWith('[]')) return `'{}'::${type}`;
  if (/^(text|character|citext)/.test(type)) return `'x'::${type}`;
  if (/^(integer|bigint|smallint|numeric|real|double)/.test(type)) return `1::${type}`;
  const byType: Record<string, string> = {
    boolean: 'true',
    uuid: 'gen_random_uuid()',
    'timestamp with time zone': 'now()',
    'timestamp without time zone': 'now()',
    date: 'current_date',
    bytea: `'\\x00'::bytea`,
    jsonb: `'{}'::jsonb`,
    json: `'{}'::json`,
    inet: `'127.0.0.1'::inet`,
    interval: `'1 second'::interval`,
  };
  const v = byType[type];
  if (!v) throw new Error(`no test value for type ${type} (column ${name}): add one`);
  return v;
}

/** Everything a test can observe of a database's contents and session, table by table. */
async function stateOf(pg: PGlite) {
  const shape = await shapeOf(pg);
  const rows: Record<string, number> = {};
  for (const t of shape.tables) rows[t] = Number((await pg.query<{ n: string }>(`select count(*) as n from ${t}`)).rows[0]!.n);
  const sequences: Record<string, unknown> = {};
  for (const s of shape.sequences) sequences[s] = (await pg.query(`select last_value, is_called from ${s}`)).rows[0];
  // The driver's own named statements (src/db/pglite-statements.ts) are not counted: it prepares them again after a reset.
  const session = (
    await pg.query(`select current_setting('statement_timeout') as statement_timeout, current_setting('session_replication_role') as role,
      (select count(*)::int from pg_locks where locktype = 'advisory') as advisory_locks,
      (select count(*)::int from pg_listening_channels()) as listening,
      (select count(*)::int from pg_prepared_statements where name not like '${STATEMENT_NAME_PREFIX}%') as prepared,
      (select count(*)::int from pg_class where relpersistence = 't') as temp_relations`)
  ).rows[0];
  return { fingerprint: await fingerprintOf(pg), rows, sequences, session };
}

describe.each([
  ['main', MAIN_MIGRATIONS],
  ['secrets', SECRETS_MIGRATIONS],
])('reused test databases (%s migrations)', (name, migrations) => {
  const made: Pooled[] = [];
  // A pool key of its own, so that other tests in this process never take these databases.
  const key = `${migrations}#pool-test`;
  const create = async () => {
    const p = await newPglite(migrations);
    made.push(p);
    return p;
  };
  afterAll(async () => {
    for (const p of made) if (!p.pg.closed) await p.pg.close();
  });

  it('puts a database dirtied in every table back equal to a new one', async () => {
    const fresh = await create();
    const expected = await stateOf(fresh.pg);
    expect(Object.values(expected.rows).every((n) => n === 0)).toBe(true);

    const used = await takePglite(key, create);
    await dirty(used.pg);
    await used.pg.exec('commit');
    const dirtied = await stateOf(used.pg);
    expect(Object.entries(dirtied.rows).filter(([, n]) => n === 0)).toEqual([]);
    // The secrets store has no sequences.
    if (name === 'main') expect(dirtied.sequences).not.toEqual(expected.sequences);
    await used.pg.exec('begin'); // a transaction left open, too
    await givePglite(key, used);

    const again = await takePglite(key, create);
    expect(again).toBe(used);
    const after = await stateOf(again.pg);
    for (const t of Object.keys(expected.rows)) expect([t, after.rows[t]]).toEqual([t, 0]);
    for (const s of Object.keys(expected.sequences)) expect([s, after.sequences[s]]).toEqual([s, expected.sequences[s]]);
    expect(after.session).toEqual(expected.session);
    expect(after.fingerprint).toBe(expected.fingerprint);
    expect(after).toEqual(expected);
    await givePglite(key, again);
    await givePglite(key, fresh);
  });

  it('takes back a database a test added tables, sequences and migrations to (as the emulator does), without them', async () => {
    const fresh = await create();
    const expected = await stateOf(fresh.pg);
    const used = await takePglite(key, create);
    // The in-process emulator's migrations (src/provider/emulator/store.ts), applied to the service's database.
    const applied = await migrate(used.db, EMULATOR_MIGRATIONS);
    expect(applied.length).toBeGreaterThan(0);
    await used.pg
      .exec(`create table extra (id serial primary key, x int); create sequence extra_seq; create view extra_view as select x from extra;
      insert into extra (x) values (1)`);
    await givePglite(key, used);

    const again = await takePglite(key, create);
    expect(again).toBe(used);
    expect(await stateOf(again.pg)).toEqual(expected);
    // And the emulator's migrations apply again from scratch.
    expect(await migrate(again.db, EMULATOR_MIGRATIONS)).toEqual(applied);
    await givePglite(key, again);
    await givePglite(key, fresh);
  });

  it('does not keep a database the test closed, nor one whose schema it changed', async () => {
    const a = await takePglite(key, create);
    const b = await takePglite(key, create);
    const c = await takePglite(key, create);
    await a.pg.close();
    await b.pg.exec('create view extra_view as select 1 as x');
    await c.pg.exec('alter table schema_migrations add column note text');
    for (const p of [a, b, c]) await givePglite(key, p);
    expect(b.pg.closed).toBe(true);
    expect(c.pg.closed).toBe(true);
    const before = made.length;
    const d = await takePglite(key, create);
    expect([a, b, c]).not.toContain(d);
    expect(made.length).toBe(before + 1);
    await givePglite(key, d);
  });
});
