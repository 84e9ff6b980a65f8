import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { openDatabase } from '../../db/open.ts';
import type { Db } from '../../db/types.ts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import { PRODUCTION_RATE_LIMITS, type RateLimits } from '../simpleapi/protocol.ts';
import type { CafLayout } from './caf-layout.ts';
import { createEmulatorCore, type EmulatorCore } from './emulator.ts';
import { schemaValidatorFrom } from './schemas.ts';
import { buildEmulatorServer } from './server.ts';
import { ephemeralSiiKey, loadOrCreateSiiKey, type EmulatorSiiKey } from './sii-key.ts';
import { EMULATOR_MIGRATIONS } from './store.ts';
import {
  createServerCertificate,
  httpsServerFactory,
  loadOrCreateServerCertificate,
  TLS_CERT_FILE,
  type ServerCertificate,
} from './tls.ts';

/**
 * The emulator as its own server (`npx dte emulator --port P [--data-dir D] [--tls]`). With a data
 * directory its records (CAFs issued, folios received, envelopes and their verdicts, rate-limit
 * windows) live in a PGlite database there and its SII key beside it, so they survive a restart;
 * without one, everything is in memory. It enforces SimpleAPI's production rate limits unless told
 * otherwise (`rateLimits`, null = off).
 */
export interface StandaloneOptions {
  port: number;
  host?: string;
  dataDir?: string | undefined;
  processingDelayMs: number;
  slowMs?: number;
  schemaDir?: string | undefined;
  clock?: Clock;
  logger?: boolean;
  /** Default: PRODUCTION_RATE_LIMITS; null: off. */
  rateLimits?: RateLimits | null;
  serviciosDelayMs?: number;
  cafLayout?: CafLayout;
  /**
   * Serve HTTPS with a self-signed certificate for 127.0.0.1, localhost and `host` (tls.ts): every
   * route on one https origin, and the SII's web login can read the caller's certificate (the CAF
   * forms). The certificate is kept in the data directory, or a temporary one without it.
   */
  tls?: boolean;
}

export interface StandaloneEmulator {
  url: string;
  port: number;
  siiKey: EmulatorSiiKey;
  app: FastifyInstance;
  db: Db;
  core: EmulatorCore;
  /** With `tls`: the server certificate's PEM file, for clients to trust (e.g. NODE_EXTRA_CA_CERTS). */
  tlsCertPath?: string | undefined;
  close(): Promise<void>;
}

/** The server certificate: kept in the data directory, or new in a temporary one (removed on close). */
function serverCertificate(dir: string | undefined, host: string): ServerCertificate & { tmpDir?: string } {
  if (dir) return loadOrCreateServerCertificate(dir);
  const c = createServerCertificate([...new Set(['127.0.0.1', 'localhost', host])]);
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-emulator-tls-'));
  const certPath = path.join(tmpDir, TLS_CERT_FILE);
  fs.writeFileSync(certPath, c.certPem);
  return { ...c, certPath, tmpDir };
}

export async function startStandaloneEmulator(opts: StandaloneOptions): Promise<StandaloneEmulator> {
  const dir = opts.dataDir ? path.resolve(opts.dataDir) : undefined;
  const db = await openDatabase({ dir: dir ? path.join(dir, 'db') : undefined, migrationsDir: EMULATOR_MIGRATIONS });
  try {
    const siiKey = dir ? loadOrCreateSiiKey(dir) : ephemeralSiiKey();
    const core = createEmulatorCore({
      db,
      clock: opts.clock ?? systemClock,
      siiKey,
      processingDelayMs: opts.processingDelayMs,
      ...(opts.slowMs !== undefined ? { slowMs: opts.slowMs } : {}),
      schemaValidator: schemaValidatorFrom(opts.schemaDir),
      rateLimits: opts.rateLimits === undefined ? PRODUCTION_RATE_LIMITS : opts.rateLimits,
      ...(opts.serviciosDelayMs !== undefined ? { serviciosDelayMs: opts.serviciosDelayMs } : {}),
      ...(opts.cafLayout ? { cafLayout: opts.cafLayout } : {}),
    });
    const host = opts.host ?? '127.0.0.1';
    const cert = opts.tls ? serverCertificate(dir, host) : undefined;
    const app = await buildEmulatorServer(core, {
      logger: opts.logger ?? false,
      ...(cert ? { serverFactory: httpsServerFactory(cert) } : {}),
    });
    await app.listen({ port: opts.port, host });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : opts.port;
    return {
      url: `${cert ? 'https' : 'http'}://${host}:${port}`,
      port,
      siiKey,
      app,
      db,
      core,
      tlsCertPath: cert?.certPath,
      async close() {
        await app.close();
        await db.close();
        if (cert?.tmpDir) fs.rmSync(cert.tmpDir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await db.close();
    throw e;
  }
}
