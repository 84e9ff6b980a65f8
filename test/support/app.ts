import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../../src/config.ts';
import { createContext, type AppContext } from '../../src/context.ts';
import { buildApp } from '../../src/http/app.ts';
import { manualClock, systemClock, type Clock } from '../../src/lib/clock.ts';
import { openTestDb, type Backend, type TestDb } from './db.ts';
import { copyMigratedDatabase } from './server-data.ts';
import fs from 'node:fs';
import path from 'node:path';
import { randomInt } from 'node:crypto';
import { computeDv, formatRutDotted, type SiiKeys } from '../../src/dte/index.ts';
import type { PfxInspector } from '../../src/modules/credentials/pfx/isolated.ts';
import type { ApiKeyVerifier } from '../../src/provider/emulator/verify-api-key.ts';
import type { Provider } from '../../src/provider/port.ts';
import { generateKeySpec, parseKeyring } from '../../src/secrets/envelope.ts';
import type { Keyrings } from '../../src/secrets/keyring-files.ts';
import { SECRETS_MIGRATIONS } from '../../src/secrets/secret-store.ts';

/** Fresh random keyrings for both stores (the embedded key files are not used in tests). */
export const testKeyrings = (): Keyrings => ({
  data: { keyring: parseKeyring(generateKeySpec('t1')), file: undefined },
  secrets: { keyring: parseKeyring(generateKeySpec('s1')), file: undefined },
});

/** Test settings: everything the production parser accepts, with quiet, fast defaults. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: '/tmp/dte-test-unused',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    EMULATOR_DELAY: '0',
    DTE_POLL_INITIAL: '100ms',
    // Production's provider rate limits (1 folio request/s, 5/min per key) would make every suite
    // wait on them; they are on in the emulator's own tests and the end-to-end pacing test.
    SIMPLEAPI_RATE_LIMITS: 'off',
    // The security suites send hundreds of bad keys from one address; the limit has its own test.
    AUTH_FAILURE_RATE_LIMIT_BURST: '100000',
    ...env,
  });
}

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  tdb: TestDb;
  /** The separate secrets store's database. */
  sdb: TestDb;
  clock: Clock;
  /** Creates an account with a fresh API key; returns its id and the key. */
  account(name?: string): Promise<{ accountId: string; key: string }>;
  /** app.inject with the key as Bearer token and JSON bodies. */
  call(key: string | undefined, opts: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function startTestApp(
  backend: Backend,
  opts: {
    env?: Record<string, string>;
    clock?: Clock;
    manualClock?: boolean;
    provider?: ApiKeyVerifier | Partial<Provider>;
    pfxInspector?: PfxInspector;
    /** Keys CAF signatures must verify with, instead of the configured ones (the SII's and the emulator's). */
    cafKeys?: SiiKeys;
    keyrings?: Keyrings;
    /** PGlite on disk under this folder (main/ and secrets/, copies of migrated ones when absent) instead of in memory. */
    dataDir?: string;
    /** Fastify logger options (default: no logging). */
    logger?: boolean | object;
  } = {},
): Promise<TestApp> {
  // On disk, each database starts as a copy of a migrated one (server-data.ts), not created anew.
  const onDisk = async (sub: 'main' | 'secrets') => {
    if (!opts.dataDir || backend !== 'pglite') return {};
    const dir = path.join(opts.dataDir, sub);
    if (!fs.existsSync(dir)) await copyMigratedDatabase(sub, dir);
    return { dir };
  };
  const tdb = await openTestDb(backend, await onDisk('main'));
  const sdb = await openTestDb(backend, { migrationsDir: SECRETS_MIGRATIONS, ...(await onDisk('secrets')) });
  const config = testConfig(opts.env);
  const clock = opts.clock ?? (opts.manualClock ? manualClock() : systemClock);
  const ctx = createContext({
    config,
    db: tdb.db,
    clock,
    secretsDb: sdb.db,
    keyrings: opts.keyrings ?? testKeyrings(),
    ...(opts.provider ? { provider: opts.provider } : {}),
    ...(opts.pfxInspector ? { pfxInspector: opts.pfxInspector } : {}),
    ...(opts.cafKeys ? { cafKeys: opts.cafKeys } : {}),
  });
  const app = await buildApp(ctx, { logger: opts.logger ?? false });
  await app.ready();
  let n = 0;
  return {
    app,
    ctx,
    tdb,
    sdb,
    clock,
    async account(name = 'Test SaaS') {
      n++;
      const r = await ctx.services.accounts.create({
        name,
        email: `owner${n}-${Math.random().toString(36).slice(2)}@example.com`,
        withApiKey: true,
      });
      return { accountId: r.account.id, key: r.apiKey!.key };
    },
    call(key, o) {
      const headers: Record<string, string> = { ...(o.headers as Record<string, string>) };
      if (key) headers.authorization = `Bearer ${key}`;
      return app.inject({ ...o, headers });
    },
    async close() {
      await app.close();
      await tdb.close();
      await sdb.close();
    },
  };
}

/** A company RUT no other test tenant has: an account holds one tenant per RUT and environment. */
export function uniqueRut(): string {
  const body = 50_000_000 + randomInt(49_000_000);
  return formatRutDotted(`${body}-${computeDv(body)}`);
}

export const validTenant = (over: Record<string, unknown> = {}) => ({
  rutEmpresa: uniqueRut(),
  razonSocial: 'Servicios Ejemplo SpA',
  giro: 'Desarrollo de software',
  direccion: 'Av. Providencia 1234',
  comuna: 'Providencia',
  ciudad: 'Santiago',
  numeroResolucion: 80,
  fechaResolucion: '2014-08-22',
  ...over,
});
