import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../support/app.ts';

/**
 * Percent-encoded paths reach the same routes as their plain forms (the router decodes them), so
 * they must meet the same API-key check and rate limit: authentication is decided on the route
 * the router matched, not on the raw URL (src/http/plugins/auth.ts).
 */
const encodeChar = (path: string, i: number) =>
  path.slice(0, i) + `%${path.charCodeAt(i).toString(16).padStart(2, '0')}` + path.slice(i + 1);

describeEachDb('percent-encoded paths', (backend) => {
  let t: TestApp;
  let a: { accountId: string; key: string };
  let routes: { method: string; path: string }[];
  let tenantA: string;

  beforeAll(async () => {
    t = await startTestApp(backend);
    a = await t.account('A');
    tenantA = (await t.call(a.key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id;
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })));
  });
  afterAll(() => t.close());

  const fill = (path: string) =>
    path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'tenantId' ? tenantA : '5b1b6c1e-0000-4000-8000-000000000000'));

  it('asks every route for its API key whichever letter of its path is percent-encoded', async () => {
    let checked = 0;
    for (const route of routes) {
      const plain = fill(route.path);
      // Encode one letter of each static segment (the first and the last letter of the path's text).
      const letters = [...plain.matchAll(/[a-z]/g)].map((m) => m.index);
      for (const i of new Set([letters[0]!, letters[Math.floor(letters.length / 2)]!, letters.at(-1)!])) {
        const url = encodeChar(plain, i);
        const r = await t.app.inject({
          method: route.method as 'GET',
          url,
          ...(route.method === 'POST' || route.method === 'PATCH' ? { payload: {} } : {}),
        });
        expect(r.statusCode, `${route.method} ${url}`).toBe(401);
        expect(r.json().error.code).toBe('missing_api_key');
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(60);
  });

  it('serves an encoded path with a valid key like the plain one, with rate-limit headers', async () => {
    for (const url of ['/%61pi/v1/account', '/api/v1/%61ccount', '/api/%76%31/account']) {
      const r = await t.call(a.key, { method: 'GET', url });
      expect(r.statusCode, url).toBe(200);
      expect(r.json().id).toBe(a.accountId);
      expect(r.headers['ratelimit-limit']).toBeDefined();
    }
    const missing = await t.call(a.key, { method: 'GET', url: '/%64te/5b1b6c1e-0000-4000-8000-000000000000/status' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('dte_not_found');
  });
});
