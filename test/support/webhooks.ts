import crypto from 'node:crypto';
import type { Db } from '../../src/db/types.ts';
import type { EventType } from '../../src/events/event-types.ts';
import { emitEvent } from '../../src/events/outbox.ts';
import { systemClock, type Clock } from '../../src/lib/clock.ts';
import {
  createDeliveryWorker,
  createWebhooksService,
  type DeliverySettings,
  type DeliveryWorker,
  type Message,
  type Resolver,
  type Sender,
  type WebhooksService,
} from '../../src/modules/webhooks/index.ts';
import type { DataCipher } from '../../src/secrets/data-cipher.ts';
import { createEnvelope, generateKeySpec, parseKeyring } from '../../src/secrets/envelope.ts';
import { openTestDb, type Backend, type TestDb } from './db.ts';

/**
 * Webhook tests on a real database without the HTTP layer: the service, a delivery worker with a
 * scaled-down schedule, and helpers to emit events and wait for outcomes.
 */
export const testCipher = (spec = generateKeySpec()): DataCipher => createEnvelope(parseKeyring(spec));

export const FAST_SETTINGS: DeliverySettings = {
  retryScheduleMs: [0, 60, 60, 60, 60],
  // Generous: the receivers share the worker's event loop, and a stall (a certificate generated
  // synchronously, a loaded CI machine) must not turn into a timeout and a redelivery. Tests about
  // timeouts set their own.
  timeoutMs: 10_000,
  allowPrivateNetworks: true,
  disableAfterMs: 5 * 86_400_000,
  concurrency: 16,
  endpointConcurrency: 4,
};

export interface WebhookHarness {
  tdb: TestDb;
  db: Db;
  clock: Clock;
  cipher: DataCipher;
  service: WebhooksService;
  /** Creates an account row; returns its id. */
  account(): Promise<string>;
  emit(accountId: string, type: EventType, data: Record<string, unknown>): Promise<string>;
  worker(
    over?: Partial<DeliverySettings>,
    extra?: { sender?: Sender; resolver?: Resolver; random?: () => number },
    loop?: { pollMs?: number; instanceName?: string },
  ): DeliveryWorker;
  message(accountId: string, id: string): Promise<Message>;
  /** Polls the log until the message satisfies `pred`. */
  waitForMessage(accountId: string, id: string, pred: (m: Message) => boolean, timeoutMs?: number): Promise<Message>;
  close(): Promise<void>;
}

export async function webhookHarness(
  backend: Backend,
  opts: { clock?: Clock; allowPrivateNetworks?: boolean; resolver?: Resolver } = {},
): Promise<WebhookHarness> {
  const tdb = await openTestDb(backend);
  const db = tdb.db;
  const clock = opts.clock ?? systemClock;
  const cipher = testCipher();
  const service = createWebhooksService({
    db,
    clock,
    cipher,
    settings: { allowPrivateNetworks: opts.allowPrivateNetworks ?? true },
    ...(opts.resolver ? { resolver: opts.resolver } : {}),
  });
  const workers: DeliveryWorker[] = [];
  const h: WebhookHarness = {
    tdb,
    db,
    clock,
    cipher,
    service,
    async account() {
      const id = crypto.randomUUID();
      await db.query('insert into accounts (id, name, email, created_at, updated_at) values ($1, $2, $3, $4, $4)', [
        id,
        'Webhook test',
        `${id}@example.com`,
        clock.now(),
      ]);
      return id;
    },
    async emit(accountId, type, data) {
      const e = await db.transaction((tx) => emitEvent(tx, { accountId, type, data, now: clock.now() }));
      return e.id;
    },
    worker(over = {}, extra = {}, loop = {}) {
      const w = createDeliveryWorker({
        db,
        clock,
        cipher,
        settings: { ...FAST_SETTINGS, ...over },
        pollMs: 20,
        ...extra,
        ...loop,
      });
      workers.push(w);
      return w;
    },
    message: (accountId, id) => service.getMessage(accountId, id),
    async waitForMessage(accountId, id, pred, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      let last: Message | undefined;
      while (Date.now() < deadline) {
        last = await service.getMessage(accountId, id).catch(() => undefined);
        if (last && pred(last)) return last;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`message ${id} did not reach the expected state in ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
    },
    async close() {
      for (const w of workers) await w.stop();
      await tdb.close();
    },
  };
  return h;
}
