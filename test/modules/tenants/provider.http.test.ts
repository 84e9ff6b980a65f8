import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import { certificateForm, makeCert, modernPfx, ymd } from '../../support/pfx.ts';

/**
 * A provider per tenant (docs/decisions.md §14, docs/credentials.md "A provider per tenant"): `simpleapi`
 * (the default, the contract's flow) or `sii` (straight to the SII, certificate only), on create,
 * PATCH and the tenant object; the credential status, the tenant status and
 * `tenant.credentials.updated` follow what the provider needs.
 */
describeEachDb('a provider per tenant', (backend) => {
  let t: TestApp;
  let key: string;
  let accountId: string;
  const PASSWORD = 'Clave-Pfx-7';
  const cert = makeCert({ rut: '12345678-5', commonName: 'Titular Directo' });
  const pfx = modernPfx(cert, PASSWORD);

  beforeAll(async () => {
    // No worker runs here: a folio request answers 202 pending at once.
    t = await startTestApp(backend, { env: { FOLIO_REQUEST_WAIT: '0' } });
    ({ key, accountId } = await t.account());
  });
  afterAll(() => t.close());

  const create = (over: Record<string, unknown> = {}) =>
    t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant(over) });
  const patch = (id: string, payload: Record<string, unknown>) => t.call(key, { method: 'PATCH', url: `/api/v1/tenants/${id}`, payload });
  const get = async (id: string) => (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${id}` })).json();
  const status = async (id: string) => (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${id}/credentials/status` })).json();
  const uploadCertificate = async (tenantId: string) => {
    const form = certificateForm(
      { password: PASSWORD, rutCertificado: '12.345.678-5', nombreTitular: 'Titular Directo', fechaVencimiento: ymd(cert.notAfter) },
      { data: pfx },
    );
    const r = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/credentials/certificate`,
      payload: form.payload,
      headers: form.headers,
    });
    expect(r.statusCode, r.body).toBe(201);
    return r.json() as { id: string };
  };
  const setApiKey = async (tenantId: string) => {
    const r = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/credentials/api-key`,
      payload: { apiKey: 'sk-sandbox-valid-0042' },
    });
    expect(r.statusCode, r.body).toBe(200);
  };
  const events = async (tenantId: string) =>
    (
      await t.tdb.db.query<{ payload: string }>(
        "select payload from outbox_events where event_type = 'tenant.credentials.updated' order by created_at",
      )
    ).rows
      .map((r) => JSON.parse(r.payload) as { data: { tenantId: string } })
      .filter((p) => p.data.tenantId === tenantId)
      .map((p) => p.data);

  it('is simpleapi by default, sii when asked, shown on create, read and list, and changed by PATCH', async () => {
    const plain = await create();
    expect(plain.statusCode).toBe(201);
    expect(plain.json().provider).toBe('simpleapi');
    const direct = await create({ provider: 'sii' });
    expect(direct.statusCode).toBe(201);
    const d = direct.json();
    expect(d).toMatchObject({ provider: 'sii', status: 'pending_credentials', credentials: { ready: false } });
    expect(await get(d.id)).toEqual(d);
    const list = (await t.call(key, { method: 'GET', url: '/api/v1/tenants' })).json().data as { id: string; provider: string }[];
    expect(list.find((x) => x.id === d.id)?.provider).toBe('sii');
    expect(list.find((x) => x.id === plain.json().id)?.provider).toBe('simpleapi');

    const back = await patch(d.id, { provider: 'simpleapi' });
    expect(back.statusCode).toBe(200);
    expect(back.json().provider).toBe('simpleapi');
    // Another field alone leaves it as it is.
    expect((await patch(d.id, { giro: 'Otro giro' })).json()).toMatchObject({ provider: 'simpleapi', giro: 'Otro giro' });
    const row = await t.tdb.db.query<{ provider: string }>('select provider from tenants where id = $1', [d.id]);
    expect(row.rows[0]!.provider).toBe('simpleapi');
  });

  it.each([['SII'], ['emulator'], [''], [null], [1], [['sii']]])(
    'refuses provider %j with 400 invalid_field naming the allowed values, on create and PATCH',
    async (bad) => {
      const r = await create({ provider: bad });
      expect(r.statusCode).toBe(400);
      expect(r.json().error).toMatchObject({ code: 'invalid_field', param: 'provider' });
      expect(r.json().error.message).toMatch(/simpleapi, sii/);
      const id = (await create()).json().id as string;
      const p = await patch(id, { provider: bad });
      expect(p.statusCode).toBe(400);
      expect(p.json().error).toMatchObject({ code: 'invalid_field', param: 'provider' });
      expect(p.json().error.message).toMatch(/simpleapi, sii/);
      expect((await get(id)).provider).toBe('simpleapi');
    },
  );

  it('the database holds only the two values (check constraint)', async () => {
    const id = (await create()).json().id as string;
    await expect(t.tdb.db.query(`update tenants set provider = 'other' where id = $1`, [id])).rejects.toThrow(/tenants_provider_check/);
  });

  it('credential status says which provider applies and what it still needs', async () => {
    const simple = (await create()).json().id as string;
    const direct = (await create({ provider: 'sii' })).json().id as string;
    expect(await status(simple)).toEqual({
      provider: 'simpleapi',
      apiKey: { configured: false, lastVerified: null, required: true },
      certificates: [],
      ready: false,
      missing: ['apiKey', 'certificate'],
    });
    expect(await status(direct)).toEqual({
      provider: 'sii',
      apiKey: { configured: false, lastVerified: null, required: false },
      certificates: [],
      ready: false,
      missing: ['certificate'],
    });

    const entry = await uploadCertificate(simple);
    await uploadCertificate(direct);
    expect(await status(simple)).toMatchObject({ provider: 'simpleapi', ready: false, missing: ['apiKey'], certificates: [entry] });
    expect(await status(direct)).toMatchObject({ provider: 'sii', ready: true, missing: [] });
    expect(await get(direct)).toMatchObject({ status: 'active', credentials: { ready: true, apiKey: { configured: false } } });
    expect(await get(simple)).toMatchObject({ status: 'pending_credentials', credentials: { ready: false } });
  });

  it("the certificate completes a direct tenant: tenant.credentials.updated, once, with the contract's data", async () => {
    const direct = (await create({ provider: 'sii' })).json().id as string;
    expect(await events(direct)).toEqual([]);
    await uploadCertificate(direct);
    expect(await events(direct)).toEqual([{ tenantId: direct, apiKey: { configured: false }, certificate: { configured: true } }]);
    // Through SimpleAPI the certificate alone completes nothing.
    const simple = (await create()).json().id as string;
    await uploadCertificate(simple);
    expect(await events(simple)).toEqual([]);
  });

  it('a PATCH of provider recomputes the status; one that completes the credentials emits the event, and nothing else moves', async () => {
    const id = (await create()).json().id as string;
    await uploadCertificate(id);
    expect((await get(id)).status).toBe('pending_credentials');

    const direct = await patch(id, { provider: 'sii' });
    expect(direct.json()).toMatchObject({ provider: 'sii', status: 'active', credentials: { ready: true } });
    expect(await events(id)).toEqual([{ tenantId: id, apiKey: { configured: false }, certificate: { configured: true } }]);
    // Already active: patching it again to the same value emits nothing more.
    expect((await patch(id, { provider: 'sii' })).json().status).toBe('active');
    expect(await events(id)).toHaveLength(1);

    // Back to SimpleAPI without a key: pending again, no event; its certificate is still there.
    const back = await patch(id, { provider: 'simpleapi' });
    expect(back.json()).toMatchObject({ provider: 'simpleapi', status: 'pending_credentials', credentials: { ready: false } });
    expect(await events(id)).toHaveLength(1);
    expect((await status(id)).certificates).toHaveLength(1);

    // The key completes it the contract's way.
    await setApiKey(id);
    expect((await get(id)).status).toBe('active');
    expect((await events(id)).at(-1)).toEqual({ tenantId: id, apiKey: { configured: true }, certificate: { configured: true } });
  });

  it("provider credentials: a direct tenant's carry via 'sii' and no API key; SimpleAPI's still need the key", async () => {
    const { credentials } = t.ctx.services;
    const direct = (await create({ provider: 'sii' })).json().id as string;
    await uploadCertificate(direct);
    const creds = await credentials.getProviderCredentials(accountId, direct);
    expect(creds).toMatchObject({ via: 'sii', apiKey: '', pfxPassword: PASSWORD, rutCertificado: '12345678-5' });
    expect(creds.pfx.equals(pfx)).toBe(true);

    const simple = (await create()).json().id as string;
    await uploadCertificate(simple);
    await expect(credentials.getProviderCredentials(accountId, simple)).rejects.toMatchObject({ code: 'api_key_not_configured' });
    await setApiKey(simple);
    expect(await credentials.getProviderCredentials(accountId, simple)).toMatchObject({
      via: 'simpleapi',
      apiKey: 'sk-sandbox-valid-0042',
    });

    // A key stored before the tenant went direct is never handed to the SII path.
    await patch(simple, { provider: 'sii' });
    expect(await credentials.getProviderCredentials(accountId, simple)).toMatchObject({ via: 'sii', apiKey: '' });
  });

  it('a direct tenant with only its certificate passes the readiness gate that needed the API key (folio request)', async () => {
    const direct = (await create({ provider: 'sii', acteco: [620200] })).json().id as string;
    const before = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${direct}/folios/request`,
      payload: { tipoDte: 33, cantidad: 5 },
    });
    expect(before.statusCode).toBe(409);
    expect(before.json().error.code).toBe('tenant_not_ready');
    expect(before.json().error.message).toMatch(/upload its certificate/);
    await uploadCertificate(direct);
    const after = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${direct}/folios/request`,
      payload: { tipoDte: 33, cantidad: 5 },
    });
    expect(after.statusCode, after.body).toBe(202);
    expect(after.json()).toMatchObject({ status: 'pending' });
  });
});
