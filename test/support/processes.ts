import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { launch, until, type Proc } from './launch.ts';
import { freePort } from './ports.ts';
import { copyEmulatorDatabase, copyServerData } from './server-data.ts';

/**
 * Launches the real programs as separate processes for cross-process tests: the service
 * (`node src/main.ts`), the standalone emulator (`dte emulator`) and CLI commands. Each process
 * keeps its output for failure messages and can be stopped (SIGTERM) or killed (SIGKILL, a crash).
 * `scratchDatabase` gives each test its own PostgreSQL database (dropped at the end).
 */
export { freePort } from './ports.ts';
export { launch, ROOT, type Proc } from './launch.ts';

export interface EmulatorProc extends Proc {
  url: string;
  /** The emulator's SII public key (PEM file in its data directory). */
  siiPublicKey: string;
  dataDir: string;
}

/** `dte emulator --port 0 --data-dir D --json`; resolves once it prints where it listens. */
export async function startEmulatorProcess(
  opts: { dataDir?: string; delay?: string; env?: Record<string, string> } = {},
): Promise<EmulatorProc> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dte-emulator-'));
  // A folder of its own starts with the emulator's database migrated already (server-data.ts).
  if (!opts.dataDir) await copyEmulatorDatabase(dataDir);
  const p = launch(
    ['bin/dte.js', 'emulator', '--port', '0', '--data-dir', dataDir, '--delay', opts.delay ?? '300', '--json'],
    opts.env ?? {},
  );
  const info = await until(
    'emulator',
    p,
    async () => {
      const line = p
        .log()
        .split('\n')
        .find((l) => l.startsWith('{'));
      return line ? (JSON.parse(line) as { url: string; siiPublicKey: string }) : undefined;
    },
    30_000,
  );
  return { ...p, url: info.url, siiPublicKey: info.siiPublicKey, dataDir };
}

export interface ServerProc extends Proc {
  url: string;
  port: number;
  /** The settings it runs with (DATA_DIR, KEYS_DIR, …), for CLI commands against it. */
  env: Record<string, string>;
}

/** `node src/main.ts` with the given settings; resolves once it answers HTTP. */
const toRemove = new Set<string>();
const removeAtExit = (dir: string) => {
  if (toRemove.size === 0) process.once('exit', () => toRemove.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  toRemove.add(dir);
};

/**
 * The service (`node src/main.ts`) on a free port, with data and keys folders of its own. On the
 * embedded default those start as a copy of a first start's (server-data.ts), unless `fresh` or
 * the caller gives its own DATA_DIR. Folders made here are removed when this process exits (a test
 * may stop a server and start another on its folders).
 */
export async function startServer(env: Record<string, string>, args: string[] = [], opts: { fresh?: boolean } = {}): Promise<ServerProc> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-server-'));
  removeAtExit(dir);
  const fullEnv = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: path.join(dir, 'data'),
    KEYS_DIR: path.join(dir, 'keys'),
    ...env,
  };
  if (!opts.fresh && !env.DATA_DIR && !env.KEYS_DIR && !env.DATABASE_URL) await copyServerData(fullEnv.DATA_DIR, fullEnv.KEYS_DIR);
  const p = launch(['src/main.ts', ...args], fullEnv);
  const url = `http://127.0.0.1:${port}`;
  await until('server', p, async () => ((await fetch(`${url}/api/v1/openapi.json`)).ok ? true : undefined), 60_000);
  return { ...p, url, port, env: fullEnv };
}

/** Runs a CLI command (`node bin/dte.js …`) to completion and returns its output. */
export async function runCli(args: string[], env: Record<string, string>): Promise<string> {
  const p = launch(['bin/dte.js', ...args], env);
  const code = await p.exited;
  if (code !== 0) throw new Error(`dte ${args.join(' ')} exited ${code}:\n${p.log()}`);
  return p.log();
}

/** An account and its API key, made with `npx dte account create --json`. */
export async function createAccountViaCli(env: Record<string, string>): Promise<string> {
  const out = await runCli(['account', 'create', '--name', 'E2E SaaS', '--email', `e2e-${crypto.randomUUID()}@example.com`, '--json'], env);
  const line = out.split('\n').find((l) => l.startsWith('{'))!;
  return (JSON.parse(line) as { apiKey: string }).apiKey;
}

/** A database of its own on the TEST_DATABASE_URL server, with the keys the service requires. */
export async function scratchDatabase(): Promise<{ env: Record<string, string>; url: string; drop(): Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL!;
  const name = `e2e_${crypto.randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  const url = u.toString();
  const key = () => `k1:${crypto.randomBytes(32).toString('base64')}`;
  return {
    url,
    env: { DATABASE_URL: url, DATA_ENCRYPTION_KEY: key(), SECRETS_ENCRYPTION_KEY: key() },
    async drop() {
      const a = new pg.Client({ connectionString: base });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

/** JSON over HTTP with the API key, as a client of the running service would do it. */
export function apiClient(baseUrl: string, apiKey: string) {
  return async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(baseUrl + url, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body !== undefined && !(body instanceof FormData) ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: body instanceof FormData ? body : JSON.stringify(body) } : {}),
    });
    const buf = Buffer.from(await r.arrayBuffer());
    const text = buf.toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: r.status, json: json as Record<string, unknown> & { [k: string]: unknown }, body: buf, headers: r.headers };
  };
}

/** The deployed shape, for end-to-end tests: a scratch PostgreSQL database, the standalone emulator, the service and an account. */
export interface E2eStack {
  db: Awaited<ReturnType<typeof scratchDatabase>>;
  emu: EmulatorProc;
  server: ServerProc;
  /** The service's settings (PROVIDER=simpleapi pointing at the emulator, plus `env`). */
  env: Record<string, string>;
  api: ReturnType<typeof apiClient>;
  stop(): Promise<void>;
}

/** Starts the service on PostgreSQL with PROVIDER=simpleapi against a standalone emulator; `env` adds or overrides settings. */
export async function startE2eStack(
  opts: { emulatorDelay?: string; env?: Record<string, string>; emulatorEnv?: Record<string, string> } = {},
): Promise<E2eStack> {
  const db = await scratchDatabase();
  const emu = await startEmulatorProcess({ delay: opts.emulatorDelay ?? '300', ...(opts.emulatorEnv ? { env: opts.emulatorEnv } : {}) });
  const env = {
    ...db.env,
    PROVIDER: 'simpleapi',
    SIMPLEAPI_BASE_URL: emu.url,
    SIMPLEAPI_SERVICIOS_URL: emu.url,
    EMULATOR_SII_PUBLIC_KEY: emu.siiPublicKey,
    ...opts.env,
  };
  const server = await startServer(env);
  const api = apiClient(server.url, await createAccountViaCli(env));
  return {
    db,
    emu,
    server,
    env,
    api,
    async stop() {
      await server.stop();
      await emu.stop();
      await db.drop();
    },
  };
}
