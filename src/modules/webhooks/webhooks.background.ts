import type { AppContext } from '../../context.ts';
import type { Loop, Periodic } from '../../worker.ts';
import { backgroundLog } from '../../lib/log-safe.ts';
import { createDeliveryWorker } from './delivery/delivery-worker.ts';
import { purgeExpiredWebhookData } from './retention.ts';

/** Background work of the webhooks module, collected by src/worker.ts. */
export function webhookLoops(ctx: AppContext): Loop[] {
  const worker = createDeliveryWorker({
    db: ctx.db,
    clock: ctx.clock,
    cipher: ctx.secrets.dataCipher,
    settings: ctx.config.webhooks,
    log: backgroundLog,
    observer: ctx.metrics.webhooks,
  });
  return [{ name: 'webhooks.delivery', start: () => worker.start(), stop: () => worker.stop() }];
}

export function webhookPeriodics(ctx: AppContext): Periodic[] {
  return [
    {
      name: 'webhooks.retention',
      everyMs: 3_600_000,
      runAtStart: true,
      run: async () => void (await purgeExpiredWebhookData(ctx.db, ctx.clock, ctx.config.webhooks.retentionDays)),
    },
  ];
}
