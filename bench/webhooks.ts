/**
 * Webhook delivery: throughput (deliveries/s) to local receivers across 100 endpoints, and
 * commit-to-receipt latency (p50/p99) at a load below capacity, on PGlite and PostgreSQL.
 *
 * The pipeline is the real one — outbox rows committed by emitEvent, the dispatcher, the leased
 * delivery worker with the shipped settings (64 attempts in flight, 4 per endpoint, woken by each
 * commit, 1 s backstop poll),
 * signed HTTP POSTs over loopback — running in this process next to the receivers, which check
 * every signature. Latency is measured from the commit of the event to the receiver having read the
 * request body, so it includes the wake-up, the dispatch and the claim.
 *
 *   node bench/webhooks.ts            (BENCH_SECONDS, BENCH_DATABASE_URL, BENCH_SKIP_POSTGRES, BENCH_SKIP_PGLITE)
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/open.ts';
import type { Db, Sql } from '../src/db/types.ts';
import { emitEvent } from '../src/events/outbox.ts';
import { systemClock } from '../src/lib/clock.ts';
import { createDeliveryWorker, createWebhooksService } from '../src/modules/webhooks/index.ts';
import { createEnvelope, generateKeySpec, parseKeyring } from '../src/secrets/envelope.ts';
import { freshPostgresUrl, readPeakRssMb } from './lib/server.ts';

export type WebhookBenchResult = {
  backend: 'pglite' | 'postgres';
  endpoints: number;
  /** Throughput phase: backlogged events, each fanned out to every endpoint. */
  deliveries: number;
  deliveriesPerSecond: number;
  /** Latency phase: one event every `latencyIntervalMs`, below capacity. */
  latencyDeliveries: number;
  latencyOfferedPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Requests whose signature did not verify (must be 0). */
  badSignatures: number;
  duplicates: number;
  peakRssMb: number | undefined;
  /**
   * Throughput phase, per delivery: statements sent to the database by this process (each
   * transaction counts its BEGIN and COMMIT too), and this process's CPU time (µs, user + system;
   * the receivers run here as well, so it includes their share).
   */
  statementsPerDelivery: number;
  cpuMicrosPerDelivery: number;
  /** PostgreSQL only: rows written (inserted + updated + deleted) per delivery in the bench's schema. */
  rowsWrittenPerDelivery?: number;
  /** PostgreSQL only: CPU time of the server's backends serving this process, per delivery (µs; /proc, 10 ms ticks). */
  postgresCpuMicrosPerDelivery?: number;
  /** Whole run: the statements this process spent the most time waiting on (count, total ms). */
  slowestStatements?: Record<string, { n: number; ms: number }>;
};

/** Counts the statements the pipeline sends through the Db seam (transactions: BEGIN + body + COMMIT). */
function countingDb(db: Db): { db: Db; count: () => number; timings: () => Record<string, { n: number; ms: number }> } {
  let n = 0;
  const timings = new Map<string, { n: number; ms: number }>();
  const wrapSql = (s: Sql): Sql => ({
    query: async (text, params) => {
      n++;
      const key = text
        .replace(/\s+/g, ' ')
        .replace(/^with s as \(.*?\) as off\),/, '')
        .trim()
        .slice(0, 40);
      const t = performance.now();
      try {
        return await s.query(text, params);
      } finally {
        const e = timings.get(key) ?? { n: 0, ms: 0 };
        e.n++;
        e.ms += performance.now() - t;
        timings.set(key, e);
      }
    },
  });
  const counted: Db = {
    kind: db.kind,
    query: wrapSql(db).query,
    transaction: (fn) => {
      n += 2;
      return db.transaction((tx) => fn(wrapSql(tx)));
    },
    close: () => db.close(),
    ...(db.listen ? { listen: db.listen.bind(db) } : {}),
  };
  return {
    db: counted,
    count: () => n,
    timings: () =>
      Object.fromEntries(
        [...timings]
          .sort((a, b) => b[1].ms - a[1].ms)
          .slice(0, 6)
          .map(([k, v]) => [k, { n: v.n, ms: Math.round(v.ms) }]),
      ),
  };
}

/**
 * CPU time (ms) the PostgreSQL backends serving this process have used so far, read from /proc
 * (the server runs on this machine): the pool's connections (application_name `appName`) and the
 * worker's LISTEN connection. Backends that have exited are not counted, so read it before closing.
 */
async function backendCpuMs(base: string, appName: string): Promise<number> {
  const pg = (await import('pg')).default;
  const fs = await import('node:fs');
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    const r = await c.query<{ pid: number }>(`select pid from pg_stat_activity where application_name = $1 or application_name = $2`, [
      appName,
      `dte-webhooks:${process.pid}`,
    ]);
    let ticks = 0;
    for (const { pid } of r.rows) {
      try {
        const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        ticks += Number(f[11]) + Number(f[12]); // utime, stime (fields 14 and 15)
      } catch {
        // gone meanwhile
      }
    }
    return ticks * 10; // USER_HZ = 100
  } finally {
    await c.end();
  }
}

async function rowsWritten(base: string, url: string | undefined): Promise<number> {
  if (!url) return 0;
  const schema = /search_path%3D(\w+)|search_path=(\w+)/.exec(url);
  const name = schema?.[1] ?? schema?.[2];
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    // Statistics reach the views when each backend reports them (at most about 1 s late).
    await c.query('select pg_stat_clear_snapshot()');
    const r = await c.query<{ w: string }>(
      'select coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::text as w from pg_stat_user_tables where schemaname = $1',
      [name],
    );
    return Number(r.rows[0]!.w);
  } finally {
    await c.end();
  }
}

const ENDPOINTS = 100;
const RECEIVERS = 4;

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** Receivers that verify the contract signature and note when each (message, endpoint) arrived. */
async function startReceivers(secrets: Map<string, string>) {
  const arrivals = new Map<string, number>(); // `${webhookId} ${path}` → ms
  let badSignatures = 0;
  let duplicates = 0;
  let notify: (() => void) | undefined;
  const servers = await Promise.all(
    Array.from({ length: RECEIVERS }, async () => {
      const s = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const at = performance.now();
          const body = Buffer.concat(chunks);
          const secret = secrets.get(req.url ?? '') ?? '';
          const expected = crypto.createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('base64');
          const given = String(req.headers['webhook-signature'] ?? '');
          if (given.length !== expected.length || !crypto.timingSafeEqual(Buffer.from(given), Buffer.from(expected))) badSignatures++;
          const key = `${String(req.headers['webhook-id'])} ${req.url}`;
          if (arrivals.has(key)) duplicates++;
          else arrivals.set(key, at);
          res.writeHead(204).end();
          notify?.();
        });
      });
      await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
      return s;
    }),
  );
  return {
    ports: servers.map((s) => (s.address() as AddressInfo).port),
    arrivals,
    stats: () => ({ badSignatures, duplicates }),
    /** Resolves when `n` distinct deliveries have arrived. */
    async waitFor(n: number, timeoutMs: number) {
      const deadline = Date.now() + timeoutMs;
      while (arrivals.size < n) {
        if (Date.now() > deadline) throw new Error(`only ${arrivals.size} of ${n} deliveries arrived in ${timeoutMs} ms`);
        await new Promise<void>((r) => {
          notify = r;
          setTimeout(r, 50);
        });
      }
    },
    async close() {
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    },
  };
}

const withAppName = (url: string, name: string) => {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
};

/** Waits until `n` deliveries have left 'pending' (their outcomes are written). */
async function waitForRecorded(db: Db, n: number) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const r = await db.query<{ n: number }>("select count(*)::int as n from webhook_deliveries where status <> 'pending'");
    if (r.rows[0]!.n >= n) return;
    await new Promise((res) => setTimeout(res, 20));
  }
}

export async function runWebhookBench(opts: { backend?: 'pglite' | 'postgres'; seconds?: number } = {}): Promise<WebhookBenchResult> {
  const seconds = opts.seconds ?? 10;
  const backend = opts.backend ?? 'pglite';
  const pgUrl =
    backend === 'postgres'
      ? await freshPostgresUrl(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test')
      : undefined;
  const baseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const appName = `bench-webhooks-${process.pid}`;
  const raw = await openDatabase(pgUrl ? { url: withAppName(pgUrl.url, appName), poolMax: 20 } : {});
  const counting = countingDb(raw);
  const db: Db = counting.db;
  const config = loadConfig({
    NODE_ENV: 'production',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // The shipped default unless the run asks for another (WEBHOOK_CONCURRENCY=64 node bench/webhooks.ts).
    ...(process.env.WEBHOOK_CONCURRENCY ? { WEBHOOK_CONCURRENCY: process.env.WEBHOOK_CONCURRENCY } : {}),
    DATA_DIR: '/tmp/dte-bench-unused',
    DATABASE_URL: '',
    DATA_ENCRYPTION_KEY: '',
    SECRETS_ENCRYPTION_KEY: '',
  });
  const cipher = createEnvelope(parseKeyring(generateKeySpec()));
  const service = createWebhooksService({ db, clock: systemClock, cipher, settings: config.webhooks });
  const accountId = crypto.randomUUID();
  await db.query(`insert into accounts (id, name, email, created_at, updated_at) values ($1, 'Bench', $2, now(), now())`, [
    accountId,
    `${accountId}@example.com`,
  ]);
  const secrets = new Map<string, string>();
  const receivers = await startReceivers(secrets);
  for (let i = 0; i < ENDPOINTS; i++) {
    const path = `/e/${i}`;
    const ep = await service.createEndpoint(accountId, { url: `http://127.0.0.1:${receivers.ports[i % RECEIVERS]}${path}` });
    secrets.set(path, ep.secret);
  }
  const worker = createDeliveryWorker({ db, clock: systemClock, cipher, settings: config.webhooks });
  worker.start();
  const emit = async (n: number) => {
    const committed: { id: string; at: number }[] = [];
    for (let i = 0; i < n; i++) {
      const e = await db.transaction((tx) =>
        emitEvent(tx, {
          accountId,
          type: 'folio.low',
          data: { tenantId: accountId, tipoDte: 33, disponibles: i, lowThreshold: 10 },
          now: new Date(),
        }),
      );
      committed.push({ id: e.id, at: performance.now() });
    }
    return committed;
  };

  try {
    // Warm-up: connections, JIT, caches.
    await emit(2);
    await receivers.waitFor(2 * ENDPOINTS, 60_000);

    // Throughput: a backlog of events, drained as fast as the worker can.
    const throughputMs = (seconds * 1000) / 2;
    let delivered = 0;
    const statements0 = counting.count();
    const written0 = await rowsWritten(baseUrl, pgUrl?.url);
    const dbCpu0 = pgUrl ? await backendCpuMs(baseUrl, appName) : 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    while (performance.now() - t0 < throughputMs) {
      const before = receivers.arrivals.size;
      await emit(20);
      await receivers.waitFor(before + 20 * ENDPOINTS, 120_000);
      delivered += 20 * ENDPOINTS;
    }
    const deliveriesPerSecond = delivered / ((performance.now() - t0) / 1000);
    const cpu = process.cpuUsage(cpu0);
    // Let the last outcomes be recorded before counting what the throughput phase cost.
    await waitForRecorded(raw, 2 * ENDPOINTS + delivered);
    const statements = counting.count() - statements0;
    const dbCpu = pgUrl ? (await backendCpuMs(baseUrl, appName)) - dbCpu0 : 0;
    await new Promise((r) => setTimeout(r, pgUrl ? 1500 : 0));
    const written = (await rowsWritten(baseUrl, pgUrl?.url)) - written0;

    // Latency: one event (100 deliveries) every interval, offered at about a third of the measured capacity.
    const intervalMs = Math.max(20, Math.round((ENDPOINTS / (deliveriesPerSecond / 3)) * 1000));
    const events: { id: string; at: number }[] = [];
    const t1 = performance.now();
    while (performance.now() - t1 < (seconds * 1000) / 2) {
      events.push(...(await emit(1)));
      await new Promise((r) => setTimeout(r, intervalMs));
    }
    const paths = [...secrets.keys()];
    const expected = receivers.arrivals.size + 0;
    await receivers.waitFor(expected, 60_000);
    await receivers.waitFor(2 * ENDPOINTS + delivered + events.length * ENDPOINTS, 120_000);
    const latencies: number[] = [];
    for (const e of events)
      for (const p of paths) {
        const got = receivers.arrivals.get(`${e.id} ${p}`);
        if (got !== undefined) latencies.push(got - e.at);
      }
    latencies.sort((a, b) => a - b);
    const { badSignatures, duplicates } = receivers.stats();
    return {
      backend,
      endpoints: ENDPOINTS,
      deliveries: delivered,
      deliveriesPerSecond: Math.round(deliveriesPerSecond * 10) / 10,
      latencyDeliveries: latencies.length,
      latencyOfferedPerSecond: Math.round(ENDPOINTS / (intervalMs / 1000)),
      p50Ms: Math.round(pct(latencies, 50)),
      p99Ms: Math.round(pct(latencies, 99)),
      maxMs: Math.round(latencies.at(-1) ?? NaN),
      badSignatures,
      duplicates,
      peakRssMb: readPeakRssMb(process.pid),
      statementsPerDelivery: Math.round((statements / delivered) * 100) / 100,
      cpuMicrosPerDelivery: Math.round((cpu.user + cpu.system) / delivered),
      ...(process.env.BENCH_STATEMENT_TIMES ? { slowestStatements: counting.timings() } : {}),
      ...(pgUrl
        ? {
            rowsWrittenPerDelivery: Math.round((written / delivered) * 100) / 100,
            postgresCpuMicrosPerDelivery: Math.round((dbCpu * 1000) / delivered),
          }
        : {}),
    };
  } finally {
    await worker.stop();
    await receivers.close();
    await db.close();
    await pgUrl?.drop();
  }
}

if (import.meta.main) {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const backends = (['pglite', 'postgres'] as const).filter(
    (b) => !(b === 'postgres' && process.env.BENCH_SKIP_POSTGRES) && !(b === 'pglite' && process.env.BENCH_SKIP_PGLITE),
  );
  for (const backend of backends) {
    const r = await runWebhookBench({ backend, seconds });
    // BENCH_JSON=1: one JSON line per backend, for bench/run.ts (which runs each backend in its own process).
    console.log(process.env.BENCH_JSON ? JSON.stringify(r) : r);
  }
}
