import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import { PageClient } from '../../support/page-client.ts';
import { makeCert, modernPfx } from '../../support/pfx.ts';

const PASSWORD = 'Clave-Pfx-9';

/**
 * The hosted activation page for a direct tenant (provider `sii`, docs/credentials.md "A provider
 * per tenant"): no API-key step — the certificate, then the confirmation — and completion with the
 * certificate alone emits tenant.credentials.updated. The page follows the tenant's provider as it
 * is when each step runs.
 */
describeEachDb('the hosted activation page of a direct tenant', (backend) => {
  let t: TestApp;
  let key: string;
  const cert = makeCert({ rut: '12345678-5', commonName: 'Ana Rojas Díaz' });
  const pfx = modernPfx(cert, PASSWORD);

  beforeAll(async () => {
    t = await startTestApp(backend, { env: { APP_URL: 'https://activar.example.cl', PAGE_RATE_LIMIT_BURST: '1000' } });
    ({ key } = await t.account());
  });
  afterAll(() => t.close());

  const newTenant = async (over: Record<string, unknown> = {}) =>
    (await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant(over) })).json().id as string;
  const newLink = async (tenantId: string) => {
    const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/activation-link` });
    expect(r.statusCode).toBe(201);
    return r.json() as { token: string };
  };
  const path = (token: string) => `/activate/${token}`;
  const uploadOnPage = (c: PageClient, token: string) =>
    c.postMultipart(
      `${path(token)}/certificate`,
      { _csrf: c.csrf(), password: PASSWORD },
      { name: 'file', filename: 'firma.pfx', data: pfx },
    );
  const events = async (tenantId: string) =>
    (await t.tdb.db.query<{ payload: string }>("select payload from outbox_events where event_type = 'tenant.credentials.updated'")).rows
      .map((r) => JSON.parse(r.payload) as { event: string; data: { tenantId: string } })
      .filter((p) => p.data.tenantId === tenantId);

  it('skips the API-key step: certificate (step 1 of 2), confirmation (step 2 of 2), then the event', async () => {
    const tenantId = await newTenant({ provider: 'sii' });
    const { token } = await newLink(tenantId);
    const c = new PageClient(t.app);

    const first = await c.get(path(token));
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('Paso 1 de 2: certificado digital');
    expect(first.body).toContain('directamente al SII');
    expect(first.body).not.toContain('name="apiKey"');
    expect(first.body).not.toContain('Clave API');
    // ?paso=1 is the certificate here, never an API-key form.
    expect((await c.get(`${path(token)}?paso=1`)).body).toContain('Paso 1 de 2: certificado digital');

    expect((await uploadOnPage(c, token)).statusCode).toBe(303);
    const confirm = await c.get(path(token));
    expect(confirm.body).toContain('Paso 2 de 2: revise y confirme');
    expect(confirm.body).toContain('El certificado quedará guardado');
    expect(confirm.body).toContain(`href="/activate/${token}?paso=1"`);
    expect(confirm.body).toContain('Ana Rojas Díaz');

    const done = await c.postForm(`${path(token)}/confirm`, { _csrf: c.csrf() });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('Activación completada');
    expect(done.body).toContain('Directo, con su certificado');
    expect(done.body).not.toContain('<dt>Clave API</dt>');

    const status = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/credentials/status` })).json();
    expect(status).toMatchObject({ provider: 'sii', apiKey: { configured: false, required: false }, ready: true, missing: [] });
    expect(status.certificates).toHaveLength(1);
    expect((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}` })).json().status).toBe('active');
    expect(await events(tenantId)).toEqual([
      {
        event: 'tenant.credentials.updated',
        timestamp: expect.any(String),
        livemode: true,
        data: { tenantId, apiKey: { configured: false }, certificate: { configured: true } },
      },
    ]);
    expect((await c.get(path(token))).statusCode).toBe(410);
  });

  it("an API-key form posted to a direct tenant's link keeps nothing and shows the certificate step", async () => {
    const tenantId = await newTenant({ provider: 'sii' });
    const { token } = await newLink(tenantId);
    const c = new PageClient(t.app);
    await c.get(path(token));
    const r = await c.postForm(`${path(token)}/api-key`, { _csrf: c.csrf(), apiKey: 'sk-sandbox-valid-1234' });
    expect(r.statusCode).toBe(303);
    const row = (
      await t.tdb.db.query<{ api_key_ref: string | null }>('select api_key_ref from activation_links where tenant_id = $1', [tenantId])
    ).rows[0]!;
    expect(row.api_key_ref).toBeNull();
    expect((await c.get(path(token))).body).toContain('Paso 1 de 2: certificado digital');
  });

  it('a SimpleAPI tenant still needs the key first; switched to direct mid-way, its page and completion follow', async () => {
    const tenantId = await newTenant();
    const { token } = await newLink(tenantId);
    const c = new PageClient(t.app);
    expect((await c.get(path(token))).body).toContain('Paso 1 de 3: clave API');
    // The certificate before the key is refused through SimpleAPI.
    await expect(t.ctx.services.activation.submitCertificate(token, pfx, PASSWORD)).rejects.toMatchObject({
      code: 'activation_step_order',
    });

    const patched = await t.call(key, { method: 'PATCH', url: `/api/v1/tenants/${tenantId}`, payload: { provider: 'sii' } });
    expect(patched.statusCode).toBe(200);
    expect((await c.get(path(token))).body).toContain('Paso 1 de 2: certificado digital');
    expect((await uploadOnPage(c, token)).statusCode).toBe(303);
    await c.get(path(token));
    expect((await c.postForm(`${path(token)}/confirm`, { _csrf: c.csrf() })).statusCode).toBe(200);
    expect(await events(tenantId)).toHaveLength(1);
    expect((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}` })).json()).toMatchObject({
      provider: 'sii',
      status: 'active',
    });
  });

  it('completing without the certificate is refused for a direct tenant too', async () => {
    const tenantId = await newTenant({ provider: 'sii' });
    const { token } = await newLink(tenantId);
    await expect(t.ctx.services.activation.complete(token)).rejects.toMatchObject({ code: 'activation_incomplete' });
    expect(await events(tenantId)).toEqual([]);
  });
});
