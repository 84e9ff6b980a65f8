import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../support/db.ts';
import { startIssuingApp, type IssuingApp } from '../support/issuing.ts';
import { notRefused, ownedResources, routesWithParams, type Ids } from '../support/isolation.ts';
import { zeroPng } from '../support/zero-png.ts';

/**
 * Mode isolation (docs/design.md "Test mode"), the cross-account suite's twin: one account's live
 * key and test key each own a real resource for every path parameter, and the other key asks for
 * each on every route: 404 `…_not_found` both ways, as for another account's objects. The lists
 * of each mode hold only that mode's objects.
 */
describeEachDb('cross-mode isolation (real ids, every route, both ways)', (backend) => {
  let t: IssuingApp;
  let live: string;
  let test: string;
  const ids: { live?: Ids; test?: Ids } = {};
  let routes: { method: string; path: string }[];
  let logo: Buffer;

  beforeAll(async () => {
    t = await startIssuingApp(backend, { env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    logo = await zeroPng({ width: 8, height: 8 });
    ({ key: live } = await t.account('A'));
    const made = await t.call(live, { method: 'POST', url: '/api/v1/api-keys', payload: { mode: 'test' } });
    if (made.statusCode !== 201) throw new Error(`test key: ${made.statusCode} ${made.body}`);
    test = made.json().key;
    ids.live = await ownedResources(t, live);
    ids.test = await ownedResources(t, test);
    routes = await routesWithParams(t);
  }, 300_000);
  afterAll(() => t?.close());

  it("answers 404 to a test key asking for the live mode's real ids on every route", async () => {
    expect(routes.length).toBeGreaterThan(40);
    expect(await notRefused(t, test, ids.live!, logo, routes)).toEqual([]);
  });

  it("answers 404 to a live key asking for the test mode's real ids on every route", async () => {
    expect(await notRefused(t, live, ids.test!, logo, routes)).toEqual([]);
  });

  it("lists only the key's own mode, each object saying so", async () => {
    const lists = (own: Ids) => [
      '/api/v1/tenants',
      '/api/v1/api-keys',
      '/api/v1/webhooks/endpoints',
      '/api/v1/webhooks/messages',
      `/api/v1/tenants/${own.tenantId}/dte`,
      `/api/v1/tenants/${own.tenantId}/received`,
      `/api/v1/tenants/${own.tenantId}/folios`,
      `/api/v1/tenants/${own.tenantId}/certification/sets`,
    ];
    for (const [key, own, other, livemode] of [
      [live, ids.live!, ids.test!, true],
      [test, ids.test!, ids.live!, false],
    ] as const) {
      for (const url of lists(own)) {
        const r = await t.call(key, { method: 'GET', url });
        expect(r.statusCode, `${url} ${r.body}`).toBe(200);
        const data = r.json().data as { id?: string; livemode: boolean }[];
        expect(data.length, url).toBeGreaterThan(0);
        expect(
          data.filter((o) => o.livemode !== livemode).map((o) => o.id),
          url,
        ).toEqual([]);
        const otherIds = new Set(Object.values(other));
        expect(
          data.filter((o) => o.id && otherIds.has(o.id)).map((o) => o.id),
          url,
        ).toEqual([]);
      }
    }
  });
});
