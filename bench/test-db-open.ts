/**
 * What a test database costs (docs/performance.md, "The test suite"): opens the main and the
 * secrets test databases as a test app does, waits `SLEEP` ms (the test), closes them; `ROUNDS`
 * rounds, the median of all but the first. PostgreSQL when TEST_DATABASE_URL is set, else PGlite.
 * Run: `TEST_DATABASE_URL=postgres://… node bench/test-db-open.ts`. Outside vitest there is no run
 * to clean up after: the spare copies it leaves are named `dte_test_<time>_none_…`.
 */
import { openTestDb } from '../test/support/db.ts';
import { SECRETS_MIGRATIONS } from '../src/secrets/secret-store.ts';

const backend = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';
const rounds = Number(process.env.ROUNDS ?? 12);
const sleep = Number(process.env.SLEEP ?? 300);
const since = (t: number) => performance.now() - t;
const all: Record<string, number[]> = { openMain: [], openSecrets: [], closeMain: [], closeSecrets: [] };
for (let i = 0; i < rounds; i++) {
  let t = performance.now();
  const main = await openTestDb(backend);
  all.openMain!.push(since(t));
  t = performance.now();
  const secrets = await openTestDb(backend, { migrationsDir: SECRETS_MIGRATIONS });
  all.openSecrets!.push(since(t));
  await new Promise((r) => setTimeout(r, sleep));
  t = performance.now();
  await main.close();
  all.closeMain!.push(since(t));
  t = performance.now();
  await secrets.close();
  all.closeSecrets!.push(since(t));
}
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
const result = Object.fromEntries(Object.entries(all).map(([k, v]) => [k, Math.round(median(v.slice(1)))]));
console.log(backend, `median ms of rounds 2..${rounds}:`, JSON.stringify(result));
