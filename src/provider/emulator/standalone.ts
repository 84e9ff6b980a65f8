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

/**
 * The emulator as its own server (`npx dte emulator --port P [--data-dir D]`). With a data
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
}

export interface StandaloneEmulator {
  url: string;
  port: number;
  siiKey: EmulatorSiiKey;
  app: FastifyInstance;
  db: Db;
  core: EmulatorCore;
  close(): Promise<void>;
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
    const app = await buildEmulatorServer(core, { logger: opts.logger ?? false });
    const host = opts.host ?? '127.0.0.1';
    await app.listen({ port: opts.port, host });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : opts.port;
    return {
      url: `http://${host}:${port}`,
      port,
      siiKey,
      app,
      db,
      core,
      async close() {
        await app.close();
        await db.close();
      },
    };
  } catch (e) {
    await db.close();
    throw e;
  }
}
