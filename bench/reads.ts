/**
 * Authenticated-read throughput: GET /api/v1/tenants/{id} with an API key, measured with
 * autocannon (a real HTTP load generator, in a process of its own: bench/lib/load.ts) against the
 * service running as its own process, and in
 * the same run, with the same settings, a bare Fastify route (bench/lib/bare-fastify.ts): the
 * figure is the ratio of the two, which the machine's noise affects far less than either number.
 * BENCH_ROUNDS (default 3) alternating rounds share the BENCH_SECONDS; the median ratio is reported.
 *
 * On PostgreSQL the run also counts the work the database did per request (transactions and rows
 * written, from pg_stat_database and pg_stat_user_tables), which shows what each request costs
 * without needing pg_stat_statements preloaded.
 */
import pg from 'pg';
import { startBareFastify } from './lib/bare-fastify.ts';
import { runLoad, type LoadResult } from './lib/load.ts';
import { createAccount, freshPostgresUrl, readCpuMicros, startServer, UNLIMITED_RATES } from './lib/server.ts';

export interface ReadsResult {
  backend: 'pglite' | 'postgres';
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  peakRssMb: number | undefined;
  /** The bare Fastify route in the same run, same autocannon settings. */
  bareRequestsPerSecond: number;
  /** The median of the rounds' authenticated ÷ bare (requestsPerSecond and bareRequestsPerSecond are that round's). */
  ratio: number;
  rounds: { bare: number; authenticated: number; ratio: number }[];
  /** CPU time of each server process per request, in the median round (the service's includes its PGlite). */
  cpuMicrosPerRequest: { bare: number; authenticated: number };
  /** PostgreSQL only: per request, transactions committed and rows inserted+updated in the schema. */
  perRequest?: { transactions: number; rowsWritten: number; tables: Record<string, { written: number; scans: number }> };
}

// autocannon in a process of its own (bench/lib/load.ts), like the service and the bare route.
const load = (url: string, headers: Record<string, string>, connections: number, seconds: number) =>
  runLoad({ url, headers, connections, duration: seconds });

async function dbCounters(base: string, schema: string) {
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    const db = await c.query<{ xact_commit: string }>('select xact_commit from pg_stat_database where datname = current_database()');
    const t = await c.query<{ relname: string; w: string; s: string }>(
      `select relname, (n_tup_ins + n_tup_upd + n_tup_del)::text as w, (coalesce(idx_scan, 0) + seq_scan)::text as s
       from pg_stat_user_tables where schemaname = $1`,
      [schema],
    );
    return {
      commits: Number(db.rows[0]!.xact_commit),
      tables: new Map(t.rows.map((r) => [r.relname, { w: Number(r.w), s: Number(r.s) }])),
    };
  } finally {
    await c.end();
  }
}

export async function runReadsBench(opts: {
  backend: 'pglite' | 'postgres';
  seconds?: number;
  connections?: number;
}): Promise<ReadsResult> {
  const base = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const pgUrl = opts.backend === 'postgres' ? await freshPostgresUrl(base) : undefined;
  const connections = opts.connections ?? 32;
  const seconds = opts.seconds ?? 10;
  const env: Record<string, string> = { ...UNLIMITED_RATES };
  if (pgUrl) {
    env.DATABASE_URL = pgUrl.url;
    const crypto = await import('node:crypto');
    env.DATA_ENCRYPTION_KEY = `k1:${crypto.randomBytes(32).toString('base64')}`;
    env.SECRETS_ENCRYPTION_KEY = `k1:${crypto.randomBytes(32).toString('base64')}`;
  }
  const bare = await startBareFastify();
  const server = await startServer(env);
  try {
    const { apiKey } = await createAccount(server);
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const created = await fetch(`${server.url}/api/v1/tenants`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        rutEmpresa: '76.192.083-9',
        razonSocial: 'Bench SpA',
        giro: 'Software',
        direccion: 'Calle 1',
        comuna: 'Santiago',
        ciudad: 'Santiago',
        numeroResolucion: 0,
        fechaResolucion: '2020-01-01',
      }),
    });
    const tenant = (await created.json()) as { id: string };
    const url = `${server.url}/api/v1/tenants/${tenant.id}`;
    // Warm both (JIT, connection pools, caches) before the timed runs.
    await load(bare.url, {}, connections, 1);
    await load(url, headers, connections, 1);
    // Alternating rounds, so that both sides of each ratio see the same load from the rest of the
    // machine; the figure is the median of the rounds' ratios.
    const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
    const slice = Math.max(2, Math.round(seconds / rounds));
    const schema = pgUrl ? new URL(pgUrl.url).searchParams.get('options')!.split('=')[1]! : '';
    const pairs: {
      bare: LoadResult;
      auth: LoadResult;
      ratio: number;
      bareCpuUsPerRequest: number;
      serverCpuUsPerRequest: number;
    }[] = [];
    let before: Awaited<ReturnType<typeof dbCounters>> | undefined;
    let after: typeof before;
    let total = 0;
    for (let i = 0; i < rounds; i++) {
      const bareCpu = readCpuMicros(bare.pid);
      const bareResult = await load(bare.url, {}, connections, slice);
      const bareCpuUs = (readCpuMicros(bare.pid) ?? NaN) - (bareCpu ?? NaN);
      const b = pgUrl ? await dbCounters(base, schema) : undefined;
      const serverCpu = readCpuMicros(server.pid);
      const auth = await load(url, headers, connections, slice);
      const serverCpuUs = (readCpuMicros(server.pid) ?? NaN) - (serverCpu ?? NaN);
      if (pgUrl) {
        await new Promise((r) => setTimeout(r, 700)); // the statistics collector reports every 500 ms
        const a = await dbCounters(base, schema);
        if (i === 0) before = b;
        after = a;
      }
      total += auth.requests.total;
      pairs.push({
        bare: bareResult,
        auth,
        ratio: auth.requests.average / Math.max(1, bareResult.requests.average),
        bareCpuUsPerRequest: bareCpuUs / Math.max(1, bareResult.requests.total),
        serverCpuUsPerRequest: serverCpuUs / Math.max(1, auth.requests.total),
      });
    }
    await bare.stop();
    let perRequest: ReadsResult['perRequest'];
    if (before && after) {
      const n = Math.max(1, total);
      const tables: Record<string, { written: number; scans: number }> = {};
      let rows = 0;
      for (const [name, a] of after.tables) {
        const b = before.tables.get(name) ?? { w: 0, s: 0 };
        const w = a.w - b.w;
        const s = a.s - b.s;
        rows += w;
        if (w || s) tables[name] = { written: +(w / n).toFixed(3), scans: +(s / n).toFixed(3) };
      }
      // Commits are database-wide (other clients, the bare rounds' counter reads): an upper bound.
      perRequest = { transactions: +((after.commits - before.commits) / n).toFixed(2), rowsWritten: +(rows / n).toFixed(3), tables };
    }
    const median = [...pairs].sort((x, y) => x.ratio - y.ratio)[Math.floor(pairs.length / 2)]!;
    const result = median.auth;
    const { peakRssMb } = await server.stop();
    const requestsPerSecond = Math.round(median.auth.requests.average);
    const bareRequestsPerSecond = Math.round(median.bare.requests.average);
    return {
      backend: opts.backend,
      requestsPerSecond,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      errors: result.errors,
      non2xx: result.non2xx,
      peakRssMb,
      bareRequestsPerSecond,
      ratio: +median.ratio.toFixed(3),
      // The servers' own CPU per request (user + system, from /proc): what the load on the rest of
      // the machine does not change, unlike the rates.
      cpuMicrosPerRequest: {
        bare: Math.round(median.bareCpuUsPerRequest),
        authenticated: Math.round(median.serverCpuUsPerRequest),
      },
      rounds: pairs.map((p) => ({
        bare: Math.round(p.bare.requests.average),
        authenticated: Math.round(p.auth.requests.average),
        ratio: +p.ratio.toFixed(3),
      })),
      ...(perRequest ? { perRequest } : {}),
    };
  } finally {
    await bare.stop().catch(() => {});
    await server.stop().catch(() => {});
    await pgUrl?.drop();
  }
}

if (import.meta.main) {
  const backends = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',') as ('pglite' | 'postgres')[];
  for (const backend of backends)
    console.dir(await runReadsBench({ backend, seconds: Number(process.env.BENCH_SECONDS ?? 10) }), { depth: 5 });
}
