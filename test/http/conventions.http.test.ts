import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../support/app.ts';

describeEachDb('API conventions', (backend) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp(backend, { env: { RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_BURST: '60' } });
    ({ key } = await t.account());
  });
  afterAll(() => t.close());

  it('answers every request with a Request-Id and errors in the envelope', async () => {
    const r = await t.call(key, { method: 'GET', url: '/api/v1/tenants/not-a-uuid' });
    expect(r.statusCode).toBe(404);
    expect(r.headers['request-id']).toMatch(/^req_/);
    expect(r.json()).toEqual({
      error: { code: 'tenant_not_found', message: expect.any(String), requestId: r.headers['request-id'] },
    });
    const nf = await t.call(key, { method: 'GET', url: '/api/v1/nothing-here' });
    expect(nf.json().error.code).toBe('route_not_found');
  });

  it('gives browsers an HTML 404 page outside /api and API clients the JSON envelope everywhere', async () => {
    const browser = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
    const page = await t.app.inject({ method: 'GET', url: '/no-such-page/%3Cscript%3E?x=1', headers: browser });
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['request-id']).toMatch(/^req_/);
    expect(page.body).toContain('Page not found');
    expect(page.body).toContain(page.headers['request-id']);
    expect(page.body).not.toMatch(/<script/i);
    for (const [url, headers] of [
      ['/no-such-page', {}],
      ['/no-such-page', { accept: 'application/json' }],
      ['/api/v1/nothing-here', { ...browser, authorization: `Bearer ${key}` }],
      ['/api', browser],
    ] as const) {
      const r = await t.app.inject({ method: 'GET', url, headers });
      expect(r.statusCode, url).toBe(404);
      expect(r.json().error.code, url).toBe('route_not_found');
    }
    const post = await t.app.inject({ method: 'POST', url: '/no-such-page', headers: browser, payload: {} });
    expect(post.json().error.code).toBe('route_not_found');
  });

  it('rejects bad JSON, wrong content types and oversized bodies with 4xx codes', async () => {
    const bad = await t.call(key, {
      method: 'POST',
      url: '/api/v1/tenants',
      payload: '{"a":',
      headers: { 'content-type': 'application/json' },
    });
    expect([bad.statusCode, bad.json().error.code]).toEqual([400, 'invalid_json']);
    const xml = await t.call(key, {
      method: 'POST',
      url: '/api/v1/tenants',
      payload: '<a/>',
      headers: { 'content-type': 'application/xml' },
    });
    expect([xml.statusCode, xml.json().error.code]).toEqual([415, 'unsupported_media_type']);
    const big = await t.call(key, {
      method: 'POST',
      url: '/api/v1/tenants',
      payload: JSON.stringify({ ...validTenant(), giro: 'x'.repeat(1024 * 1024 + 10) }),
      headers: { 'content-type': 'application/json' },
    });
    expect([big.statusCode, big.json().error.code]).toEqual([413, 'body_too_large']);
    const arr = await t.call(key, {
      method: 'POST',
      url: '/api/v1/tenants',
      payload: '[1,2]',
      headers: { 'content-type': 'application/json' },
    });
    expect(arr.statusCode).toBe(400);
  });

  it('replays an idempotent POST and refuses the key with another body', async () => {
    const headers = { 'idempotency-key': `idem-${Math.random()}` };
    const body = validTenant();
    const a = await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: body, headers });
    const b = await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: body, headers });
    expect(a.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.json().id).toBe(a.json().id);
    const c = await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant({ giro: 'distinto' }), headers });
    expect([c.statusCode, c.json().error.code]).toEqual([409, 'idempotency_key_reused']);
    const list = await t.call(key, { method: 'GET', url: '/api/v1/tenants?limit=250' });
    expect(list.json().data.filter((x: { id: string }) => x.id === a.json().id)).toHaveLength(1);
    // The same key is independent per account.
    const { key: other } = await t.account('Other');
    const d = await t.call(other, { method: 'POST', url: '/api/v1/tenants', payload: body, headers });
    expect(d.statusCode).toBe(201);
    expect(d.json().id).not.toBe(a.json().id);
  });

  it('says a key is in flight while the first request runs, and validates the key', async () => {
    const k = `inflight-${Math.random()}`;
    const first = await t.call(key, { method: 'POST', url: '/api/v1/api-keys', payload: { name: 'a' }, headers: { 'idempotency-key': k } });
    expect(first.statusCode).toBe(201);
    // Make the stored record look like a request still running (same hash, no response yet).
    await t.tdb.db.query(`update idempotency_keys set status_code = null, locked_until = now() + interval '1 minute' where key = $1`, [k]);
    const again = await t.call(key, { method: 'POST', url: '/api/v1/api-keys', payload: { name: 'a' }, headers: { 'idempotency-key': k } });
    expect([again.statusCode, again.json().error.code]).toEqual([409, 'idempotency_key_in_use']);
    // Once its lock has expired (the process died), a retry takes the key over and runs.
    await t.tdb.db.query(`update idempotency_keys set locked_until = now() - interval '1 second' where key = $1`, [k]);
    const retried = await t.call(key, {
      method: 'POST',
      url: '/api/v1/api-keys',
      payload: { name: 'a' },
      headers: { 'idempotency-key': k },
    });
    expect(retried.statusCode).toBe(201);
    const tooLong = await t.call(key, {
      method: 'POST',
      url: '/api/v1/api-keys',
      payload: {},
      headers: { 'idempotency-key': 'x'.repeat(256) },
    });
    expect([tooLong.statusCode, tooLong.json().error.code]).toEqual([400, 'invalid_idempotency_key']);
  });

  it('rate limits per key with 429 and Retry-After', async () => {
    const { key: k } = await t.account('Limited');
    const results = await Promise.all(Array.from({ length: 80 }, () => t.call(k, { method: 'GET', url: '/api/v1/account' })));
    const limited = results.filter((r) => r.statusCode === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(results.filter((r) => r.statusCode === 200).length).toBeGreaterThanOrEqual(60);
    const one = limited[0]!;
    expect(Number(one.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(one.json().error.code).toBe('rate_limited');
    expect(one.headers['ratelimit-limit']).toBe('60');
    // Another key of another account is not affected.
    const ok = await t.call(key, { method: 'GET', url: '/api/v1/account' });
    expect(ok.statusCode).toBe(200);
  });

  it('serves the OpenAPI 3.1 document and the reference page', async () => {
    const doc = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(doc.statusCode).toBe(200);
    const json = doc.json();
    expect(json.openapi).toBe('3.1.0');
    expect(Object.keys(json.paths)).toEqual(expect.arrayContaining(['/api/v1/tenants', '/api/v1/api-keys', '/api/v1/account']));
    expect(json.paths['/api/v1/tenants'].post.responses['201']).toBeDefined();
    // The reference itself (Scalar, offline) is tested in docs.http.test.ts and the browser test.
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('/api/v1/openapi.json');
  });
});
