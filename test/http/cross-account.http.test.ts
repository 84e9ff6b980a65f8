import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../support/db.ts';
import { startIssuingApp, type IssuingApp } from '../support/issuing.ts';
import { notRefused, ownedResources, routesWithParams, type Ids } from '../support/isolation.ts';
import { zeroPng } from '../support/zero-png.ts';

/**
 * Account isolation on every route with a path parameter, read from the OpenAPI document (a route
 * added later is covered, or this test fails until it is given a body): account A owns a real
 * resource for every parameter (tenant, certificate, API key, webhook endpoint and message, folio
 * request, DTE, envío, received document and envío, acceptance), and account B asks for each with
 * a body the route accepts. The only right answer is 404 with a `…_not_found` code: never 400
 * (which would mean the id was never looked up), never 403, never 2xx. The same suite across test
 * and live mode: test/http/cross-mode.http.test.ts.
 */
describeEachDb('cross-account isolation (real ids, every route)', (backend) => {
  let t: IssuingApp;
  let b: { key: string };
  let ids: Ids;
  let routes: { method: string; path: string }[];
  let logo: Buffer;

  beforeAll(async () => {
    t = await startIssuingApp(backend, { env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    logo = await zeroPng({ width: 8, height: 8 });
    const a = await t.account('A');
    b = await t.account('B');
    ids = await ownedResources(t, a.key);
    routes = await routesWithParams(t);
  }, 180_000);
  afterAll(() => t?.close());

  it("answers 404 to another account's real ids on every route with a path parameter", async () => {
    expect(routes.length).toBeGreaterThan(40);
    expect(await notRefused(t, b.key, ids, logo, routes)).toEqual([]);
  });

  it("leaves account A's resources as they were", async () => {
    // Every refusal above was a lookup, not a change: A's DTE and endpoint are intact.
    const a = await t.call(b.key, { method: 'GET', url: `/api/v1/tenants/${ids.tenantId}/dte/${ids.dteId}` });
    expect(a.statusCode).toBe(404);
    const rows = await t.ctx.db.query<{ n: string }>('select count(*)::text as n from webhook_endpoints where id = $1', [ids.endpointId]);
    expect(rows.rows[0]!.n).toBe('1');
  });
});
