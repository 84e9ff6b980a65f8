import crypto from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { DeliveryWorker } from './delivery-worker.ts';
import { describeEachDb } from '../../../../test/support/db.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../../test/support/webhook-receiver.ts';
import { webhookHarness, type WebhookHarness } from '../../../../test/support/webhooks.ts';

/**
 * Delivery end to end on a real database and real sockets: outbox → dispatcher → worker → a
 * receiver that verifies every request the way docs/webhooks.md tells receivers to. The retry
 * schedule is scaled down (0, 60 ms × 4) so five attempts take well under a second.
 */
/** Resolves once the worker's wake-ups are live (PostgreSQL: its LISTEN connection is up). */
async function waitUntilListening(w: DeliveryWorker, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!w.listening) {
    if (Date.now() > deadline) throw new Error('the worker is not listening');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describeEachDb('webhook delivery', (backend) => {
  let h: WebhookHarness;
  let acct: string;
  const receivers: WebhookReceiver[] = [];
  const receiver = async (...a: Parameters<typeof startWebhookReceiver>) => {
    const r = await startWebhookReceiver(...a);
    receivers.push(r);
    return r;
  };
  const endpointFor = async (
    r: WebhookReceiver,
    extra: { filterTypes?: string[]; signatureScheme?: 'hmac-sha256-body' | 'standard-webhooks' } = {},
  ) => {
    const ep = await h.service.createEndpoint(acct, { url: r.url, ...extra });
    r.secret = ep.secret;
    if (extra.signatureScheme) r.scheme = extra.signatureScheme;
    return ep;
  };
  const data = { tenantId: '6b0d3f8e-2f4a-4c1e-9a51-0c9d5e2b7a10', tipoDte: 33, disponibles: 4, lowThreshold: 10 };

  beforeEach(async () => {
    h = await webhookHarness(backend);
    acct = await h.account();
  });
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
    await h.close();
  });

  it('delivers the outbox payload byte for byte, signed, to every matching endpoint and no other', async () => {
    const all = await receiver();
    const folioOnly = await receiver();
    const dteOnly = await receiver();
    await endpointFor(all);
    await endpointFor(folioOnly, { filterTypes: ['folio.low'] });
    await endpointFor(dteOnly, { filterTypes: ['dte.status.changed'] });
    const other = await h.account();
    const elsewhere = await receiver();
    elsewhere.secret = (await h.service.createEndpoint(other, { url: elsewhere.url })).secret;

    const id = await h.emit(acct, 'folio.low', data);
    const outbox = (await h.db.query<{ payload: string }>('select payload from outbox_events where id = $1', [id])).rows[0]!;
    h.worker().start();
    const m = await h.waitForMessage(acct, id, (m) => m.status === 'succeeded');

    for (const r of [all, folioOnly]) {
      await r.waitForCount(1);
      expect(r.deliveries).toHaveLength(1);
      const d = r.deliveries[0]!;
      expect(d.problem).toBeUndefined();
      expect(d.verified).toBe(true);
      expect(d.webhookId).toBe(id);
      expect(d.body).toBe(outbox.payload);
      expect(d.payload).toEqual({ event: 'folio.low', timestamp: expect.any(String), livemode: true, data });
      expect(Math.abs(Number(d.timestamp) - Date.now() / 1000)).toBeLessThan(30);
    }
    expect(dteOnly.deliveries).toHaveLength(0);
    expect(elsewhere.deliveries).toHaveLength(0);
    expect(m.attempts).toHaveLength(2);
    expect(m.attempts.every((a) => a.status === 'succeeded' && a.responseStatusCode === 200 && a.attemptNumber === 1)).toBe(true);
    expect(m.payload).toEqual(JSON.parse(outbox.payload));
  });

  it('signs with the standard-webhooks scheme so the standardwebhooks library verifies it', async () => {
    const r = await receiver();
    await endpointFor(r, { signatureScheme: 'standard-webhooks' });
    const id = await h.emit(acct, 'folio.low', data);
    h.worker().start();
    await r.waitForCount(1);
    expect(r.deliveries[0]).toMatchObject({ verified: true, webhookId: id });
    expect(r.deliveries[0]!.signature).toMatch(/^v1,/);
  });

  it('makes exactly 5 attempts to a receiver that always fails, each signed, then marks the message failed', async () => {
    const r = await receiver({ respond: () => ({ status: 500, body: 'boom' }) });
    const ep = await endpointFor(r);
    const id = await h.emit(acct, 'folio.low', data);
    h.worker().start();
    const m = await h.waitForMessage(acct, id, (m) => m.status === 'failed');
    await new Promise((res) => setTimeout(res, 400)); // nothing more may come
    expect(r.deliveries).toHaveLength(5);
    expect(r.deliveries.every((d) => d.verified && d.webhookId === id)).toBe(true);
    expect(r.deliveries.map((d) => d.seenCount)).toEqual([1, 2, 3, 4, 5]);
    expect(m.attempts.map((a) => [a.attemptNumber, a.status, a.responseStatusCode, a.responseBody])).toEqual(
      [1, 2, 3, 4, 5].map((n) => [n, 'failed', 500, 'boom']),
    );
    expect(m.attempts.slice(0, 4).every((a) => a.nextAttemptAt !== null)).toBe(true);
    expect(m.attempts[4]!.nextAttemptAt).toBeNull();
    expect(m.attempts.every((a) => a.endpointId === ep.id)).toBe(true);
  });

  it('stops at the attempt that succeeds: exactly 3 for a receiver that recovers on the third', async () => {
    const r = await receiver({ respond: (d) => ({ status: d.seenCount < 3 ? 503 : 204 }) });
    await endpointFor(r);
    const id = await h.emit(acct, 'folio.low', data);
    h.worker().start();
    const m = await h.waitForMessage(acct, id, (m) => m.status === 'succeeded');
    await new Promise((res) => setTimeout(res, 300));
    expect(r.deliveries).toHaveLength(3);
    expect(r.deliveries.every((d) => d.verified && d.webhookId === id)).toBe(true);
    expect(m.attempts.map((a) => a.status)).toEqual(['failed', 'failed', 'succeeded']);
    expect(m.attempts[2]!.responseStatusCode).toBe(204);
  });

  it('counts a receiver that hangs past the (scaled) 30 s timeout as a failed attempt', async () => {
    const r = await receiver({ respond: (d) => (d.seenCount === 1 ? { hang: true } : { status: 200 }) });
    await endpointFor(r);
    const id = await h.emit(acct, 'folio.low', data);
    h.worker({ timeoutMs: 1_500 }).start();
    const m = await h.waitForMessage(acct, id, (m) => m.status === 'succeeded');
    expect(m.attempts[0]).toMatchObject({ status: 'failed', responseStatusCode: null, error: expect.stringMatching(/^timeout/) });
    expect(m.attempts[0]!.durationMs).toBeGreaterThanOrEqual(1_490);
    // The later attempt succeeds (a stall on a loaded machine could time out one more in between).
    expect(m.attempts.at(-1)).toMatchObject({ status: 'succeeded' });
  });

  it('treats a 302 as a failure and never contacts its target', async () => {
    const target = await receiver();
    const r = await receiver({ respond: () => ({ status: 302, headers: { location: target.url } }) });
    await endpointFor(r);
    const id = await h.emit(acct, 'folio.low', data);
    h.worker().start();
    const m = await h.waitForMessage(acct, id, (m) => m.status === 'failed');
    expect(m.attempts).toHaveLength(5);
    expect(m.attempts.every((a) => a.responseStatusCode === 302 && a.status === 'failed')).toBe(true);
    expect(target.deliveries).toHaveLength(0);
  });

  it('disables an endpoint that answers 410, with no further attempts, and fails what was queued for it', async () => {
    const r = await receiver({ respond: () => ({ status: 410 }) });
    const ep = await endpointFor(r);
    const first = await h.emit(acct, 'folio.low', data);
    const w = h.worker({ endpointConcurrency: 1, concurrency: 1 });
    w.start();
    const m = await h.waitForMessage(acct, first, (m) => m.status === 'failed');
    const second = await h.emit(acct, 'folio.low', data);
    await h.waitForMessage(acct, second, (m) => m.status !== 'pending');
    expect(m.attempts).toHaveLength(1);
    expect(m.attempts[0]!.responseStatusCode).toBe(410);
    const after = await h.service.getEndpoint(acct, ep.id);
    expect(after).toMatchObject({ disabled: true, disabledReason: 'gone' });
    expect((await h.message(acct, second)).status).toBe('no_endpoints');
    expect(r.deliveries).toHaveLength(1);
  });

  it('honours Retry-After when it asks for more time than the schedule', async () => {
    const r = await receiver({ respond: (d) => (d.seenCount === 1 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 }) });
    await endpointFor(r);
    const id = await h.emit(acct, 'folio.low', data);
    h.worker().start();
    await h.waitForMessage(acct, id, (m) => m.status === 'succeeded');
    expect(r.deliveries[1]!.receivedAt - r.deliveries[0]!.receivedAt).toBeGreaterThanOrEqual(950);
  });

  it('does not let one slow receiver hold up the others', async () => {
    const slow = await receiver({ respond: () => ({ hang: true }) });
    const fast = await receiver();
    await endpointFor(slow);
    await endpointFor(fast);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await h.emit(acct, 'folio.low', { ...data, disponibles: i }));
    // The slow receiver hangs far longer than the test may take: every fast delivery arriving while
    // 4 of the 8 slots stay stuck on it is what shows it does not hold the others up.
    h.worker({ timeoutMs: 60_000, concurrency: 8, endpointConcurrency: 4 }).start();
    await fast.waitFor((all) => new Set(all.map((d) => d.webhookId)).size === 20, 30_000);
    expect(slow.deliveries.length).toBeLessThanOrEqual(4);
  });

  it('disables an endpoint that has failed continuously for the configured time', async () => {
    const r = await receiver({ respond: () => ({ status: 500 }) });
    const ep = await endpointFor(r);
    h.worker({ disableAfterMs: 150 }).start();
    const a = await h.emit(acct, 'folio.low', data);
    await h.waitForMessage(acct, a, (m) => m.status === 'failed');
    expect(await h.service.getEndpoint(acct, ep.id)).toMatchObject({ disabled: true, disabledReason: 'failing' });
    // re-enabled, it starts a fresh failing run
    expect(await h.service.updateEndpoint(acct, ep.id, { disabled: false })).toMatchObject({ disabled: false, disabledReason: null });
  });

  it('resets the failing run on any success', async () => {
    const r = await receiver({ respond: (d) => ({ status: d.seenCount === 1 ? 500 : 200 }) });
    const ep = await endpointFor(r);
    h.worker().start();
    const id = await h.emit(acct, 'folio.low', data);
    await h.waitForMessage(acct, id, (m) => m.status === 'succeeded');
    const row = await h.db.query<{ failing_since: Date | null }>('select failing_since from webhook_endpoints where id = $1', [ep.id]);
    expect(row.rows[0]!.failing_since).toBeNull();
  });

  it('re-sends, with the same webhook-id, a delivery whose worker died holding the lease', async () => {
    const r = await receiver();
    await endpointFor(r);
    const id = await h.emit(acct, 'folio.low', data);
    const w = h.worker();
    await w.tick(); // dispatched and sent once
    await w.settle();
    await r.waitForCount(1);
    // What a worker that died mid-attempt leaves behind: a pending delivery under an expired lease.
    await h.db.query(
      `update webhook_deliveries set status = 'pending', lease_id = gen_random_uuid(), locked_until = now() - interval '1 second', attempt_count = 0
       where message_id = $1`,
      [id],
    );
    await w.tick();
    await w.settle();
    await r.waitForCount(2);
    expect(r.deliveries.map((d) => d.webhookId)).toEqual([id, id]);
    expect(r.deliveries.every((d) => d.verified)).toBe(true);
  });

  it('leaves a delivery under a live lease alone', async () => {
    const r = await receiver();
    await endpointFor(r);
    const id = await h.emit(acct, 'folio.low', data);
    const w = h.worker();
    const { dispatchOutbox } = await import('./dispatcher.ts');
    await dispatchOutbox(h.db, h.clock);
    await h.db.query(
      `update webhook_deliveries set lease_id = gen_random_uuid(), locked_until = now() + interval '1 hour' where message_id = $1`,
      [id],
    );
    await w.tick();
    await w.settle();
    await new Promise((res) => setTimeout(res, 100));
    expect(r.deliveries).toHaveLength(0);
  });

  it('cancels what was not yet sent to a deleted endpoint and keeps the log', async () => {
    const r = await receiver({ respond: () => ({ status: 500 }) });
    const ep = await endpointFor(r);
    const id = await h.emit(acct, 'folio.low', data);
    const w = h.worker({ retryScheduleMs: [0, 60_000] });
    await w.tick();
    await w.settle();
    await h.service.deleteEndpoint(acct, ep.id);
    const m = await h.message(acct, id);
    expect(m.status).toBe('cancelled');
    expect(m.attempts).toHaveLength(1);
    expect((await h.service.listMessages(acct, { limit: 10, endpointId: ep.id })).data.map((x) => x.id)).toEqual([id]);
  });

  it('keeps signing with the previous secret for a day after a rotation (standard-webhooks)', async () => {
    const r = await receiver();
    const ep = await endpointFor(r, { signatureScheme: 'standard-webhooks' });
    const old = ep.secret;
    const { secret } = await h.service.rotateSecret(acct, ep.id);
    expect(secret).not.toBe(old);
    expect((await h.service.getSecret(acct, ep.id)).secret).toBe(secret);
    h.worker().start();
    await h.emit(acct, 'folio.low', data);
    await r.waitForCount(1);
    expect(r.deliveries[0]!.verified).toBe(true); // verified with the old secret the receiver still has
    expect(r.deliveries[0]!.signature.split(' ')).toHaveLength(2);
  });

  it('delivers an event whose wake-up was lost, at the backstop poll', async () => {
    const r = await receiver();
    await endpointFor(r);
    const w = h.worker({}, {}, { pollMs: 300 });
    w.start();
    await new Promise((res) => setTimeout(res, 100)); // the first round has run; the worker sleeps
    // Written the way a transaction whose NOTIFY never arrived (listener down, notification lost)
    // leaves it: the outbox row alone, with no wake-up of any kind.
    const id = crypto.randomUUID();
    await h.db.query(
      `insert into outbox_events (id, account_id, event_type, payload, created_at) values ($1, $2, 'folio.low', $3, now())`,
      [id, acct, JSON.stringify({ event: 'folio.low', timestamp: new Date().toISOString(), livemode: true, data })],
    );
    await r.waitForCount(1);
    expect(r.deliveries[0]).toMatchObject({ verified: true, webhookId: id });
  });

  it('wakes on commit: an event is delivered although the backstop poll would not come for a minute', async () => {
    const r = await receiver();
    await endpointFor(r);
    const w = h.worker({}, {}, { pollMs: 60_000 });
    w.start();
    await waitUntilListening(w);
    const first = await h.emit(acct, 'folio.low', data);
    await r.waitForCount(1);
    // A resend writes a delivery, not an outbox row: it wakes the worker too.
    await h.service.resend(acct, first, (await h.service.listEndpoints(acct, { limit: 1 })).data[0]!.id);
    await r.waitForCount(2);
    expect(r.deliveries.map((d) => d.webhookId)).toEqual([first, first]);
  });

  it.runIf(backend === 'postgres')(
    'loses no event while its LISTEN connection is down, and is woken by commits again once it is back',
    async () => {
      const r = await receiver();
      await endpointFor(r);
      const name = `dte-webhooks-test-${crypto.randomUUID().slice(0, 8)}`;
      const w = h.worker({}, {}, { pollMs: 60_000, instanceName: name });
      w.start();
      await waitUntilListening(w);
      await h.db.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [name]);
      // Committed while nobody listens: its NOTIFY reaches no one; the worker polls fast meanwhile.
      const during = await h.emit(acct, 'folio.low', data);
      await r.waitFor((all) => all.some((d) => d.webhookId === during), 15_000);
      await waitUntilListening(w);
      // Listening again: with the backstop a minute away, only the NOTIFY can bring this one now.
      const after = await h.emit(acct, 'folio.low', data);
      await r.waitFor((all) => all.some((d) => d.webhookId === after), 15_000);
      expect(r.deliveries.every((d) => d.verified)).toBe(true);
    },
  );

  it('stores secrets only encrypted', async () => {
    const r = await receiver();
    const ep = await endpointFor(r);
    const raw = await h.db.query<Record<string, unknown>>('select * from webhook_endpoints where id = $1', [ep.id]);
    expect(JSON.stringify(raw.rows[0])).not.toContain(ep.secret.slice(6));
    expect(Buffer.from(raw.rows[0]!.secret_enc as Buffer).includes(Buffer.from(ep.secret.slice(6)))).toBe(false);
  });
});
