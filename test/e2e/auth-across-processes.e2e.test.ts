import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validTenant } from '../support/app.ts';
import { apiClient, createAccountViaCli, scratchDatabase, startServer, type ServerProc } from '../support/processes.ts';

/**
 * Authentication and rate limits across two server processes on one PostgreSQL
 * (docs/performance.md): each process caches API keys and leases rate-limit tokens, and still
 * - a key revoked through one process is refused by the other on the very next request;
 * - an account's limit holds across both, within one lease per process;
 * - invalid keys from one address are limited across both;
 * - a tenant changed through one process is read as changed through the other on the next request
 *   (each caches tenant rows for reads: src/modules/tenants/tenants.cache.ts).
 */
const SKIP = !process.env.TEST_DATABASE_URL;
if (SKIP) console.warn('auth across processes: SKIPPED — set TEST_DATABASE_URL to run it against PostgreSQL');
const title = SKIP
  ? 'authentication across processes — SKIPPED: set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run it'
  : 'authentication and rate limits across two processes on one PostgreSQL';

// The account's budget: 400 at once, 200 a second; a lease is then 10 tokens (src/lib/rate-limiter.ts).
const BURST = 400;
const RATE = 200;
const LEASE = 10;

describe.skipIf(SKIP)(title, () => {
  let a: ServerProc;
  let b: ServerProc;
  let db: Awaited<ReturnType<typeof scratchDatabase>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await scratchDatabase();
    env = {
      ...db.env,
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_BURST: '100000',
      ACCOUNT_RATE_LIMIT_PER_SECOND: String(RATE),
      ACCOUNT_RATE_LIMIT_BURST: String(BURST),
      AUTH_FAILURE_RATE_LIMIT_PER_SECOND: '1',
      AUTH_FAILURE_RATE_LIMIT_BURST: '100',
    };
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
  }, 120_000); // starts two servers: processes
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  const get = (server: ServerProc, key: string) => apiClient(server.url, key)('GET', '/api/v1/account');

  it('a key revoked through one process is refused by the other on the very next request', async () => {
    const admin = await createAccountViaCli(env);
    // Both processes busy with other requests meanwhile, so notifications compete with them.
    const busy = await createAccountViaCli(env);
    let stop = false;
    const load = Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        while (!stop) await get(i % 2 ? a : b, busy);
      }),
    );
    // Two refusals a round, within the address's budget for failed authentication.
    for (let round = 0; round < 20; round++) {
      // Revoke alternately through each process; the other has the key cached (it just used it).
      const [via, other] = round % 2 ? [b, a] : [a, b];
      const created = await apiClient(via.url, admin)('POST', '/api/v1/api-keys', { name: `k${round}` });
      expect(created.status).toBe(201);
      const { id, key } = created.json as { id: string; key: string };
      for (let i = 0; i < 3; i++) {
        expect((await get(a, key)).status).toBe(200);
        expect((await get(b, key)).status).toBe(200);
      }
      const revoked = await apiClient(via.url, admin)('DELETE', `/api/v1/api-keys/${id}`);
      expect(revoked.status).toBe(200);
      const next = await get(other, key);
      expect([next.status, (next.json as { error: { code: string } }).error?.code]).toEqual([401, 'revoked_api_key']);
      const same = await get(via, key);
      expect([same.status, (same.json as { error: { code: string } }).error?.code]).toEqual([401, 'revoked_api_key']);
    }
    stop = true;
    await load;
  });

  it("an account's rate limit holds across both processes, within one lease per process", async () => {
    const key = await createAccountViaCli(env);
    const servers = [a, b];
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<ReturnType<typeof apiClient>>> | undefined;
    const started = performance.now();
    let next = 0;
    const total = 1600;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < total) {
          const i = next++;
          const r = await get(servers[i % 2]!, key);
          statuses.push(r.status);
          if (r.status === 429) limited ??= r;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const allowed = statuses.filter((s) => s === 200).length;
    const ceiling = BURST + RATE * seconds + 2 * LEASE;
    console.log(
      `rate limit across 2 processes: ${allowed} of ${total} allowed in ${seconds.toFixed(2)} s (ceiling ${Math.floor(ceiling)})`,
    );
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(allowed).toBeLessThanOrEqual(ceiling);
    // Leased tokens left unspent in either process are at most one lease each.
    expect(allowed).toBeGreaterThanOrEqual(BURST - 2 * LEASE);
    // The 429 keeps the contract's shape.
    expect(limited).toBeDefined();
    expect((limited!.json as { error: { code: string; message: string } }).error.code).toBe('rate_limited');
    expect((limited!.json as { error: { message: string } }).error.message).toMatch(/account/);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited!.headers.get('ratelimit-limit')).toBe(String(BURST));
  });

  it('a tenant changed through one process is seen by the other on the very next request', async () => {
    const key = await createAccountViaCli(env);
    const created = await apiClient(a.url, key)('POST', '/api/v1/tenants', validTenant());
    expect(created.status).toBe(201);
    const id = (created.json as { id: string }).id;
    const read = async (server: ServerProc) => {
      const r = await apiClient(server.url, key)('GET', `/api/v1/tenants/${id}`);
      expect(r.status).toBe(200);
      return r.json as { razonSocial: string; emisor: { telefono: string | null } };
    };
    // Both processes busy with other reads of the same tenant meanwhile, so they keep it cached;
    // paced to ~100 a second together, under this account's limit (RATE), which the assertions'
    // own reads share: unpaced, a fast machine got 429s.
    let stop = false;
    const load = Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        while (!stop) {
          await read(i % 2 ? a : b);
          await new Promise((r) => setTimeout(r, 60));
        }
      }),
    );
    for (let round = 0; round < 20; round++) {
      const [via, other] = round % 2 ? [b, a] : [a, b];
      for (let i = 0; i < 2; i++) await Promise.all([read(a), read(b)]);
      const name = `Empresa ronda ${round} SpA`;
      const patched = await apiClient(via.url, key)('PATCH', `/api/v1/tenants/${id}`, {
        razonSocial: name,
        emisor: { telefono: `+56 2 2000 ${1000 + round}` },
      });
      expect(patched.status).toBe(200);
      const seen = await read(other);
      expect([seen.razonSocial, seen.emisor.telefono]).toEqual([name, `+56 2 2000 ${1000 + round}`]);
      expect((await read(via)).razonSocial).toBe(name);
    }
    stop = true;
    await load;
  });

  it('invalid keys from one address are limited across both processes', async () => {
    const bad = `sk_live_${'Q'.repeat(43)}`;
    const statuses: number[] = [];
    const started = performance.now();
    for (let i = 0; i < 160; i++) statuses.push((await get(i % 2 ? b : a, bad)).status);
    const seconds = (performance.now() - started) / 1000;
    const refused = statuses.filter((s) => s === 401).length;
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    // 100 failures at once and one a second, shared: with a budget per process all 160 would be 401s.
    expect(refused).toBeLessThanOrEqual(100 + Math.ceil(seconds) + 1);
    const limited = await get(a, bad);
    expect(limited.status).toBe(429);
    expect((limited.json as { error: { code: string } }).error.code).toBe('auth_rate_limited');
  });
});
