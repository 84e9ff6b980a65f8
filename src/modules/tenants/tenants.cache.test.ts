import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb, openTestDb, type TestDb } from '../../../test/support/db.ts';
import { systemClock } from '../../lib/clock.ts';
import { createTenantCache } from './tenants.cache.ts';
import { createTenantsService } from './tenants.service.ts';
import type { TenantRow } from './tenants.store.ts';

const row = (id: string, accountId = 'a') => ({ id, account_id: accountId }) as TenantRow;

/** A database with a listener that is up at once and records what is notified. */
function fakeDb() {
  const state: { onMessage?: (c: string, p: string) => void; onState?: (l: boolean) => void } = {};
  return {
    state,
    db: {
      query: async () => ({ rows: [], rowCount: 0 }),
      listen(o: { onMessage: (c: string, p: string) => void; onState: (l: boolean) => void }) {
        state.onMessage = o.onMessage;
        state.onState = o.onState;
        queueMicrotask(() => o.onState(true));
        return { notify() {} };
      },
    },
  };
}

it('caches nothing without a listener, and nothing before the listener is up', async () => {
  const none = createTenantCache({ query: async () => ({ rows: [], rowCount: 0 }) });
  none.set(row('t1'), none.epoch());
  expect(none.get('a', 't1')).toBeUndefined();
  const f = fakeDb();
  const c = createTenantCache(f.db);
  c.set(row('t1'), c.epoch());
  expect(c.get('a', 't1')).toBeUndefined();
  await Promise.resolve();
  c.set(row('t1'), c.epoch());
  expect(c.get('a', 't1')?.id).toBe('t1');
});

it('keeps rows for ttlMs, bounded, never across accounts; a change or a lost listener drops them', async () => {
  let t = 0;
  const f = fakeDb();
  const c = createTenantCache(f.db, { ttlMs: 100, max: 2, now: () => t });
  await Promise.resolve();
  c.set(row('t1'), c.epoch());
  expect(c.get('b', 't1')).toBeUndefined();
  t = 101;
  expect(c.get('a', 't1')).toBeUndefined();
  c.set(row('t1'), c.epoch());
  c.set(row('t2'), c.epoch());
  c.set(row('t3'), c.epoch());
  expect([c.get('a', 't1'), c.get('a', 't2')?.id, c.get('a', 't3')?.id]).toEqual([undefined, 't2', 't3']);
  f.state.onMessage!('dte_tenant_changed', 't2');
  expect([c.get('a', 't2'), c.get('a', 't3')?.id]).toEqual([undefined, 't3']);
  f.state.onState!(false);
  expect(c.get('a', 't3')).toBeUndefined();
  c.set(row('t3'), c.epoch());
  expect(c.get('a', 't3')).toBeUndefined();
});

it('does not store a lookup that was in flight when a change arrived', async () => {
  const f = fakeDb();
  const c = createTenantCache(f.db);
  await Promise.resolve();
  const started = c.epoch();
  f.state.onMessage!('dte_tenant_changed', 'other');
  c.set(row('t1'), started);
  expect(c.get('a', 't1')).toBeUndefined();
});

describeEachDb('tenant cache in the service', (backend) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(backend);
  });
  afterAll(() => t.close());

  it('reads a tenant without a query, and a change made elsewhere is seen once settled', async () => {
    let queries = 0;
    const db = { ...t.db, query: ((text: string, p?: readonly unknown[]) => (queries++, t.db.query(text, p))) as typeof t.db.query };
    const tenants = createTenantsService({ db, clock: systemClock });
    const other = createTenantsService({ db: t.db, clock: systemClock }); // another "process"
    const accountId = '00000000-0000-4000-8000-000000000002';
    await t.db.query(`insert into accounts (id, name, email) values ($1, 'A', 'a2@example.com')`, [accountId]);
    const created = await tenants.create(accountId, {
      rutEmpresa: '76.123.456-0',
      razonSocial: 'Uno SpA',
      giro: 'Servicios',
      direccion: 'Calle 1',
      comuna: 'Santiago',
      ciudad: 'Santiago',
      numeroResolucion: 0,
      fechaResolucion: '2020-01-01',
    });
    await new Promise((r) => setTimeout(r, 300)); // the cache is used once its listener is up
    expect((await tenants.readRow(accountId, created.id)).razon_social).toBe('Uno SpA');
    queries = 0;
    for (let i = 0; i < 5; i++) expect((await tenants.readRow(accountId, created.id)).id).toBe(created.id);
    expect(queries).toBe(0);
    // Changed through the other service: its update waits until this one has dropped the row.
    await other.update(await other.getRow(accountId, created.id), { razonSocial: 'Dos SpA' });
    expect((await tenants.readRow(accountId, created.id)).razon_social).toBe('Dos SpA');
    // A change by hand (no service) still notifies; without settled() it arrives shortly after on
    // PostgreSQL, and on PGlite before the statement resolves.
    await t.db.query(`update tenants set giro = 'Otro' where id = $1`, [created.id]);
    if (backend === 'postgres') await other.settled();
    expect((await tenants.readRow(accountId, created.id)).giro).toBe('Otro');
    // Inside a transaction: nothing is dropped until the commit, a rollback drops nothing.
    await t.db.transaction(async (tx) => {
      await tx.query(`update tenants set giro = 'Tres' where id = $1`, [created.id]);
    });
    if (backend === 'postgres') await other.settled();
    expect((await tenants.readRow(accountId, created.id)).giro).toBe('Tres');
    await expect(tenants.readRow(accountId, '00000000-0000-4000-8000-00000000dead')).rejects.toMatchObject({ code: 'tenant_not_found' });

    // A write's row (writeRow): on PGlite the cached, committed row, with no query, and a commit's
    // change is in it as soon as the commit resolved; on PostgreSQL always from the database.
    queries = 0;
    expect((await tenants.writeRow(accountId, created.id)).giro).toBe('Tres');
    expect(queries).toBe(backend === 'pglite' ? 0 : 1);
    await t.db.query(`update tenants set giro = 'Cuatro' where id = $1`, [created.id]);
    queries = 0;
    expect((await tenants.writeRow(accountId, created.id)).giro).toBe('Cuatro');
    expect(queries).toBe(1);
    queries = 0;
    expect((await tenants.writeRow(accountId, created.id)).giro).toBe('Cuatro');
    expect(queries).toBe(backend === 'pglite' ? 0 : 1);
    await expect(tenants.writeRow(accountId, '00000000-0000-4000-8000-00000000dead')).rejects.toMatchObject({ code: 'tenant_not_found' });
  });
});
