import crypto from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/support/db.ts';
import { webhookHarness, type WebhookHarness } from '../../../../test/support/webhooks.ts';
import { deliveriesStore, type AttemptRecord } from './deliveries.store.ts';
import { dispatchOutbox } from './dispatcher.ts';

/**
 * The worker's SQL on a real database: claims bounded per endpoint, and outcomes recorded in one
 * statement per batch, each only under its own lease.
 */
describeEachDb('deliveries store', (backend) => {
  let h: WebhookHarness;
  let acct: string;
  let endpoints: string[];
  const data = { tenantId: '6b0d3f8e-2f4a-4c1e-9a51-0c9d5e2b7a10', tipoDte: 33, disponibles: 4, lowThreshold: 10 };

  beforeAll(async () => {
    h = await webhookHarness(backend);
    acct = await h.account();
    // Three endpoints (nothing listens there: these tests never send), 5 events each.
    endpoints = [];
    for (let i = 0; i < 3; i++) endpoints.push((await h.service.createEndpoint(acct, { url: `http://127.0.0.1:9/e${i}` })).id);
    for (let i = 0; i < 5; i++) await h.emit(acct, 'folio.low', data);
    await dispatchOutbox(h.db, h.clock);
  });
  afterAll(async () => {
    await h.close();
  });

  const claim = (limit: number, slots: Map<string, number>) =>
    deliveriesStore.claim(h.db, { limit, slots, perEndpoint: 2, now: new Date(), leaseMs: 60_000, leaseId: crypto.randomUUID() });
  const endpointOf = async (ids: string[]) => (await deliveriesStore.load(h.db, ids)).map((d) => d.endpoint_id);
  const outcome = (id: string, leaseId: string, ok: boolean): AttemptRecord => {
    const now = new Date();
    return {
      deliveryId: id,
      leaseId,
      status: ok ? 'succeeded' : 'failed',
      deliveryStatus: ok ? 'succeeded' : 'pending',
      nextAttemptAt: ok ? null : new Date(now.getTime() + 60_000),
      responseStatusCode: ok ? 200 : 500,
      responseBody: ok ? 'ok' : 'boom',
      error: ok ? null : 'http_status: 500',
      durationMs: 3,
      attemptedAt: now,
      now,
    };
  };
  const failingSince = async (id: string) =>
    (await h.db.query<{ f: Date | null }>('select failing_since as f from webhook_endpoints where id = $1', [id])).rows[0]!.f;

  it('claims at most the free slots of each endpoint, none for a full one', async () => {
    const [a, b, c] = endpoints as [string, string, string];
    // a has no slot left, b one, c is not listed and gets perEndpoint (2).
    const got = await claim(
      100,
      new Map([
        [a, 0],
        [b, 1],
      ]),
    );
    const per = await endpointOf(got.map((g) => g.id));
    expect(per.filter((e) => e === a)).toHaveLength(0);
    expect(per.filter((e) => e === b)).toHaveLength(1);
    expect(per.filter((e) => e === c)).toHaveLength(2);
    // What is leased is not claimed again while the lease lasts.
    const again = await claim(100, new Map());
    expect(again.map((g) => g.id).some((id) => got.some((x) => x.id === id))).toBe(false);
  });

  it('records a batch in one statement, skipping an attempt whose lease was lost', async () => {
    const got = await claim(3, new Map());
    expect(got).toHaveLength(3);
    const [x, y, z] = got as [(typeof got)[0], (typeof got)[0], (typeof got)[0]];
    // Another worker took z over after its lease ran out.
    await h.db.query('update webhook_deliveries set lease_id = gen_random_uuid() where id = $1', [z.id]);
    const out = await deliveriesStore.recordAttempts(h.db, [
      outcome(x.id, x.lease_id, true),
      outcome(y.id, y.lease_id, false),
      outcome(z.id, z.lease_id, true),
    ]);
    expect(out.map((o) => o.deliveryId).sort()).toEqual([x.id, y.id].sort());
    expect(out.every((o) => o.attemptNumber === 1)).toBe(true);
    const rows = await h.db.query<{ id: string; status: string; attempt_count: number; lease_id: string | null }>(
      'select id, status, attempt_count, lease_id from webhook_deliveries where id = any($1::uuid[])',
      [[x.id, y.id, z.id]],
    );
    const by = new Map(rows.rows.map((r) => [r.id, r]));
    expect(by.get(x.id)).toMatchObject({ status: 'succeeded', attempt_count: 1, lease_id: null });
    expect(by.get(y.id)).toMatchObject({ status: 'pending', attempt_count: 1, lease_id: null });
    expect(by.get(z.id)).toMatchObject({ status: 'pending', attempt_count: 0 });
    expect(by.get(z.id)!.lease_id).not.toBeNull();
    const attempts = await h.db.query<{ delivery_id: string }>(
      'select delivery_id from webhook_attempts where delivery_id = any($1::uuid[])',
      [[x.id, y.id, z.id]],
    );
    expect(attempts.rows.map((r) => r.delivery_id).sort()).toEqual([x.id, y.id].sort());
  });

  it("starts an endpoint's failing run on a batch of failures and clears it on any success", async () => {
    const ep = endpoints[0]!;
    const slotsOnly = new Map(endpoints.filter((e) => e !== ep).map((e) => [e, 0]));
    // The earlier tests' leases on this endpoint run out: its untried deliveries are due again.
    await h.db.query(
      `update webhook_deliveries set lease_id = null, locked_until = null where endpoint_id = $1 and attempt_count = 0 and status = 'pending'`,
      [ep],
    );
    const first = await claim(1, slotsOnly);
    expect(await endpointOf(first.map((f) => f.id))).toEqual([ep]);
    const [o] = await deliveriesStore.recordAttempts(h.db, [outcome(first[0]!.id, first[0]!.lease_id, false)]);
    expect(o!.failingSince).toBeInstanceOf(Date);
    expect(await failingSince(ep)).toEqual(o!.failingSince);
    const next = await claim(2, slotsOnly);
    expect(next).toHaveLength(2);
    const out = await deliveriesStore.recordAttempts(h.db, [
      outcome(next[0]!.id, next[0]!.lease_id, false),
      outcome(next[1]!.id, next[1]!.lease_id, true),
    ]);
    expect(out).toHaveLength(2);
    expect(out.every((x) => x.failingSince === null)).toBe(true);
    expect(await failingSince(ep)).toBeNull();
  });
});
