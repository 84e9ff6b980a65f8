import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EVENT_TYPES, type EventType } from '../../../src/events/event-types.ts';
import { emitEvent } from '../../../src/events/outbox.ts';
import { daysBetween, siiDate } from '../../../src/dte/index.ts';
import { scanExpiringCertificates } from '../../../src/modules/credentials/certificate-expiring.ts';
import {
  createDeliveryWorker,
  EVENT_DATA_SCHEMAS,
  WebhookPayloadSchema,
  type DeliveryWorker,
} from '../../../src/modules/webhooks/index.ts';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import { describeEachDb } from '../../support/db.ts';
import { certificateForm, makeCert, modernPfx, ymd } from '../../support/pfx.ts';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../../support/webhook-receiver.ts';
import { FAST_SETTINGS } from '../../support/webhooks.ts';

/**
 * Each event delivered end to end to a verifying receiver, in the contract's payload shape and
 * matching its named data schema: tenant.credentials.updated through the credentials API,
 * certificate.expiring through a certificate upload and the scan, a test event of every type
 * (folio.low and dte.status.changed through the issuing flow: issuing-events.e2e.test.ts).
 */
const ajv = new Ajv({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv) => void)(ajv);
const validPayload = ajv.compile(WebhookPayloadSchema);
const validData = Object.fromEntries(EVENT_TYPES.map((t) => [t, ajv.compile({ ...EVENT_DATA_SCHEMAS[t], additionalProperties: false })]));

const expectContractShape = (d: ReceivedDelivery, type: EventType) => {
  expect(d.verified, d.problem).toBe(true);
  expect(validPayload(d.payload), JSON.stringify(validPayload.errors)).toBe(true);
  expect(d.payload!.event).toBe(type);
  expect(validData[type]!(d.payload!.data), JSON.stringify(validData[type]!.errors)).toBe(true);
};

describeEachDb('events end to end', (backend) => {
  let t: TestApp;
  let key: string;
  let r: WebhookReceiver;
  let worker: DeliveryWorker;
  const PASSWORD = 'Clave-Prueba-1';

  beforeAll(async () => {
    t = await startTestApp(backend);
    ({ key } = await t.account());
    r = await startWebhookReceiver();
    const ep = await t.call(key, { method: 'POST', url: '/api/v1/webhooks/endpoints', payload: { url: r.url } });
    r.secret = ep.json().secret;
    worker = createDeliveryWorker({ db: t.ctx.db, clock: t.clock, cipher: t.ctx.secrets.dataCipher, settings: FAST_SETTINGS, pollMs: 20 });
    worker.start();
  });
  afterAll(async () => {
    await worker?.stop();
    await r?.close();
    await t?.close();
  });

  const ofType = (type: EventType) => r.deliveries.filter((d) => d.payload?.event === type);
  const newTenant = async () => (await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id as string;
  const uploadCertificate = async (tenantId: string, notAfter: Date) => {
    const cert = makeCert({ rut: '12345678-5', commonName: 'María Pérez Soto', notAfter });
    const form = certificateForm(
      {
        password: PASSWORD,
        rutCertificado: '12.345.678-5',
        nombreTitular: 'María Pérez Soto',
        fechaVencimiento: ymd(cert.notAfter),
        esPrincipal: 'true',
      },
      { data: modernPfx(cert, PASSWORD) },
    );
    const res = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/credentials/certificate`,
      payload: form.payload,
      headers: form.headers,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; rutCertificado: string; nombreTitular: string; fechaVencimiento: string };
  };

  it('tenant.credentials.updated: activation through the API delivers the contract payload', async () => {
    const tenantId = await newTenant();
    expect(
      (
        await t.call(key, {
          method: 'POST',
          url: `/api/v1/tenants/${tenantId}/credentials/api-key`,
          payload: { apiKey: 'sandbox-key-ok-1' },
        })
      ).statusCode,
    ).toBe(200);
    await uploadCertificate(tenantId, new Date(Date.now() + 365 * 86_400_000));
    await r.waitFor(() => ofType('tenant.credentials.updated').some((d) => d.payload!.data.tenantId === tenantId));
    const d = ofType('tenant.credentials.updated').find((x) => x.payload!.data.tenantId === tenantId)!;
    expectContractShape(d, 'tenant.credentials.updated');
    expect(d.payload!.data).toEqual({ tenantId, apiKey: { configured: true }, certificate: { configured: true } });
  });

  it('certificate.expiring: a certificate uploaded with 10 days left is announced at upload, once, with its data', async () => {
    const tenantId = await newTenant();
    const entry = await uploadCertificate(tenantId, new Date(Date.now() + 10 * 86_400_000));
    const far = await uploadCertificate(await newTenant(), new Date(Date.now() + 200 * 86_400_000));
    // Emitted by the upload itself, in its transaction: no scan needed.
    await r.waitFor(() => ofType('certificate.expiring').some((d) => d.payload!.data.certificateId === entry.id));
    // The periodic scan then finds nothing new.
    expect(await scanExpiringCertificates(t.ctx.db, t.clock)).toBe(0);
    await new Promise((res) => setTimeout(res, 200));
    const mine = ofType('certificate.expiring').filter((d) => d.payload!.data.certificateId === entry.id);
    // One event (a redelivery after a stall would carry the same webhook-id).
    expect(new Set(mine.map((d) => d.webhookId)).size).toBe(1);
    expectContractShape(mine[0]!, 'certificate.expiring');
    expect(mine[0]!.payload!.data).toEqual({
      tenantId,
      certificateId: entry.id,
      rutCertificado: entry.rutCertificado,
      nombreTitular: entry.nombreTitular,
      fechaVencimiento: entry.fechaVencimiento,
      daysRemaining: daysBetween(siiDate(new Date()), entry.fechaVencimiento),
    });
    expect(ofType('certificate.expiring').some((d) => d.payload!.data.certificateId === far.id)).toBe(false);
  });

  it('a test event of each type reaches the receiver in the contract shape', async () => {
    const epId = (await t.call(key, { method: 'GET', url: '/api/v1/webhooks/endpoints' })).json().data[0].id;
    for (const type of EVENT_TYPES) {
      const msg = (
        await t.call(key, { method: 'POST', url: `/api/v1/webhooks/endpoints/${epId}/test`, payload: { eventType: type } })
      ).json();
      await r.waitFor((all) => all.some((d) => d.webhookId === msg.id));
      expectContractShape(
        r.deliveries.find((d) => d.webhookId === msg.id)!,
        type,
      );
    }
  });

  it('delivers the outbox bytes of folio.low and dte.status.changed unchanged (the real flows: issuing-events.e2e.test.ts)', async () => {
    const { accountId } = {
      accountId: (await t.ctx.db.query<{ account_id: string }>('select account_id from webhook_endpoints limit 1')).rows[0]!.account_id,
    };
    const tenantId = await newTenant();
    const samples: [EventType, Record<string, unknown>][] = [
      ['folio.low', { tenantId, tipoDte: 33, disponibles: 9, lowThreshold: 10 }],
      [
        'dte.status.changed',
        {
          tenantId,
          dteId: crypto.randomUUID(),
          tipoDte: 33,
          folio: 17,
          previousStatus: 'sent',
          status: 'accepted',
          trackId: '123456',
          sii: { estado: 'EPR', glosa: 'Envio Procesado' },
        },
      ],
    ];
    for (const [type, data] of samples) {
      const e = await t.ctx.db.transaction((tx) => emitEvent(tx, { accountId, type, data, now: t.clock.now() }));
      await r.waitFor((all) => all.some((d) => d.webhookId === e.id));
      const d = r.deliveries.find((x) => x.webhookId === e.id)!;
      expectContractShape(d, type);
      expect(d.body).toBe(e.payload);
    }
  });
});
