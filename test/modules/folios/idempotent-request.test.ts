import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../support/db.ts';
import { failResponseWriteOnce } from '../../support/idempotency.ts';
import { readyTenant, startIssuingApp, type IssuingApp } from '../../support/issuing.ts';

/**
 * A CAF is never requested twice for one Idempotency-Key (src/http/plugins/idempotency.ts): the key
 * is bound to the folio request in the transaction that records it and its job. Fault injection:
 * the write that stores the response after commit fails (the client gets a 5xx); the retry
 * answers as the route would for that request (201 completed, 202 pending, the stored error when
 * failed), and the tenant has one request.
 */
describeEachDb('Idempotency-Key on folio requests, with the response write failing after commit', (backend) => {
  let t: IssuingApp;
  let key: string;

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
  });
  afterAll(() => t?.close());

  const requestCount = async (app: IssuingApp, tenantId: string) =>
    (
      (await app.ctx.db.query<{ n: number }>('select count(*)::int as n from folio_requests where tenant_id = $1', [tenantId])) as {
        rows: { n: number }[];
      }
    ).rows[0]!.n;

  const firstThenRetry = async (app: IssuingApp, k: string, tenantId: string, payload: object) => {
    const req = {
      method: 'POST' as const,
      url: `/api/v1/tenants/${tenantId}/folios/request`,
      payload,
      headers: { 'idempotency-key': `folios-${tenantId}` },
    };
    const { failed, result: first } = await failResponseWriteOnce(app, () => app.call(k, req));
    expect(failed).toBe(1);
    expect(first.statusCode).toBeGreaterThanOrEqual(500); // the client never saw the request
    const retry = await app.call(k, req);
    return { retry, again: () => app.call(k, req) };
  };

  it('answers the retry with the completed request (201) and asks for one CAF', async () => {
    const tenantId = await readyTenant(t, key);
    const { retry, again } = await firstThenRetry(t, key, tenantId, { tipoDte: 33, cantidad: 10 });
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toMatchObject({ status: 'completed', rango: { desde: 1, hasta: 10 } });
    expect(await requestCount(t, tenantId)).toBe(1);
    const read = await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios/requests/${retry.json().id}` });
    expect(retry.json()).toEqual(read.json());
    const inv = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` })).json();
    expect(inv.data).toHaveLength(1);
    expect(inv.data[0]).toMatchObject({ tipoDte: 33, disponibles: 10 });
    expect((await again()).json().id).toBe(retry.json().id);
  });

  it('answers the retry with the stored error of a failed request', async () => {
    const tenantId = await readyTenant(t, key, {}, 'sandbox-quota-key-01');
    const { retry } = await firstThenRetry(t, key, tenantId, { tipoDte: 33, cantidad: 5 });
    expect(retry.statusCode, retry.body).toBe(422);
    expect(retry.json().error).toMatchObject({ code: 'provider_quota_exhausted' });
    expect(await requestCount(t, tenantId)).toBe(1);
  });

  it('answers the retry of a request still running with 202 and the pending request', async () => {
    const t2 = await startIssuingApp(backend, { env: { EMULATOR_SLOW: '1500ms', FOLIO_REQUEST_WAIT: '200ms' } });
    try {
      const k = (await t2.account()).key;
      const tenantId = await readyTenant(t2, k, {}, 'sandbox-slow-key-01');
      const { retry } = await firstThenRetry(t2, k, tenantId, { tipoDte: 34, cantidad: 3 });
      expect(retry.statusCode, retry.body).toBe(202);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.json()).toMatchObject({ status: 'pending', rango: null });
      expect(await requestCount(t2, tenantId)).toBe(1);
    } finally {
      await t2.close();
    }
  });
});
