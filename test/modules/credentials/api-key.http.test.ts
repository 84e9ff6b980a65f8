import crypto from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ProviderError } from '../../../src/provider/port.ts';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import { certificateForm, makeCert, modernPfx, ymd } from '../../support/pfx.ts';

describeEachDb('billing-provider API key, status and events', (backend) => {
  let t: TestApp;
  let key: string;
  let accountId: string;
  // The emulator's sandbox keys, plus one that times out (the emulator has no such key).
  const provider = {
    name: 'emulator' as const,
    async verifyApiKey(apiKey: string) {
      if (apiKey.includes('timeout')) throw new ProviderError('timeout', 'too slow');
      const { emulatorVerifyApiKey } = await import('../../../src/provider/emulator/verify-api-key.ts');
      return emulatorVerifyApiKey(apiKey);
    },
  };

  beforeAll(async () => {
    t = await startTestApp(backend, { provider });
    ({ key, accountId } = await t.account());
  });
  afterAll(() => t.close());

  const newTenant = async () => (await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id as string;
  const setKey = (tenantId: string, apiKey: unknown) =>
    t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/credentials/api-key`, payload: { apiKey } });
  const events = async (tenantId: string) =>
    (
      await t.tdb.db.query<{ payload: string }>(
        "select payload from outbox_events where event_type = 'tenant.credentials.updated' order by created_at",
      )
    ).rows
      .map((r) => JSON.parse(r.payload))
      .filter((p: { data: { tenantId: string } }) => p.data.tenantId === tenantId);

  it('verifies and saves a key; the status and the tenant summary follow', async () => {
    const tenantId = await newTenant();
    const r = await setKey(tenantId, 'sk-sandbox-valid-0001');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ apiKey: { configured: true, lastVerified: expect.stringMatching(/Z$/) } });
    const status = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/credentials/status` })).json();
    expect(status).toEqual({
      provider: 'simpleapi',
      apiKey: { configured: true, lastVerified: r.json().apiKey.lastVerified, required: true },
      certificates: [],
      ready: false,
      missing: ['certificate'],
    });
    const tenant = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}` })).json();
    expect(tenant.credentials.apiKey).toEqual({ configured: true, lastVerified: r.json().apiKey.lastVerified });
    expect(await t.ctx.services.credentials.getProviderApiKey(accountId, tenantId)).toBe('sk-sandbox-valid-0001');
    // Only one credential: no event yet.
    expect(await events(tenantId)).toEqual([]);
  });

  it.each([
    ['sk-invalid-000001', 422, 'provider_api_key_invalid'],
    ['short', 422, 'provider_api_key_invalid'],
    ['sk-expired-000001', 422, 'provider_api_key_expired'],
    ['sk-unavailable-01', 502, 'provider_unavailable'],
    ['sk-timeout-000001', 504, 'provider_timeout'],
  ])('key %s → %i %s, and nothing is saved', async (apiKey, status, code) => {
    const tenantId = await newTenant();
    const r = await setKey(tenantId, apiKey);
    expect(r.statusCode).toBe(status);
    expect(r.json().error.code).toBe(code);
    expect(r.body).not.toContain(apiKey);
    const s = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/credentials/status` })).json();
    expect(s.apiKey).toEqual({ configured: false, lastVerified: null, required: true });
    const refs = (await t.sdb.db.query<{ ref: string }>('select ref from secrets')).rows.map((x) => x.ref);
    expect(refs.some((x) => x.includes(tenantId))).toBe(false);
  });

  it('refuses malformed bodies with 400 naming apiKey', async () => {
    const tenantId = await newTenant();
    for (const payload of [{}, { apiKey: '' }, { apiKey: 'has space' }, { apiKey: 12345678 }, { apiKey: 'x'.repeat(513) }]) {
      const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/credentials/api-key`, payload });
      expect(r.statusCode).toBe(400);
      expect(r.json().error).toMatchObject({ code: 'invalid_field', param: 'apiKey' });
    }
  });

  it('emits tenant.credentials.updated whenever a change leaves both configured, and the tenant becomes active', async () => {
    const tenantId = await newTenant();
    await setKey(tenantId, 'sk-sandbox-valid-0002');
    const cert = makeCert({ rut: '12345678-5' });
    const form = certificateForm(
      { password: 'pw', rutCertificado: '12345678-5', nombreTitular: 'Titular', fechaVencimiento: ymd(cert.notAfter) },
      { data: modernPfx(cert, 'pw') },
    );
    const up = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/credentials/certificate`,
      payload: form.payload,
      headers: form.headers,
    });
    expect(up.statusCode).toBe(201);
    let ev = await events(tenantId);
    expect(ev).toHaveLength(1);
    expect(ev[0]).toEqual({
      event: 'tenant.credentials.updated',
      timestamp: expect.stringMatching(/Z$/),
      livemode: true,
      data: { tenantId, apiKey: { configured: true }, certificate: { configured: true } },
    });
    const tenant = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}` })).json();
    expect(tenant).toMatchObject({ status: 'active', credentials: { ready: true, certificate: { configured: true } } });
    expect((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/credentials/status` })).json().ready).toBe(true);

    // A new key replaces the old one (its secret is deleted) and, both still configured, emits again.
    const oldRefs = (
      await t.sdb.db.query<{ ref: string }>('select ref from secrets where ref like $1', [`tenant/${tenantId}/provider-api-key/%`])
    ).rows;
    await setKey(tenantId, 'sk-sandbox-valid-0003');
    const newRefs = (
      await t.sdb.db.query<{ ref: string }>('select ref from secrets where ref like $1', [`tenant/${tenantId}/provider-api-key/%`])
    ).rows;
    expect(newRefs).toHaveLength(1);
    expect(newRefs[0]!.ref).not.toBe(oldRefs[0]!.ref);
    ev = await events(tenantId);
    expect(ev).toHaveLength(2);

    // Deleting the only certificate leaves one credential: status back to pending, no event.
    const certId = up.json().id;
    await t.call(key, { method: 'DELETE', url: `/api/v1/tenants/${tenantId}/credentials/certificates/${certId}` });
    expect(await events(tenantId)).toHaveLength(2);
    const after = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}` })).json();
    expect(after).toMatchObject({ status: 'pending_credentials', credentials: { ready: false, certificate: { configured: false } } });
  });

  it('hands the issuing module working signing material for the primary certificate', async () => {
    const tenantId = await newTenant();
    const cert = makeCert({ rut: '12345678-5' });
    const pfx = modernPfx(cert, 'clave-firma');
    const form = certificateForm(
      { password: 'clave-firma', rutCertificado: '12.345.678-5', nombreTitular: 'Titular', fechaVencimiento: ymd(cert.notAfter) },
      { data: pfx },
    );
    await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/credentials/certificate`,
      payload: form.payload,
      headers: form.headers,
    });
    const m = await t.ctx.services.credentials.getSigningMaterial(t.ctx.db, accountId, tenantId);
    expect(m.pfx.equals(pfx)).toBe(true);
    expect(m.pfxPassword).toBe('clave-firma');
    expect(m.rutCertificado).toBe('12345678-5');
    expect(m.certificateDer.equals(cert.certificateDer)).toBe(true);
    expect(m.certificatePem).toContain('BEGIN CERTIFICATE');
    expect(m.notAfter.getTime()).toBe(Math.floor(cert.notAfter.getTime() / 1000) * 1000);
    const data = Buffer.from('<SignedInfo/>');
    const sig = crypto.sign('sha1', data, m.privateKey);
    expect(crypto.verify('sha1', data, new crypto.X509Certificate(m.certificateDer).publicKey, sig)).toBe(true);
    // Inside a caller's transaction too.
    const inTx = await t.ctx.db.transaction((tx) => t.ctx.services.credentials.getSigningMaterial(tx, accountId, tenantId));
    expect(inTx.certificateId).toBe(m.certificateId);
    // No certificate: a clear 409.
    const empty = await newTenant();
    await expect(t.ctx.services.credentials.getSigningMaterial(t.ctx.db, accountId, empty)).rejects.toMatchObject({
      code: 'certificate_not_configured',
    });
    await expect(t.ctx.services.credentials.getProviderApiKey(accountId, empty)).rejects.toMatchObject({ code: 'api_key_not_configured' });
  });
});
