/**
 * CPU profile of the server under the read benchmark's load (`node bench/profile-reads.ts
 * [pglite|postgres]`): the service runs with --cpu-prof, and the profile's self time is summed by
 * function and by package so the note can say what dominates. Profiles land in PROFILE_DIR.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { createAccount, freshPostgresUrl, startServer, UNLIMITED_RATES } from './lib/server.ts';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
}

export function summarise(file: string, top = 25) {
  const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: Node[] };
  const total = prof.nodes.reduce((s, n) => s + n.hitCount, 0);
  const byFn = new Map<string, number>();
  const byArea = new Map<string, number>();
  for (const n of prof.nodes) {
    const url = n.callFrame.url.replace(/^file:\/\//, '');
    const fn = `${n.callFrame.functionName || '(anonymous)'} ${path.basename(url)}:${n.callFrame.lineNumber + 1}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + n.hitCount);
    const area =
      /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ??
      (url.includes('/src/')
        ? `src/${url.split('/src/')[1]!.split('/').slice(0, 2).join('/')}`
        : url.startsWith('node:')
          ? 'node internals'
          : url || n.callFrame.functionName);
    byArea.set(area, (byArea.get(area) ?? 0) + n.hitCount);
  }
  const pct = (v: number) => `${((100 * v) / total).toFixed(1)}%`;
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
  return { byArea: sorted(byArea).map(([k, v]) => `${pct(v)} ${k}`), byFunction: sorted(byFn).map(([k, v]) => `${pct(v)} ${k}`) };
}

if (import.meta.main) {
  const backend = (process.argv[2] ?? 'postgres') as 'pglite' | 'postgres';
  const dir = process.env.PROFILE_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dte-prof-'));
  const pg =
    backend === 'postgres'
      ? await freshPostgresUrl(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test')
      : undefined;
  const env: Record<string, string> = { ...UNLIMITED_RATES, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}` };
  if (pg) {
    const crypto = await import('node:crypto');
    Object.assign(env, {
      DATABASE_URL: pg.url,
      DATA_ENCRYPTION_KEY: `k1:${crypto.randomBytes(32).toString('base64')}`,
      SECRETS_ENCRYPTION_KEY: `k1:${crypto.randomBytes(32).toString('base64')}`,
    });
  }
  const server = await startServer(env);
  try {
    const { apiKey } = await createAccount(server);
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const tenant = (await (
      await fetch(`${server.url}/api/v1/tenants`, {
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
      })
    ).json()) as { id: string };
    const r = await autocannon({
      url: `${server.url}/api/v1/tenants/${tenant.id}`,
      headers,
      connections: 32,
      duration: Number(process.env.BENCH_SECONDS ?? 8),
    });
    console.log(`${Math.round(r.requests.average)} req/s`);
  } finally {
    await server.stop();
    await pg?.drop();
  }
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f));
  // The server's profile is the largest (CLI commands also write one).
  const main = files.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0]!;
  console.log(main);
  console.dir(summarise(main), { depth: 3, maxArrayLength: 50 });
}
