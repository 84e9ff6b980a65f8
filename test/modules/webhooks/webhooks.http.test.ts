import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../../src/events/event-types.ts';
import { createDeliveryWorker } from '../../../src/modules/webhooks/index.ts';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts';
import { FAST_SETTINGS } from '../../support/webhooks.ts';

/** The webhook routes through the real app on a real database (happy paths, errors, isolation). */
describeEachDb('webhooks HTTP API', (backend) => {
  let t: TestApp;
  let a: { accountId: string; key: string };
  let b: { accountId: string; key: string };
  let r: WebhookReceiver;
  const PUBLIC_URL = 'https://93.184.215.14/hooks'; // an IP literal: no DNS needed

  beforeAll(async () => {
    t = await startTestApp(backend);
    a = await t.account('A');
    b = await t.account('B');
    r = await startWebhookReceiver();
  });
  afterAll(async () => {
    await r?.close();
    await t?.close();
  });

  const post = (key: string, url: string, payload?: unknown) =>
    t.call(key, { method: 'POST', url, ...(payload === undefined ? {} : { payload: payload as object }) });

  it('creates an endpoint, shows its secret once in the answer and on /secret, never in lists', async () => {
    const res = await post(a.key, '/api/v1/webhooks/endpoints', { url: PUBLIC_URL, filterTypes: ['folio.low'], description: ' Billing ' });
    expect(res.statusCode).toBe(201);
    const ep = res.json();
    expect(ep).toMatchObject({
      url: PUBLIC_URL,
      filterTypes: ['folio.low'],
      description: 'Billing',
      signatureScheme: 'hmac-sha256-body',
      disabled: false,
      disabledReason: null,
    });
    expect(ep.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Object.keys(ep).sort()).toEqual(
      [
        'createdAt',
        'description',
        'disabled',
        'disabledAt',
        'disabledReason',
        'filterTypes',
        'id',
        'livemode',
        'secret',
        'signatureScheme',
        'updatedAt',
        'url',
      ].sort(),
    );
    const list = await t.call(a.key, { method: 'GET', url: '/api/v1/webhooks/endpoints' });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(ep.secret);
    expect(list.json().data.map((e: { id: string }) => e.id)).toContain(ep.id);
    const one = await t.call(a.key, { method: 'GET', url: `/api/v1/webhooks/endpoints/${ep.id}` });
    expect(one.json()).not.toHaveProperty('secret');
    expect((await t.call(a.key, { method: 'GET', url: `/api/v1/webhooks/endpoints/${ep.id}/secret` })).json()).toEqual({
      secret: ep.secret,
    });
  });

  it('treats absent or empty filterTypes as every event', async () => {
    const res = await post(a.key, '/api/v1/webhooks/endpoints', { url: PUBLIC_URL });
    expect(res.json().filterTypes).toEqual([]);
    const res2 = await post(a.key, '/api/v1/webhooks/endpoints', { url: PUBLIC_URL, filterTypes: [] });
    expect(res2.json().filterTypes).toEqual([]);
  });

  it.each([
    [{ url: PUBLIC_URL, filterTypes: ['folio.low', 'folio.lowww'] }, 400, 'invalid_event_type', 'filterTypes[1]'],
    [{ url: PUBLIC_URL, filterTypes: ['*'] }, 400, 'invalid_event_type', 'filterTypes[0]'],
    [{}, 400, 'invalid_field', 'url'],
    [{ url: 42 }, 400, 'invalid_field', 'url'],
    [{ url: PUBLIC_URL, extra: 1 }, 400, 'invalid_field', 'extra'],
    [{ url: PUBLIC_URL, signatureScheme: 'md5' }, 400, 'invalid_field', 'signatureScheme'],
    [{ url: 'not a url' }, 400, 'invalid_webhook_url', 'url'],
    [{ url: 'ftp://example.com/x' }, 400, 'webhook_url_scheme_not_allowed', 'url'],
    [{ url: 'https://user:pw@93.184.215.14/x' }, 400, 'webhook_url_credentials_not_allowed', 'url'],
    [{ url: `https://93.184.215.14/${'a'.repeat(2100)}` }, 400, 'invalid_field', 'url'],
    [{ url: 'http://169.254.169.254/latest/meta-data/' }, 422, 'webhook_url_forbidden_address', 'url'],
    [{ url: 'https://no-such-host.invalid/x' }, 422, 'webhook_url_unresolvable', 'url'],
  ])('refuses %j with %i %s', async (body, status, code, param) => {
    const res = await post(a.key, '/api/v1/webhooks/endpoints', body);
    expect(res.statusCode).toBe(status);
    expect(res.json().error).toMatchObject({ code, param });
  });

  it('updates, disables and re-enables an endpoint; PATCH validates like create', async () => {
    const ep = (await post(a.key, '/api/v1/webhooks/endpoints', { url: PUBLIC_URL })).json();
    const url = `/api/v1/webhooks/endpoints/${ep.id}`;
    const p1 = await t.call(a.key, {
      method: 'PATCH',
      url,
      payload: { filterTypes: ['dte.status.changed'], description: null, signatureScheme: 'standard-webhooks' },
    });
    expect(p1.statusCode).toBe(200);
    expect(p1.json()).toMatchObject({ filterTypes: ['dte.status.changed'], description: null, signatureScheme: 'standard-webhooks' });
    const p2 = await t.call(a.key, { method: 'PATCH', url, payload: { disabled: true } });
    expect(p2.json()).toMatchObject({ disabled: true, disabledReason: 'manual' });
    expect(p2.json().disabledAt).toEqual(expect.any(String));
    const test = await post(a.key, `${url}/test`, {});
    expect(test.statusCode).toBe(409);
    expect(test.json().error.code).toBe('webhook_endpoint_disabled');
    const p3 = await t.call(a.key, { method: 'PATCH', url, payload: { disabled: false } });
    expect(p3.json()).toMatchObject({ disabled: false, disabledReason: null, disabledAt: null });
    const bad = await t.call(a.key, { method: 'PATCH', url, payload: { url: 'http://127.0.0.1:1/' } });
    // allowed here: the test app runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true
    expect(bad.statusCode).toBe(200);
    const bad2 = await t.call(a.key, { method: 'PATCH', url, payload: { filterTypes: ['nope'] } });
    expect(bad2.json().error).toMatchObject({ code: 'invalid_event_type', param: 'filterTypes[0]' });
    expect((await t.call(a.key, { method: 'PATCH', url, payload: {} })).statusCode).toBe(400);
  });

  it('rotates the secret', async () => {
    const ep = (await post(a.key, '/api/v1/webhooks/endpoints', { url: PUBLIC_URL })).json();
    const rot = await post(a.key, `/api/v1/webhooks/endpoints/${ep.id}/secret/rotate`);
    expect(rot.statusCode).toBe(200);
    expect(rot.json().secret).toMatch(/^whsec_/);
    expect(rot.json().secret).not.toBe(ep.secret);
    expect((await t.call(a.key, { method: 'GET', url: `/api/v1/webhooks/endpoints/${ep.id}/secret` })).json().secret).toBe(
      rot.json().secret,
    );
  });

  it('deletes with 204, then 404', async () => {
    const ep = (await post(a.key, '/api/v1/webhooks/endpoints', { url: PUBLIC_URL })).json();
    const del = await t.call(a.key, { method: 'DELETE', url: `/api/v1/webhooks/endpoints/${ep.id}` });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    const again = await t.call(a.key, { method: 'DELETE', url: `/api/v1/webhooks/endpoints/${ep.id}` });
    expect(again.statusCode).toBe(404);
    expect(again.json().error.code).toBe('webhook_endpoint_not_found');
  });

  it("answers 404 for another account's endpoints and messages, on every route", async () => {
    const ep = (await post(a.key, '/api/v1/webhooks/endpoints', { url: r.url })).json();
    const msg = (await post(a.key, `/api/v1/webhooks/endpoints/${ep.id}/test`, {})).json();
    for (const [method, url, payload] of [
      ['GET', `/api/v1/webhooks/endpoints/${ep.id}`],
      ['PATCH', `/api/v1/webhooks/endpoints/${ep.id}`, { description: 'x' }],
      ['DELETE', `/api/v1/webhooks/endpoints/${ep.id}`],
      ['GET', `/api/v1/webhooks/endpoints/${ep.id}/secret`],
      ['POST', `/api/v1/webhooks/endpoints/${ep.id}/secret/rotate`],
      ['POST', `/api/v1/webhooks/endpoints/${ep.id}/test`, {}],
      ['GET', `/api/v1/webhooks/messages/${msg.id}`],
      ['POST', `/api/v1/webhooks/messages/${msg.id}/resend`, { endpointId: ep.id }],
    ] as const) {
      const res = await t.call(b.key, { method, url, ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    const list = await t.call(b.key, { method: 'GET', url: '/api/v1/webhooks/messages' });
    expect(list.json().data.map((m: { id: string }) => m.id)).not.toContain(msg.id);
    expect((await t.call(b.key, { method: 'GET', url: '/api/v1/webhooks/endpoints' })).json().data).toEqual([]);
    // and B cannot resend its own message to A's endpoint either
    const epB = (await post(b.key, '/api/v1/webhooks/endpoints', { url: r.url })).json();
    const msgB = (await post(b.key, `/api/v1/webhooks/endpoints/${epB.id}/test`, {})).json();
    const cross = await post(b.key, `/api/v1/webhooks/messages/${msgB.id}/resend`, { endpointId: ep.id });
    expect(cross.statusCode).toBe(404);
    expect(cross.json().error).toMatchObject({ code: 'webhook_endpoint_not_found', param: 'endpointId' });
  });

  it('sends a test event, logs its attempts, and resends it with the same webhook-id', async () => {
    const c = await t.account('C');
    const r = await startWebhookReceiver();
    const ep = (await post(c.key, '/api/v1/webhooks/endpoints', { url: r.url, filterTypes: ['dte.status.changed'] })).json();
    r.secret = ep.secret;
    // Only this account's messages: the other tests leave deliveries to the shared receiver queued.
    await t.ctx.db.query(`update webhook_deliveries set status = 'cancelled' where account_id <> $1`, [c.accountId]);
    const before = 0;
    const res = await post(c.key, `/api/v1/webhooks/endpoints/${ep.id}/test`, { eventType: 'folio.low' });
    expect(res.statusCode).toBe(202);
    const msg = res.json();
    expect(msg).toMatchObject({ eventType: 'folio.low', status: 'pending', attempts: [] });
    expect(msg.payload).toEqual({
      event: 'folio.low',
      timestamp: expect.any(String),
      livemode: true,
      data: { tenantId: '00000000-0000-0000-0000-000000000000', tipoDte: 33, disponibles: 9, lowThreshold: 10 },
    });
    const worker = createDeliveryWorker({ db: t.ctx.db, clock: t.clock, cipher: t.ctx.secrets.dataCipher, settings: FAST_SETTINGS });
    await worker.tick();
    await worker.settle();
    await r.waitForCount(before + 1);
    const got = r.deliveries[before]!;
    expect(got).toMatchObject({ verified: true, webhookId: msg.id });

    const logged = (await t.call(c.key, { method: 'GET', url: `/api/v1/webhooks/messages/${msg.id}` })).json();
    expect(logged.status).toBe('succeeded');
    expect(logged.attempts).toEqual([
      {
        endpointId: ep.id,
        attemptNumber: 1,
        status: 'succeeded',
        responseStatusCode: 200,
        responseBody: 'ok',
        error: null,
        durationMs: expect.any(Number),
        attemptedAt: expect.any(String),
        nextAttemptAt: null,
      },
    ]);

    const re = await post(c.key, `/api/v1/webhooks/messages/${msg.id}/resend`, { endpointId: ep.id });
    expect(re.statusCode).toBe(202);
    expect(re.json().status).toBe('pending');
    await worker.tick();
    await worker.settle();
    await r.waitForCount(before + 2);
    expect(r.deliveries[before + 1]).toMatchObject({ verified: true, webhookId: msg.id, seenCount: 2 });
    const after = (await t.call(c.key, { method: 'GET', url: `/api/v1/webhooks/messages/${msg.id}` })).json();
    expect(after.attempts).toHaveLength(2);
    expect(r.deliveries).toHaveLength(2);
    await r.close();
  });

  it('lists messages newest first with limit, iterator and filters', async () => {
    const d = await t.account('D');
    const ep = (await post(d.key, '/api/v1/webhooks/endpoints', { url: PUBLIC_URL })).json();
    const other = (await post(d.key, '/api/v1/webhooks/endpoints', { url: PUBLIC_URL })).json();
    const ids: string[] = [];
    const tick = () => new Promise((res) => setTimeout(res, 3)); // distinct createdAt, so the order is known
    for (const type of ['folio.low', 'dte.status.changed', 'folio.low', 'certificate.expiring', 'folio.low']) {
      ids.push((await post(d.key, `/api/v1/webhooks/endpoints/${ep.id}/test`, { eventType: type })).json().id);
      await tick();
    }
    const otherMsg = (await post(d.key, `/api/v1/webhooks/endpoints/${other.id}/test`, {})).json().id;

    const seen: string[] = [];
    let iterator: string | null = null;
    do {
      const q: string = `/api/v1/webhooks/messages?limit=2${iterator ? `&iterator=${iterator}` : ''}`;
      const page = (await t.call(d.key, { method: 'GET', url: q })).json();
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((m: { id: string }) => m.id));
      iterator = page.iterator;
      expect(page.done).toBe(iterator === null);
    } while (iterator);
    expect(seen).toEqual([otherMsg, ...[...ids].reverse()]);

    const folio = (await t.call(d.key, { method: 'GET', url: '/api/v1/webhooks/messages?eventType=folio.low' })).json();
    expect(folio.data.map((m: { id: string }) => m.id)).toEqual([ids[4], ids[2], ids[0]]);
    const byEp = (await t.call(d.key, { method: 'GET', url: `/api/v1/webhooks/messages?endpointId=${other.id}` })).json();
    expect(byEp.data.map((m: { id: string }) => m.id)).toEqual([otherMsg]);

    for (const [q, code, param] of [
      ['eventType=folio.high', 'invalid_event_type', 'eventType'],
      ['endpointId=nope', 'invalid_parameter', 'endpointId'],
      ['limit=0', 'invalid_parameter', 'limit'],
      ['limit=251', 'invalid_parameter', 'limit'],
      ['iterator=garbage', 'invalid_iterator', 'iterator'],
      ['foo=1', 'invalid_parameter', 'foo'],
    ])
      expect((await t.call(d.key, { method: 'GET', url: `/api/v1/webhooks/messages?${q}` })).json().error, q).toMatchObject({
        code,
        param,
      });
  });

  it('documents the payload and every event data shape as named schemas in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const names = Object.keys(doc.components.schemas);
    expect(names).toEqual(
      expect.arrayContaining([
        'WebhookPayload',
        'TenantCredentialsUpdatedData',
        'FolioLowData',
        'CertificateExpiringData',
        'DteStatusChangedData',
        'WebhookMessage',
        'WebhookEndpoint',
      ]),
    );
    for (const path of [
      '/api/v1/webhooks/endpoints',
      '/api/v1/webhooks/endpoints/{endpointId}',
      '/api/v1/webhooks/endpoints/{endpointId}/secret',
      '/api/v1/webhooks/endpoints/{endpointId}/secret/rotate',
      '/api/v1/webhooks/endpoints/{endpointId}/test',
      '/api/v1/webhooks/messages',
      '/api/v1/webhooks/messages/{messageId}',
      '/api/v1/webhooks/messages/{messageId}/resend',
    ])
      expect(doc.paths, path).toHaveProperty([path]);
    expect(Object.keys(doc.paths['/api/v1/webhooks/endpoints/{endpointId}']).sort()).toEqual(['delete', 'get', 'patch']);
  });

  describe('event names', () => {
    it('accepts each of the four', async () => {
      for (const type of EVENT_TYPES) {
        const res = await post(a.key, '/api/v1/webhooks/endpoints', { url: PUBLIC_URL, filterTypes: [type] });
        expect(res.statusCode).toBe(201);
      }
    });
  });
});
