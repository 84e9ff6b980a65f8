import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../support/app.ts';

/**
 * The shared security suite, applied to every authenticated route in the OpenAPI document (so
 * routes added later are covered without editing this file): no key, malformed keys, unknown and
 * revoked keys → 401; never a 5xx. Another account's real ids → 404 on every route:
 * cross-account.http.test.ts.
 */
interface Route {
  method: string;
  path: string;
}

const BAD_HEADERS: [string, string | undefined][] = [
  ['no header', undefined],
  ['empty', ''],
  ['Bearer only', 'Bearer '],
  ['wrong scheme', 'Basic dXNlcjpwYXNz'],
  ['wrong prefix', `Bearer sk_test_${'a'.repeat(43)}`],
  ['too short', 'Bearer sk_live_abc'],
  ['10 KB', `Bearer sk_live_${'a'.repeat(10 * 1024)}`],
  ['non-ASCII', 'Bearer sk_live_ñññññññññññññññññññññññññññññññññññññññññññ'],
  ['unknown key', `Bearer sk_live_${'A'.repeat(43)}`],
  ['lowercase scheme', `bearer sk_live_${'A'.repeat(43)}`],
  ['two keys', `Bearer sk_live_${'A'.repeat(43)}, Bearer sk_live_${'B'.repeat(43)}`],
];

describeEachDb('security suite (every route)', (backend) => {
  let t: TestApp;
  let a: { accountId: string; key: string };
  let routes: Route[];
  let tenantA: string;
  let revoked: string;

  beforeAll(async () => {
    t = await startTestApp(backend);
    a = await t.account('A');
    tenantA = (await t.call(a.key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id;
    const extra = await t.ctx.services.apiKeys.create(a.accountId, { name: 'to revoke' });
    await t.call(a.key, { method: 'DELETE', url: `/api/v1/api-keys/${extra.id}` });
    revoked = extra.key;
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })));
  });
  afterAll(() => t.close());

  // Fill path parameters with account A's real ids where we have them, else random UUIDs.
  const fill = (path: string) =>
    path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'tenantId' ? tenantA : '5b1b6c1e-0000-4000-8000-000000000000'));

  it('covers the routes it should', () => {
    const paths = routes.map((r) => `${r.method} ${r.path}`);
    expect(paths).toEqual(expect.arrayContaining(['POST /api/v1/tenants', 'GET /api/v1/account', 'DELETE /api/v1/api-keys/{id}']));
  });

  it('refuses every missing, malformed, unknown or revoked key with a 401 code', async () => {
    for (const route of routes) {
      for (const [label, header] of [...BAD_HEADERS, ['revoked key', `Bearer ${revoked}`] as [string, string]]) {
        const r = await t.app.inject({
          method: route.method as 'GET',
          url: fill(route.path),
          headers: header === undefined ? {} : { authorization: header },
          ...(route.method === 'POST' || route.method === 'PATCH' ? { payload: {} } : {}),
        });
        expect(r.statusCode, `${route.method} ${route.path} with ${label}`).toBe(401);
        expect(r.json().error.code).toMatch(/^(missing|malformed|invalid|revoked)_api_key$/);
      }
    }
  });

  it('gives the revoked key its own code, on the very next request', async () => {
    const k = await t.ctx.services.apiKeys.create(a.accountId, {});
    expect((await t.call(k.key, { method: 'GET', url: '/api/v1/account' })).statusCode).toBe(200);
    await t.call(a.key, { method: 'DELETE', url: `/api/v1/api-keys/${k.id}` });
    const r = await t.call(k.key, { method: 'GET', url: '/api/v1/account' });
    expect([r.statusCode, r.json().error.code]).toEqual([401, 'revoked_api_key']);
  });

  it('never answers 5xx to odd input on any route', async () => {
    const odd = ['%00', '..%2F..%2Fetc', 'x'.repeat(300), '%F0%9F%98%80', "'; drop table tenants; --"];
    for (const route of routes) {
      for (const o of odd) {
        const url = route.path.replace(/\{(\w+)\}/g, o);
        for (const payload of [undefined, '[]', 'null', '{"a":{"b":{"c":[1,2,{"d":null}]}}}', '"str"', '1e999']) {
          const r = await t.app.inject({
            method: route.method as 'GET',
            url,
            headers: { authorization: `Bearer ${a.key}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
            ...(payload && route.method !== 'GET' && route.method !== 'DELETE' ? { payload } : {}),
          });
          expect(r.statusCode, `${route.method} ${url} ${payload}`).toBeLessThan(500);
        }
      }
    }
  });
});

describeEachDb('security suite (raw HTTP bytes)', (backend) => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp(backend);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterAll(() => t.close());

  const raw = async (authorization: Buffer): Promise<string> => {
    const net = await import('node:net');
    return new Promise((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      s.on('data', (c) => chunks.push(c));
      s.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
      s.on('error', reject);
      s.write(
        Buffer.concat([
          Buffer.from('GET /api/v1/account HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: '),
          authorization,
          Buffer.from('\r\n\r\n'),
        ]),
      );
    });
  };

  it('answers a NUL byte in the key with a 4xx envelope, never a 5xx', async () => {
    const res = await raw(Buffer.from(`Bearer sk_live_${'a'.repeat(20)}\0${'a'.repeat(22)}`, 'latin1'));
    expect(res).toMatch(/^HTTP\/1\.1 4\d\d /);
    expect(res).toContain('"code":"malformed_request"');
  });

  it('answers raw non-ASCII bytes in the key with 401 malformed_api_key', async () => {
    const res = await raw(Buffer.from(`Bearer sk_live_${'\xf1'.repeat(43)}`, 'latin1'));
    expect(res).toMatch(/^HTTP\/1\.1 401 /);
    expect(res).toContain('"code":"malformed_api_key"');
  });
});
