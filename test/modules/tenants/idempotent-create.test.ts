import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import { describeEachDb } from '../../support/db.ts';
import { failResponseWriteOnce } from '../../support/idempotency.ts';

/**
 * A tenant is never created twice for one Idempotency-Key (src/http/plugins/idempotency.ts): the
 * key is bound to the new tenant in the transaction that inserts it. Fault injection: the write
 * that stores the response after commit fails (the client gets a 5xx); the retry returns the first
 * tenant, and the account still has one.
 */
describeEachDb('Idempotency-Key on tenant create, with the response write failing after commit', (backend) => {
  let t: TestApp;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    t = await startTestApp(backend);
    ({ key } = await t.account('A'));
    ({ key: otherKey } = await t.account('B'));
  });
  afterAll(() => t?.close());

  it('answers the retry with the first tenant and creates one', async () => {
    const req = { method: 'POST' as const, url: '/api/v1/tenants', payload: validTenant(), headers: { 'idempotency-key': 'tenant-1' } };
    const { failed, result: first } = await failResponseWriteOnce(t, () => t.call(key, req));
    expect(failed).toBe(1);
    expect(first.statusCode).toBeGreaterThanOrEqual(500); // the client never saw the tenant

    const retry = await t.call(key, req);
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    const list = (await t.call(key, { method: 'GET', url: '/api/v1/tenants' })).json();
    expect(list.data).toHaveLength(1);
    const read = await t.call(key, { method: 'GET', url: `/api/v1/tenants/${list.data[0].id}` });
    expect(retry.json()).toEqual(read.json()); // as GET answers

    const again = await t.call(key, req);
    expect(again.statusCode).toBe(201);
    expect(again.json().id).toBe(list.data[0].id);

    // The same key in another account is its own key: it creates that account's tenant.
    const other = await t.call(otherKey, req);
    expect(other.statusCode).toBe(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(other.json().id).not.toBe(list.data[0].id);
  });
});
