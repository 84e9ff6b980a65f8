/**
 * Where an authenticated read's CPU goes, in-process (`node bench/read-cpu.ts [postgres|pglite]`,
 * TEST_DATABASE_URL for PostgreSQL): the real app through `app.inject`, process.cpuUsage per request
 * for four paths, so the differences split the cost:
 * - tenant: GET /api/v1/tenants/{id} (auth, hooks, the tenant query, serialisation);
 * - notfound: the same with a well-formed id of no tenant (the query, no serialisation);
 * - notuuid: an id that cannot exist (auth and hooks, no query: a 404 before the database);
 * - health: GET /healthz (no auth; what `inject` itself costs).
 * Three rounds; figures move with the machine's load, the differences much less.
 */
import { startTestApp, validTenant } from '../test/support/app.ts';

const backend = (process.argv[2] ?? 'postgres') as 'postgres' | 'pglite';
const unlimited = {
  RATE_LIMIT_PER_SECOND: '1000000',
  RATE_LIMIT_BURST: '1000000',
  ACCOUNT_RATE_LIMIT_PER_SECOND: '1000000',
  ACCOUNT_RATE_LIMIT_BURST: '1000000',
};
const t = await startTestApp(backend, { env: unlimited });
const { key } = await t.account();
const created = await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() });
const id = (created.json() as { id: string }).id;
const paths: Record<string, { url: string; auth: boolean }> = {
  tenant: { url: `/api/v1/tenants/${id}`, auth: true },
  notfound: { url: '/api/v1/tenants/00000000-0000-4000-8000-000000000000', auth: true },
  notuuid: { url: '/api/v1/tenants/x', auth: true },
  health: { url: '/healthz', auth: false },
};
for (const round of [1, 2, 3]) {
  const out: string[] = [];
  for (const [name, p] of Object.entries(paths)) {
    const n = 2000;
    const before = process.cpuUsage();
    for (let i = 0; i < n; i += 16)
      await Promise.all(Array.from({ length: 16 }, () => t.call(p.auth ? key : undefined, { method: 'GET', url: p.url })));
    const used = process.cpuUsage(before);
    out.push(`${name} ${((used.user + used.system) / n).toFixed(0)} µs`);
  }
  console.log(`round ${round} (${backend}, CPU per request): ${out.join(', ')}`);
}
await t.close();
