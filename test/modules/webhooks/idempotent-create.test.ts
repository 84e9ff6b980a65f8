import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { describeEachDb } from '../../support/db.ts';
import { failResponseWriteOnce } from '../../support/idempotency.ts';

/**
 * A webhook endpoint is never registered twice for one Idempotency-Key
 * (src/http/plugins/idempotency.ts): the key is bound to the new endpoint in the transaction that
 * inserts it. Fault injection: the write that stores the response after commit fails (the client
 * gets a 5xx and never saw the secret); the retry returns the first endpoint with its secret.
 */
describeEachDb('Idempotency-Key on webhook endpoint create, with the response write failing after commit', (backend) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp(backend);
    ({ key } = await t.account());
  });
  afterAll(() => t?.close());

  it('answers the retry with the first endpoint and its secret, and registers one', async () => {
    const req = {
      method: 'POST' as const,
      url: '/api/v1/webhooks/endpoints',
      payload: { url: 'https://93.184.215.14/hooks', filterTypes: ['folio.low'] },
      headers: { 'idempotency-key': 'endpoint-1' },
    };
    const { failed, result: first } = await failResponseWriteOnce(t, () => t.call(key, req));
    expect(failed).toBe(1);
    expect(first.statusCode).toBeGreaterThanOrEqual(500);

    const retry = await t.call(key, req);
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    const list = (await t.call(key, { method: 'GET', url: '/api/v1/webhooks/endpoints' })).json();
    expect(list.data).toHaveLength(1);
    const id = list.data[0].id as string;
    const secret = (await t.call(key, { method: 'GET', url: `/api/v1/webhooks/endpoints/${id}/secret` })).json().secret;
    expect(retry.json()).toEqual({ ...list.data[0], secret }); // the create response's shape
    expect(secret).toMatch(/^whsec_/);

    const again = await t.call(key, req);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(retry.json());
  });
});
