import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/open.ts';
import type { Db } from '../../src/db/types.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { createWebhooksService, type WebhooksService } from '../../src/modules/webhooks/index.ts';
import { launch, type Proc } from './processes.ts';
import { testCipher } from './webhooks.ts';

/**
 * The real service as a separate worker process (`node src/main.ts --role worker`), for tests that
 * kill it with SIGKILL at chosen moments (processes.ts `launch`, with a scratch data directory).
 */
export type WorkerProcess = Proc;

export function spawnWorker(env: Record<string, string>): WorkerProcess {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-worker-'));
  const p = launch(['src/main.ts', '--role', 'worker'], {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATA_DIR: path.join(dir, 'data'),
    KEYS_DIR: path.join(dir, 'keys'),
    ...env,
  });
  void p.exited.then(() => fs.rmSync(dir, { recursive: true, force: true }));
  return p;
}

/**
 * A scratch PostgreSQL schema (and its `_secrets` twin) for webhook worker processes, with the
 * test's own pool and webhooks service on it: what the cross-process webhook tests share. `worker`
 * starts a worker process on the schema with the webhook settings given; `drop` kills the workers
 * and drops both schemas.
 */
export async function webhookWorkerSchema(
  base: string,
  prefix: string,
  settings: { retrySchedule: string; timeoutMs: number },
): Promise<{
  url: string;
  db: Db;
  service: WebhooksService;
  workers: WorkerProcess[];
  worker(): WorkerProcess;
  drop(): Promise<void>;
}> {
  const schema = `${prefix}_${crypto.randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const u = new URL(base);
  u.searchParams.set('options', `-c search_path=${schema}`);
  const url = u.toString();
  const dataKey = `k1:${crypto.randomBytes(32).toString('base64')}`;
  const db = await openDatabase({ url });
  const service = createWebhooksService({ db, clock: systemClock, cipher: testCipher(dataKey), settings: { allowPrivateNetworks: true } });
  const workers: WorkerProcess[] = [];
  return {
    url,
    db,
    service,
    workers,
    worker() {
      const w = spawnWorker({
        DATABASE_URL: url,
        DATA_ENCRYPTION_KEY: dataKey,
        SECRETS_ENCRYPTION_KEY: `k1:${crypto.randomBytes(32).toString('base64')}`,
        SECRETS_DATABASE_SCHEMA: `${schema}_secrets`,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_RETRY_SCHEDULE: settings.retrySchedule,
        // The lease is 3 × the timeout: how long a killed worker's deliveries wait for another.
        WEBHOOK_TIMEOUT_MS: String(settings.timeoutMs),
      });
      workers.push(w);
      return w;
    },
    async drop() {
      for (const w of workers) await w.kill();
      await db.close();
      const a = new pg.Client({ connectionString: base });
      await a.connect();
      await a.query(`drop schema if exists ${schema} cascade`);
      await a.query(`drop schema if exists ${schema}_secrets cascade`);
      await a.end();
    },
  };
}
