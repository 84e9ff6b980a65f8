import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { siiDate } from '../../../src/dte/index.ts';
import { EMULATOR_IDK, loadOrCreateSiiKey } from '../../../src/provider/emulator/sii-key.ts';
import { validTenant } from '../../support/app.ts';
import { describeEachDb } from '../../support/db.ts';
import { createTestCaf } from '../../support/dte/test-caf.ts';
import { certificateForm } from '../../support/pfx.ts';
import {
  dteBody,
  readyTenant,
  requestFolios,
  SANDBOX_API_KEY,
  startIssuingApp,
  waitFinal,
  type IssuingApp,
} from '../../support/issuing.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts';

/**
 * Test mode's must-show (docs/design.md "Test mode"): an installation configured for the real
 * billing provider (PROVIDER=simpleapi) whose SimpleAPI cannot be reached. With a test key the
 * contract's whole flow completes on the built-in emulator (tenant, credentials, CAF, DTE, send,
 * accepted, PDF, webhook delivered, saying livemode false); the same calls with a live key go to
 * the provider and say it is unreachable. A CAF signed by the emulator's key is taken by a test
 * tenant and refused for a live one.
 */
describeEachDb('test mode on an installation whose provider is unreachable', (backend) => {
  let t: IssuingApp;
  let live: string;
  let test: string;
  let receiver: WebhookReceiver;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-testmode-'));
    t = await startIssuingApp(backend, {
      env: {
        PROVIDER: 'simpleapi',
        SIMPLEAPI_BASE_URL: 'http://127.0.0.1:9',
        SIMPLEAPI_RETRIES: '0',
        SIMPLEAPI_TIMEOUT: '5s',
        DATA_DIR: dataDir,
      },
    });
    ({ key: live } = await t.account());
    receiver = await startWebhookReceiver();
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('gives a live key a test key on demand; a test key makes only test keys', async () => {
    const r = await t.call(live, { method: 'POST', url: '/api/v1/api-keys', payload: { name: 'tests', mode: 'test' } });
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json()).toMatchObject({ livemode: false, name: 'tests', prefix: expect.stringMatching(/^sk_test_/) });
    test = r.json().key;
    expect(test).toMatch(/^sk_test_[A-Za-z0-9_-]{43}$/);
    const again = await t.call(test, { method: 'POST', url: '/api/v1/api-keys', payload: {} });
    expect([again.statusCode, again.json().livemode, again.json().key.slice(0, 8)]).toEqual([201, false, 'sk_test_']);
    const up = await t.call(test, { method: 'POST', url: '/api/v1/api-keys', payload: { mode: 'live' } });
    expect([up.statusCode, up.json().error.code]).toEqual([403, 'live_key_from_test_key']);
    // Both modes see the same account, each saying its mode.
    const a = (await t.call(test, { method: 'GET', url: '/api/v1/account' })).json();
    const b = (await t.call(live, { method: 'GET', url: '/api/v1/account' })).json();
    expect([a.id, a.livemode, b.livemode]).toEqual([b.id, false, true]);
    // Each mode lists only its own keys.
    const keys = (await t.call(test, { method: 'GET', url: '/api/v1/api-keys' })).json().data as { livemode: boolean }[];
    expect(keys.length).toBe(2);
    expect(keys.every((k) => k.livemode === false)).toBe(true);
  });

  it("completes the contract's flow with a test key on the built-in emulator, webhook included", async () => {
    const ep = await t.call(test, { method: 'POST', url: '/api/v1/webhooks/endpoints', payload: { url: receiver.url } });
    expect(ep.statusCode, ep.body).toBe(201);
    expect(ep.json().livemode).toBe(false);
    receiver.secret = ep.json().secret;

    const tenantId = await readyTenant(t, test);
    const tenant = (await t.call(test, { method: 'GET', url: `/api/v1/tenants/${tenantId}` })).json();
    expect(tenant).toMatchObject({ livemode: false, status: 'active' });
    const folios = await requestFolios(t, test, tenantId, 33, 5);
    expect(folios).toMatchObject({ status: 'completed', livemode: false });
    const created = await t.call(test, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(33) });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().livemode).toBe(false);
    const dteId = created.json().id as string;
    const sent = await t.call(test, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte/send`, payload: { dteIds: [dteId] } });
    expect(sent.statusCode, sent.body).toBe(202);
    expect(sent.json().envios[0].livemode).toBe(false);
    const final = await waitFinal(t, test, dteId);
    expect(final).toMatchObject({ status: 'accepted', livemode: false });
    const pdf = await t.call(test, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${dteId}/pdf` });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');

    const accepted = (d: (typeof receiver.deliveries)[number]) =>
      d.payload?.event === 'dte.status.changed' && d.payload.data.dteId === dteId && d.payload.data.status === 'accepted';
    await receiver.waitFor((all) => all.some(accepted));
    const events = receiver.deliveries.filter((d) => d.payload);
    expect(events.length).toBeGreaterThanOrEqual(2); // tenant.credentials.updated, dte.status.changed
    for (const d of events) {
      expect(d.verified, d.problem).toBe(true);
      expect(d.payload!.livemode).toBe(false);
    }
    const status = events.find(accepted)!.payload!;
    expect(Object.keys(status)).toEqual(['event', 'timestamp', 'livemode', 'data']);
    expect(status.data).toMatchObject({ tenantId, dteId, status: 'accepted' });
    // The log of the message says the same.
    const msgs = (await t.call(test, { method: 'GET', url: '/api/v1/webhooks/messages' })).json().data as {
      livemode: boolean;
      payload: { livemode: boolean };
    }[];
    expect(msgs.length).toBeGreaterThan(0);
    expect(msgs.every((m) => m.livemode === false && m.payload.livemode === false)).toBe(true);
  });

  it('sends the same calls with a live key to the provider, which is unreachable', async () => {
    const created = await t.call(live, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().livemode).toBe(true);
    const tenantId = created.json().id as string;
    const k = await t.call(live, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/credentials/api-key`,
      payload: { apiKey: SANDBOX_API_KEY },
    });
    expect([k.statusCode, k.json().error.code]).toEqual([502, 'provider_unavailable']);
  });

  it("answers a test tenant with the emulator's sandbox behaviours", async () => {
    const tenantId = (await t.call(test, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id as string;
    for (const [apiKey, status, code] of [
      ['sk-expired-000001', 422, 'provider_api_key_expired'],
      ['sk-invalid-000001', 422, 'provider_api_key_invalid'],
      ['sk-unavailable-01', 502, 'provider_unavailable'],
    ] as const) {
      const r = await t.call(test, { method: 'POST', url: `/api/v1/tenants/${tenantId}/credentials/api-key`, payload: { apiKey } });
      expect([apiKey, r.statusCode, r.json().error.code]).toEqual([apiKey, status, code]);
    }
  });

  it("trusts the emulator's CAF key for test tenants only", async () => {
    const emulatorKey = loadOrCreateSiiKey(path.join(dataDir, 'emulator'));
    expect(emulatorKey.idk).toBe(EMULATOR_IDK);
    expect(Object.keys(t.ctx.cafKeys)).not.toContain(String(EMULATOR_IDK));
    expect(Object.keys(t.ctx.testCafKeys)).toContain(String(EMULATOR_IDK));
    const upload = async (key: string) => {
      const tenant = (await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json();
      const caf = createTestCaf({
        sii: { ...emulatorKey, siiKeys: {} },
        rutEmisor: tenant.rutEmpresa,
        fechaAutorizacion: siiDate(new Date()),
        desde: 1,
        hasta: 10,
      });
      const f = certificateForm({}, { data: caf.xml, filename: 'caf.xml' });
      return t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenant.id}/folios/caf`, payload: f.payload, headers: f.headers });
    };
    const asTest = await upload(test);
    expect(asTest.statusCode, asTest.body).toBe(201);
    expect(asTest.json()).toMatchObject({ idk: EMULATOR_IDK, livemode: false });
    const asLive = await upload(live);
    expect([asLive.statusCode, asLive.json().error.code]).toEqual([422, 'caf_unknown_idk']);
  });
});
