import type { Db } from '../../db/types.ts';
import type { Clock } from '../../lib/clock.ts';

/**
 * Retention of the delivery log (config.webhooks.retentionDays, 30 by default): messages older
 * than that go, with their deliveries and attempts (foreign keys cascade), and so do outbox rows
 * dispatched before then. A message with a delivery still pending is kept whatever its age, so a
 * short retention can never cut a retry short. Deletes run in batches to keep transactions short.
 */
export async function purgeExpiredWebhookData(
  db: Db,
  clock: Clock,
  retentionDays: number,
  batch = 1000,
): Promise<{ messages: number; outbox: number }> {
  const cutoff = new Date(clock.now().getTime() - retentionDays * 86_400_000);
  let messages = 0;
  let outbox = 0;
  for (;;) {
    const r = await db.query(
      `delete from webhook_messages where id in (
         select m.id from webhook_messages m
         where m.created_at < $1
           and not exists (select 1 from webhook_deliveries d where d.message_id = m.id and d.status = 'pending')
         limit $2)`,
      [cutoff, batch],
    );
    messages += r.rowCount;
    if (r.rowCount < batch) break;
  }
  for (;;) {
    const r = await db.query(
      `delete from outbox_events where id in (
         select id from outbox_events where dispatched_at is not null and dispatched_at < $1 limit $2)`,
      [cutoff, batch],
    );
    outbox += r.rowCount;
    if (r.rowCount < batch) break;
  }
  return { messages, outbox };
}
