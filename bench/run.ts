/**
 * `npm run bench`: every benchmark in one run, a table on stdout, and the figures as JSON in
 * bench/results/<timestamp>.json (with the commit) so runs can be compared.
 *
 * BENCH_SECONDS sets the length of each timed run (default 10); BENCH_DATABASE_URL (or
 * TEST_DATABASE_URL) the PostgreSQL server to use (default postgres://postgres@127.0.0.1:5432/test);
 * with BENCH_SKIP_POSTGRES=1 only PGlite runs; BENCH_ONLY=reads,dte-http (names of the benchmarks:
 * engine, pdf, reads, dte-http, webhooks, provider) runs just those.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './lib/server.ts';
import { PGLITE_NODE_FLAGS } from '../src/db/pglite.ts';

type Row = { benchmark: string; backend: string; figure: string; p50: string; p99: string; peakRssMb: string };

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
process.env.BENCH_DATABASE_URL ??= process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const backends: ('pglite' | 'postgres')[] = process.env.BENCH_SKIP_POSTGRES ? ['pglite'] : ['pglite', 'postgres'];

const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : undefined;
const wanted = (name: string) => !only || only.has(name);

const fmt = (n: unknown, digits = 0) => (typeof n === 'number' && Number.isFinite(n) ? n.toFixed(digits) : '–');

async function main() {
  const rows: Row[] = [];
  const results: Record<string, unknown> = {};
  const commit = (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();

  console.log(
    `Benchmarks on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, commit ${commit}, ${seconds}s per run\n`,
  );

  if (wanted('engine')) {
    const { runEngineBench } = await import('./engine.ts');
    const engine = await runEngineBench({ seconds: Math.min(seconds, 5) });
    results.engine = engine;
    rows.push({
      benchmark: 'engine: DTE built+stamped+signed / s (1 core)',
      backend: '–',
      figure: `${engine.docsPerSecond} docs/s = ${(engine.ratio * 100).toFixed(0)}% of ${engine.rsaSignsPerSecond} RSA-2048 signs/s (CPU time, median of rounds)`,
      p50: '–',
      p99: '–',
      peakRssMb: '–',
    });
  }

  if (wanted('pdf')) {
    const { runPdfBench } = await import('./pdf.ts');
    const pdf = await runPdfBench({ seconds: Math.min(seconds, 3) });
    results.pdf = pdf;
    rows.push({
      benchmark: 'printed document: PDFs / s per core (XML read + PDF417 + layout)',
      backend: '–',
      figure: `${pdf.carta.pdfsPerSecond} carta (33 cedible), ${pdf.roll.pdfsPerSecond} 80 mm (39)`,
      p50: `${pdf.carta.meanMs} / ${pdf.roll.meanMs} ms`,
      p99: '–',
      peakRssMb: '–',
    });
  }

  const { runReadsBench } = await import('./reads.ts');
  for (const backend of wanted('reads') ? backends : []) {
    const r = await runReadsBench({ backend, seconds });
    ((results.reads ??= {}) as Record<string, unknown>)[backend] = r;
    rows.push({
      benchmark: 'authenticated GET /api/v1/tenants/{id} ÷ bare Fastify (same run, 32 connections)',
      backend,
      figure: `${r.requestsPerSecond} req/s ÷ ${r.bareRequestsPerSecond} req/s = ${r.ratio.toFixed(3)}; server CPU ${r.cpuMicrosPerRequest.authenticated} µs/req vs ${r.cpuMicrosPerRequest.bare}`,
      p50: `${r.p50Ms} ms`,
      p99: `${r.p99Ms} ms`,
      peakRssMb: fmt(r.peakRssMb),
    });
  }

  if (wanted('dte-http') && fs.existsSync(path.join(ROOT, 'bench/dte-http.ts'))) {
    const mod = (await import('./dte-http.ts')) as Record<string, (o: object) => Promise<Record<string, unknown>>>;
    for (const backend of backends) {
      const r = await mod.runDteHttpBench!({ backend, seconds });
      ((results.dteHttp ??= {}) as Record<string, unknown>)[backend] = r;
      rows.push({
        benchmark: 'DTE creation over HTTP (folio+XML+TED+signature)',
        backend,
        figure: `${fmt(r.documentsPerSecond, 1)} docs/s; CPU/doc: server ${fmt((r.cpuMicrosPerDoc as { server?: number } | undefined)?.server)} µs${
          backend === 'postgres' ? `, PostgreSQL ${fmt((r.cpuMicrosPerDoc as { postgres?: number } | undefined)?.postgres)} µs` : ''
        }`,
        p50: `${fmt(r.p50Ms)} ms`,
        p99: `${fmt(r.p99Ms)} ms`,
        peakRssMb: fmt(r.peakRssMb),
      });
    }
  }

  if (wanted('webhooks') && fs.existsSync(path.join(ROOT, 'bench/webhooks.ts'))) {
    // The service runs inside the benchmark's process here, so each backend gets a process of its
    // own, started the way `npm start` starts the service (PGLITE_NODE_FLAGS): its peak RSS is then
    // that run's own, not the sum of every benchmark before it in this process.
    for (const backend of backends) {
      const out = execFileSync(process.execPath, [...PGLITE_NODE_FLAGS, path.join(ROOT, 'bench/webhooks.ts')], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
        env: {
          ...process.env,
          BENCH_JSON: '1',
          BENCH_SECONDS: String(seconds),
          BENCH_SKIP_POSTGRES: backend === 'pglite' ? '1' : '',
          BENCH_SKIP_PGLITE: backend === 'postgres' ? '1' : '',
        },
      });
      const r = JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, number>;
      ((results.webhooks ??= {}) as Record<string, unknown>)[backend] = r;
      rows.push({
        benchmark: 'webhook deliveries (100 endpoints), commit→receipt (service in the bench process)',
        backend,
        figure: `${fmt(r.deliveriesPerSecond, 1)} deliveries/s`,
        p50: `${fmt(r.p50Ms)} ms`,
        p99: `${fmt(r.p99Ms)} ms`,
        peakRssMb: fmt(r.peakRssMb),
      });
    }
  }

  if (wanted('provider')) {
    const { runProviderBench } = await import('./provider.ts');
    const prov = await runProviderBench();
    results.provider = prov;
    rows.push({
      benchmark: `${prov.documents} facturas confirmed at SimpleAPI's limits (3/s, 40/min)`,
      backend: 'pglite',
      figure: `${prov.callsPer1000} provider calls per 1,000 docs (${prov.uploads} uploads, ${prov.envelopeQueries}+${prov.documentQueries} queries, ${prov.tooMany}×429); ${prov.confirmed} confirmed in ${prov.secondsToConfirm} s`,
      p50: '–',
      p99: '–',
      peakRssMb: '–',
    });
  }

  const cols: (keyof Row)[] = ['benchmark', 'backend', 'figure', 'p50', 'p99', 'peakRssMb'];
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => r[c].length)));
  const line = (r: Record<keyof Row, string>) => '| ' + cols.map((c, i) => r[c].padEnd(width[i]!)).join(' | ') + ' |';
  console.log(line({ benchmark: 'benchmark', backend: 'db', figure: 'result', p50: 'p50', p99: 'p99', peakRssMb: 'peak RSS MiB' }));
  console.log('|' + width.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const r of rows) console.log(line(r));

  const file = path.join(ROOT, 'bench/results', `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ commit, node: process.version, cpus: os.cpus().length, seconds, results, table: rows }, null, 2));
  console.log(`\nResults written to ${path.relative(ROOT, file)}`);
}

await main();
