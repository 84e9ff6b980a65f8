/**
 * Statements and CPU time per created DTE, in one process (docs/performance.md, "Fourth round:
 * PGlite creation"): the app with its background worker on PGlite in memory (or PostgreSQL with
 * TEST_DATABASE_URL and BENCH_BACKEND=postgres), `BENCH_DOCS` creates (default 2,000) sent through
 * `app.inject` with `BENCH_CONNECTIONS` in flight (default 16), the bench's factura. It counts every
 * statement the app's main database runs (inside transactions too, and the transactions) and the
 * process's CPU time (user + system) over the creates. In-process and without sockets, so its CPU
 * figure is lower than the HTTP benchmark's, and steadier on a shared machine: other processes slow
 * it but add little CPU to it.
 *
 *   node bench/dte-statements.ts
 */
import type { Db, Sql } from '../src/db/types.ts';
import type { Backend } from '../test/support/db.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp } from '../test/support/issuing.ts';
import { UNLIMITED_RATES } from './lib/server.ts';

const backend = (process.env.BENCH_BACKEND ?? 'pglite') as Backend;
const docs = Number(process.env.BENCH_DOCS ?? 2000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);

// The API's rate limits would answer most of these creates 429 (they are per key and per account).
const t = await startIssuingApp(backend, { env: UNLIMITED_RATES });
try {
  const { key } = await t.account();
  const tenantId = await readyTenant(t, key);
  for (let i = 0; i < Math.ceil((docs + connections) / 1000); i++) await requestFolios(t, key, tenantId, 33, 1000);

  // Count through the context's own Db object: every service holds this object and calls its methods.
  const counts = new Map<string, number>();
  const count = (text: string) => counts.set(text, (counts.get(text) ?? 0) + 1);
  const db = t.ctx.db as { -readonly [K in keyof Db]: Db[K] };
  const query = db.query.bind(db);
  const transaction = db.transaction.bind(db);
  db.query = ((text: string, params?: readonly unknown[]) => (count(text), query(text, params))) as Db['query'];
  db.transaction = (<T>(fn: (tx: Sql) => Promise<T>) => {
    count('(transaction)');
    return transaction((tx) =>
      fn({ query: ((text: string, params?: readonly unknown[]) => (count(text), tx.query(text, params))) as Sql['query'] }),
    );
  }) as Db['transaction'];

  const payload = dteBody(33);
  const warm = 50;
  let sent = 0;
  let failed = 0;
  const worker = async (limit: number) => {
    while (sent < limit) {
      sent++;
      const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload });
      if (r.statusCode !== 201 && failed++ === 0) console.error(r.statusCode, r.body);
    }
  };
  await Promise.all(Array.from({ length: connections }, () => worker(warm)));
  counts.clear();
  sent = 0;
  const before = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, () => worker(docs)));
  const cpu = process.cpuUsage(before);
  const seconds = (performance.now() - started) / 1000;
  const total = [...counts.values()].reduce((s, n) => s + n, 0);
  const top = [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([text, n]) => `${(n / docs).toFixed(3)}  ${text.replace(/\s+/g, ' ').slice(0, 110)}`);
  console.log(
    JSON.stringify({
      backend,
      docs,
      connections,
      failed,
      statementsPerDoc: Math.round((total / docs) * 1000) / 1000,
      cpuMicrosPerDoc: Math.round((cpu.user + cpu.system) / docs),
      docsPerSecond: Math.round(docs / seconds),
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );
  console.log(top.join('\n'));
} finally {
  await t.close();
}
