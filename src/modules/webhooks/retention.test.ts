import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/support/db.ts';
import { webhookHarness, type WebhookHarness } from '../../../test/support/webhooks.ts';
import { manualClock } from '../../lib/clock.ts';
import { dispatchOutbox } from './delivery/dispatcher.ts';
import { purgeExpiredWebhookData } from './retention.ts';

describeEachDb('webhook log retention', (backend) => {
  let h: WebhookHarness;
  let clock: ReturnType<typeof manualClock>;
  let acct: string;
  beforeEach(async () => {
    clock = manualClock('2026-10-01T12:00:00.000Z');
    h = await webhookHarness(backend, { clock });
    acct = await h.account();
  });
  afterEach(() => h.close());

  it('deletes messages (with deliveries and attempts) and dispatched outbox rows past the retention, keeps the rest', async () => {
    const ep = await h.service.createEndpoint(acct, { url: 'http://127.0.0.1:9/h' });
    const old = await h.emit(acct, 'folio.low', { n: 1 });
    const oldPending = await h.emit(acct, 'folio.low', { n: 2 });
    await dispatchOutbox(h.db, clock);
    await h.db.query(`update webhook_deliveries set status = 'failed' where message_id = $1`, [old]);
    await h.db.query(
      `insert into webhook_attempts (id, account_id, message_id, delivery_id, endpoint_id, attempt_number, status, duration_ms, attempted_at)
       select gen_random_uuid(), account_id, message_id, id, endpoint_id, 1, 'failed', 5, $2 from webhook_deliveries where message_id = $1`,
      [old, clock.now()],
    );
    clock.advance(29 * 86_400_000);
    const recent = await h.emit(acct, 'folio.low', { n: 3 });
    await dispatchOutbox(h.db, clock);
    await h.db.query(`update webhook_deliveries set status = 'succeeded' where message_id = $1`, [recent]);
    clock.advance(2 * 86_400_000); // old ones are now 31 days old

    expect(await purgeExpiredWebhookData(h.db, clock, 30, 1)).toEqual({ messages: 1, outbox: 2 });
    const left = (await h.db.query<{ id: string }>('select id from webhook_messages order by created_at')).rows.map((r) => r.id);
    expect(left).toEqual([oldPending, recent]); // a pending delivery is never cut short
    expect((await h.db.query('select 1 from webhook_attempts where message_id = $1', [old])).rowCount).toBe(0);
    expect((await h.db.query('select 1 from webhook_deliveries where message_id = $1', [old])).rowCount).toBe(0);
    expect((await h.db.query('select id from outbox_events')).rows.map((r) => r.id)).toEqual([recent]);
    await expect(h.service.getMessage(acct, old)).rejects.toMatchObject({ code: 'webhook_message_not_found' });
    expect(ep.id).toBeTruthy();
  });
});
