import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAIN_MIGRATIONS } from '../../src/db/open.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { copyOfTemplate, copyTime, databaseUrl, ensureTemplate, migrationsHash, TEMPLATE_PREFIX, withAdmin } from './pg-template.ts';

/** PostgreSQL test databases are copies of a template named by its migrations (pg-template.ts). */

const base = process.env.TEST_DATABASE_URL;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-pg-template-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A migrations folder of its own: two small files, the second's text varied by `tag`. */
function folder(tag: string): string {
  const dir = fs.mkdtempSync(path.join(tmp, 'm-'));
  fs.writeFileSync(path.join(dir, '202601010000_a.sql'), 'create table a (id int primary key);\n');
  fs.writeFileSync(path.join(dir, '202601010001_b.sql'), `create table b (id int primary key, note text default '${tag}');\n`);
  return dir;
}

describe('template names', () => {
  it('follow the migration files: same files, same name; an edited or added file, another', () => {
    const a = folder('x');
    expect(migrationsHash(folder('x'))).toBe(migrationsHash(a));
    expect(migrationsHash(folder('y'))).not.toBe(migrationsHash(a));
    const added = folder('x');
    fs.writeFileSync(path.join(added, '202601010002_c.sql'), 'select 1;\n');
    expect(migrationsHash(added)).not.toBe(migrationsHash(a));
    fs.writeFileSync(path.join(a, 'README.md'), 'not a migration');
    expect(migrationsHash(a)).toBe(migrationsHash(folder('x')));
  });

  it('a copy carries its creation time; a database URL keeps all but the name', () => {
    expect(copyTime(`dte_test_${(1_800_000_000).toString(36)}_run_abcd`)).toBe(1_800_000_000);
    expect(databaseUrl('postgres://u:p@h:5433/test?sslmode=disable', 'other')).toBe('postgres://u:p@h:5433/other?sslmode=disable');
  });
});

describe.skipIf(!base)('template databases [postgres]', () => {
  const names = async (pattern: string) =>
    withAdmin(base!, async (c) =>
      (await c.query<{ datname: string }>('select datname from pg_database where datname like $1', [pattern])).rows.map((r) => r.datname),
    );

  it('is built once when several processes ask at once, complete, closed to connections, never half-built', async () => {
    const dir = folder(`concurrent-${Date.now()}`);
    const name = `${TEMPLATE_PREFIX}${migrationsHash(dir)}`;
    try {
      // Separate calls (no per-process memo): what concurrent test processes do.
      const got = await Promise.all([ensureTemplate(base!, dir), ensureTemplate(base!, dir), ensureTemplate(base!, dir)]);
      expect(got).toEqual([name, name, name]);
      expect(await names(`${name}%`)).toEqual([name]); // no work-in-progress copy left
      const allow = await withAdmin(base!, (c) =>
        c.query<{ datallowconn: boolean }>('select datallowconn from pg_database where datname = $1', [name]),
      );
      expect(allow.rows[0]!.datallowconn).toBe(false);

      const copy = await copyOfTemplate(base!, dir);
      const db = await openPostgres(copy.url);
      try {
        const applied = (await db.query<{ name: string }>('select name from schema_migrations order by name')).rows.map((r) => r.name);
        expect(applied).toEqual(['202601010000_a.sql', '202601010001_b.sql']);
        await db.query('insert into b (id) values (1)');
        expect((await db.query<{ note: string }>('select note from b')).rows[0]!.note).toMatch(/^concurrent-/);
      } finally {
        await db.close();
      }
    } finally {
      await withAdmin(base!, async (c) => {
        for (const n of await names(`${name}%`)) await c.query(`drop database if exists ${n} with (force)`);
      });
    }
  });

  it('gives each test a database of its own, copied from the main template', async () => {
    const [one, two] = await Promise.all([copyOfTemplate(base!, MAIN_MIGRATIONS), copyOfTemplate(base!, MAIN_MIGRATIONS)]);
    expect(one!.name).not.toBe(two!.name);
    const a = await openPostgres(one!.url);
    const b = await openPostgres(two!.url);
    try {
      const files = fs
        .readdirSync(MAIN_MIGRATIONS)
        .filter((f) => f.endsWith('.sql'))
        .sort();
      const applied = (await a.query<{ name: string }>('select name from schema_migrations order by name')).rows.map((r) => r.name);
      expect(applied).toEqual(files);
      await a.query('create table only_in_one (x int)');
      const has = async (db: typeof a) => (await db.query("select 1 from pg_class where relname = 'only_in_one'")).rowCount;
      expect([await has(a), await has(b)]).toEqual([1, 0]);
    } finally {
      await a.close();
      await b.close();
      one!.drop();
      two!.drop();
    }
  });
});
