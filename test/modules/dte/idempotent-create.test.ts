import { afterAll, beforeAll, expect, it } from 'vitest';
import { failResponseWriteOnce } from '../../support/idempotency.ts';
import { describeEachDb } from '../../support/db.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, type IssuingApp } from '../../support/issuing.ts';

/**
 * A DTE is never issued twice for one Idempotency-Key (src/http/plugins/idempotency.ts): the key is
 * bound to the new DTE in the transaction that stores it. Fault injection: the write that stores
 * the response after commit fails (the client gets a 500); the retry returns the first DTE, at
 * once, and no second folio is spent.
 */
describeEachDb('Idempotency-Key on DTE create, with the response write failing after commit', (backend) => {
  let t: IssuingApp;
  let key: string;
  let tenantId: string;

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
    tenantId = await readyTenant(t, key);
    await requestFolios(t, key, tenantId, 33, 10);
  });
  afterAll(() => t?.close());

  it('answers the retry with the first DTE and spends one folio', async () => {
    const headers = { 'idempotency-key': `create-${tenantId}` };
    const payload = dteBody(33);
    const { failed, result: first } = await failResponseWriteOnce(t, () =>
      t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload, headers }),
    );
    expect(failed).toBe(1);
    expect(first.statusCode).toBeGreaterThanOrEqual(500); // the client never saw the DTE

    const retry = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload, headers });
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    const list = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte` })).json();
    expect(list.data).toHaveLength(1);
    expect(retry.json()).toMatchObject({ id: list.data[0].id, folio: 1, tipoDte: 33 });
    const inv = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` })).json();
    expect(inv.data[0]).toMatchObject({ usados: 1, siguienteFolio: 2 });

    // Further retries keep answering with the same DTE.
    const again = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload, headers });
    expect(again.statusCode).toBe(201);
    expect(again.json().id).toBe(list.data[0].id);
  });
});
