import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from './postgres.ts';
import type { Db } from './types.ts';

/** Named prepared statements (docs/performance.md "Prepared statements"). */
describe.skipIf(!process.env.TEST_DATABASE_URL)('prepared statements on PostgreSQL', () => {
  const url = process.env.TEST_DATABASE_URL!;
  const schema = `t_prep_${crypto.randomBytes(4).toString('hex')}`;
  let admin: Db;
  beforeAll(async () => {
    admin = await openPostgres(url, { max: 1 });
    await admin.query(`create schema ${schema}`);
    await admin.query(`create table ${schema}.t (id int primary key, a text)`);
    await admin.query(`insert into ${schema}.t values (1, 'uno'), (2, 'dos')`);
  });
  afterAll(async () => {
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.close();
  });

  /** The statements this connection has prepared (one connection: max 1). */
  const prepared = (db: Db) =>
    db
      .query<{ statement: string }>(`select statement from pg_prepared_statements where name like 'dte\\_%'`)
      .then((r) => r.rows.map((x) => x.statement));

  it('a statement with parameters is prepared once per connection and reused, inside transactions too', async () => {
    const db = await openPostgres(url, { max: 1, schema });
    try {
      const text = 'select a from t where id = $1';
      expect((await db.query<{ a: string }>(text, [1])).rows).toEqual([{ a: 'uno' }]);
      expect((await db.query<{ a: string }>(text, [2])).rows).toEqual([{ a: 'dos' }]);
      await db.transaction(async (tx) => expect((await tx.query<{ a: string }>(text, [1])).rows).toEqual([{ a: 'uno' }]));
      expect(await prepared(db)).toEqual([text]);
    } finally {
      await db.close();
    }
  });

  it('off: nothing is prepared', async () => {
    const db = await openPostgres(url, { max: 1, schema, preparedStatements: false });
    try {
      await db.query('select a from t where id = $1', [1]);
      expect(await prepared(db)).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('a statement whose result columns changed under it runs again unprepared at once, outside a transaction', async () => {
    const db = await openPostgres(url, { max: 1, schema });
    try {
      const text = 'select * from t where id = $1';
      expect((await db.query(text, [1])).rows).toEqual([{ id: 1, a: 'uno' }]);
      await admin.query(`alter table ${schema}.t add column b int default 7`);
      expect((await db.query(text, [1])).rows).toEqual([{ id: 1, a: 'uno', b: 7 }]);
      expect((await db.query(text, [2])).rows).toEqual([{ id: 2, a: 'dos', b: 7 }]);
    } finally {
      await admin.query(`alter table ${schema}.t drop column if exists b`);
      await db.close();
    }
  });

  it('inside a transaction it fails once (the transaction is aborted), then runs unprepared', async () => {
    const db = await openPostgres(url, { max: 1, schema });
    try {
      const text = 'select * from t where id = $1 and a is not null';
      await db.transaction(async (tx) => expect((await tx.query(text, [1])).rows).toEqual([{ id: 1, a: 'uno' }]));
      await admin.query(`alter table ${schema}.t add column c int default 8`);
      await expect(db.transaction((tx) => tx.query(text, [1]))).rejects.toMatchObject({ code: '0A000' });
      await db.transaction(async (tx) => expect((await tx.query(text, [1])).rows).toEqual([{ id: 1, a: 'uno', c: 8 }]));
    } finally {
      await admin.query(`alter table ${schema}.t drop column if exists c`);
      await db.close();
    }
  });

  it('a statement gone from its connection (26000) runs again unprepared', async () => {
    const db = await openPostgres(url, { max: 1, schema });
    try {
      const text = 'select a from t where id = $1 and id > 0';
      expect((await db.query(text, [1])).rows).toEqual([{ a: 'uno' }]);
      const [name] = (await db.query<{ name: string }>(`select name from pg_prepared_statements where statement = $1`, [text])).rows;
      await db.query(`deallocate ${name!.name}`); // what pg's Close does after a failed parameter conversion
      expect((await db.query(text, [2])).rows).toEqual([{ a: 'dos' }]);
    } finally {
      await db.close();
    }
  });
});
