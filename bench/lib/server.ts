/**
 * The service as a separate process for benchmarks (the same launcher the cross-process tests use),
 * with its peak memory (VmHWM) reported when stopped.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAccountViaCli, freePort, launch } from '../../test/support/processes.ts';

export { ROOT } from '../../test/support/processes.ts';

/** The benchmarks measure the service, not its rate limits: every key and account budget out of reach. */
export const UNLIMITED_RATES: Record<string, string> = {
  RATE_LIMIT_PER_SECOND: '1000000',
  RATE_LIMIT_BURST: '1000000',
  ACCOUNT_RATE_LIMIT_PER_SECOND: '1000000',
  ACCOUNT_RATE_LIMIT_BURST: '1000000',
  // The provider's limits (5 folio requests a minute per key) have a benchmark of their own (provider.ts).
  SIMPLEAPI_RATE_LIMITS: 'off',
};

export function readPeakRssMb(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a process has used so far, in microseconds (Linux /proc). */
export function readCpuMicros(pid: number): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // clock ticks of 1/100 s
  } catch {
    return undefined;
  }
}

export interface ServerHandle {
  url: string;
  pid: number;
  env: Record<string, string>;
  /** Stops the server and reports its peak resident memory (Linux VmHWM, MiB). */
  stop: () => Promise<{ peakRssMb: number | undefined }>;
}

/**
 * The service as its own process (the tests' launcher and settings), plus its peak memory when
 * stopped. It may take BENCH_START_SECONDS (default 300) to answer: a first start on PGlite
 * creates its database in a child process, which on a loaded machine takes longer than the tests'
 * minute. One that never answers is killed, not left running.
 */
export async function startServer(env: Record<string, string> = {}): Promise<ServerHandle> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-server-'));
  const fullEnv = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: path.join(dir, 'data'),
    KEYS_DIR: path.join(dir, 'keys'),
    ...env,
  };
  const p = launch(['src/main.ts'], fullEnv);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + Number(process.env.BENCH_START_SECONDS ?? 300) * 1000;
  for (;;) {
    if (p.proc.exitCode !== null || p.proc.signalCode !== null) throw new Error(`server exited early:\n${p.log()}`);
    if (
      await fetch(`${url}/api/v1/openapi.json`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) {
      await p.kill();
      throw new Error(`server not ready after ${process.env.BENCH_START_SECONDS ?? 300} s:\n${p.log()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const s = { url, pid: p.pid, env: fullEnv, stop: () => p.stop() };
  let peak: number | undefined;
  return {
    url: s.url,
    pid: s.pid,
    env: s.env,
    async stop() {
      peak ??= readPeakRssMb(s.pid); // VmHWM is the lifetime peak; read it before the process goes
      await s.stop();
      return { peakRssMb: peak };
    },
  };
}

export async function createAccount(server: ServerHandle): Promise<{ apiKey: string }> {
  return { apiKey: await createAccountViaCli(server.env) };
}

/** A fresh PostgreSQL schema for one benchmark or test run (search_path via the URL). */
export async function freshPostgresUrl(base: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const pg = (await import('pg')).default;
  const schema = `b_${Math.random().toString(36).slice(2, 10)}`;
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  await c.query(`create schema ${schema}`);
  await c.end();
  const u = new URL(base);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: u.toString(),
    async drop() {
      const d = new pg.Client({ connectionString: base });
      await d.connect();
      await d.query(`drop schema if exists ${schema} cascade`);
      await d.end();
    },
  };
}
