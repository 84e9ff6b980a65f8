import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EVENT_TYPES, type EventType } from '../../../src/events/event-types.ts';
import { EVENT_DATA_SCHEMAS, WebhookPayloadSchema } from '../../../src/modules/webhooks/index.ts';
import { describeEachDb } from '../../support/db.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, waitFinal, type IssuingApp } from '../../support/issuing.ts';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../../support/webhook-receiver.ts';

/**
 * The contract's flow with the background worker running as `npm start` runs it: activation,
 * folios, DTEs, sending. Every event the issuing modules emit along the way reaches a verifying
 * receiver through the real outbox, dispatcher and delivery loop, in the contract's shape.
 */
const ajv = new Ajv({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv) => void)(ajv);
const validPayload = ajv.compile(WebhookPayloadSchema);
const validData = Object.fromEntries(EVENT_TYPES.map((t) => [t, ajv.compile({ ...EVENT_DATA_SCHEMAS[t], additionalProperties: false })]));

describeEachDb('issuing events delivered by the background worker', (backend) => {
  let t: IssuingApp;
  let key: string;
  let r: WebhookReceiver;

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
    r = await startWebhookReceiver();
    const ep = await t.call(key, { method: 'POST', url: '/api/v1/webhooks/endpoints', payload: { url: r.url } });
    r.secret = ep.json().secret;
  });
  afterAll(async () => {
    await t?.close();
    await r?.close();
  });

  const of = (type: EventType, pred: (d: ReceivedDelivery) => boolean = () => true) =>
    r.deliveries.filter((d) => d.payload?.event === type && pred(d));
  const check = (d: ReceivedDelivery, type: EventType) => {
    expect(d.verified, d.problem).toBe(true);
    expect(validPayload(d.payload), JSON.stringify(validPayload.errors)).toBe(true);
    expect(validData[type]!(d.payload!.data), JSON.stringify(validData[type]!.errors)).toBe(true);
  };

  it('tenant.credentials.updated, folio.low and dte.status.changed arrive signed and in shape', async () => {
    const tenantId = await readyTenant(t, key);
    await r.waitFor(() => of('tenant.credentials.updated', (d) => d.payload!.data.tenantId === tenantId).length > 0, 30_000);
    check(of('tenant.credentials.updated')[0]!, 'tenant.credentials.updated');

    await requestFolios(t, key, tenantId, 33, 11); // threshold 10: the second DTE leaves 9
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const c = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(33) });
      expect(c.statusCode, c.body).toBe(201);
      ids.push(c.json().id);
    }
    await r.waitFor(() => of('folio.low', (d) => d.payload!.data.tenantId === tenantId).length > 0, 30_000);
    const low = of('folio.low', (d) => d.payload!.data.tenantId === tenantId);
    expect(low).toHaveLength(1);
    check(low[0]!, 'folio.low');
    expect(low[0]!.payload!.data).toEqual({ tenantId, tipoDte: 33, disponibles: 9, lowThreshold: 10 });

    const sent = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte/send`, payload: { dteIds: [ids[0]] } });
    expect(sent.statusCode, sent.body).toBe(202);
    expect((await waitFinal(t, key, ids[0]!)).status).toBe('accepted');
    await r.waitFor(
      () => of('dte.status.changed', (d) => d.payload!.data.dteId === ids[0] && d.payload!.data.status === 'accepted').length > 0,
      30_000,
    );
    const changes = of('dte.status.changed', (d) => d.payload!.data.dteId === ids[0]);
    for (const d of changes) check(d, 'dte.status.changed');
    expect(new Set(changes.map((d) => `${d.payload!.data.previousStatus}>${d.payload!.data.status}`))).toEqual(
      new Set(['created>sending', 'sending>sent', 'sent>accepted']),
    );
    expect(changes.find((d) => d.payload!.data.status === 'accepted')!.payload!.data).toMatchObject({
      tenantId,
      tipoDte: 33,
      folio: 1,
      trackId: expect.any(String),
      sii: { estado: 'DOK' },
    });

    // The log shows each of them as succeeded (once the last attempts are recorded).
    let log: { data: { eventType: string; status: string }[] } = { data: [] };
    for (let i = 0; i < 100; i++) {
      log = (await t.call(key, { method: 'GET', url: '/api/v1/webhooks/messages?limit=50' })).json();
      if (log.data.every((m) => m.status === 'succeeded')) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    expect(new Set(log.data.map((m) => m.eventType))).toEqual(new Set(['tenant.credentials.updated', 'folio.low', 'dte.status.changed']));
    expect(log.data.map((m) => m.status)).toEqual(log.data.map(() => 'succeeded'));
  });
});
