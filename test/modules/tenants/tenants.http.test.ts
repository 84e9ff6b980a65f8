import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';

describeEachDb('tenants over HTTP', (backend) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp(backend);
    ({ key } = await t.account());
  });
  afterAll(() => t.close());

  it('creates, reads, lists and patches a tenant', async () => {
    const created = await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant({ rutEmpresa: '76.192.083-9' }) });
    expect(created.statusCode).toBe(201);
    const tenant = created.json();
    expect(tenant).toMatchObject({ rutEmpresa: '76.192.083-9', status: 'pending_credentials', credentials: { ready: false } });
    expect(tenant.id).toMatch(/^[0-9a-f-]{36}$/);
    const read = await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenant.id}` });
    expect(read.json()).toEqual(tenant);
    const patched = await t.call(key, { method: 'PATCH', url: `/api/v1/tenants/${tenant.id}`, payload: { giro: 'Otro giro' } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().giro).toBe('Otro giro');
    const list = await t.call(key, { method: 'GET', url: '/api/v1/tenants' });
    expect(list.json().data.map((x: { id: string }) => x.id)).toContain(tenant.id);
  });

  it('refuses a second tenant for the same RUT and environment with 409 tenant_exists, on create and on PATCH', async () => {
    const { key: own } = await t.account();
    const first = await t.call(own, { method: 'POST', url: '/api/v1/tenants', payload: validTenant({ rutEmpresa: '96.790.240-3' }) });
    expect(first.statusCode).toBe(201);
    const again = await t.call(own, { method: 'POST', url: '/api/v1/tenants', payload: validTenant({ rutEmpresa: '96790240-3' }) });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'tenant_exists', param: 'rutEmpresa', details: { tenantId: first.json().id } });
    // Another environment is another tenant; moving it onto the first one's is refused.
    const cert = await t.call(own, {
      method: 'POST',
      url: '/api/v1/tenants',
      payload: validTenant({ rutEmpresa: '96.790.240-3', ambiente: 'certificacion' }),
    });
    expect(cert.statusCode).toBe(201);
    const moved = await t.call(own, { method: 'PATCH', url: `/api/v1/tenants/${cert.json().id}`, payload: { ambiente: 'produccion' } });
    expect(moved.statusCode).toBe(409);
    expect(moved.json().error.code).toBe('tenant_exists');
    // Another account may have its own tenant for the same company.
    const { key: other } = await t.account('Otra');
    expect(
      (await t.call(other, { method: 'POST', url: '/api/v1/tenants', payload: validTenant({ rutEmpresa: '96.790.240-3' }) })).statusCode,
    ).toBe(201);
  });

  it.each([
    ['60.803.000-K', 201],
    ['97.975.000-5', 201],
    ['60803000-K', 201],
    ['60.803.000-k', 201],
    ['60.803.000-1', 400],
    ['97.975.000-4', 400],
    ['97975000', 400],
    ['97.975.000-', 400],
    ['abc', 400],
    ['1-9-9', 400],
  ])('rutEmpresa %s → %i', async (rut, status) => {
    // Each in its own account: one account holds one tenant per RUT and environment.
    const { key: own } = await t.account();
    const r = await t.call(own, { method: 'POST', url: '/api/v1/tenants', payload: validTenant({ rutEmpresa: rut }) });
    expect(r.statusCode).toBe(status);
    if (status === 400) {
      expect(r.json().error).toMatchObject({ code: 'invalid_rut', param: 'rutEmpresa' });
      expect(r.json().error.message).toMatch(/check digit|RUT format/);
    } else expect(r.json().rutEmpresa).toMatch(/^\d{1,2}\.\d{3}\.\d{3}-[\dK]$/);
  });

  it('names the missing or unknown field', async () => {
    const { rutEmpresa: _omit, ...noRut } = validTenant();
    const r1 = await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: noRut });
    expect(r1.statusCode).toBe(400);
    expect(r1.json().error).toMatchObject({ code: 'invalid_field', param: 'rutEmpresa' });
    const r2 = await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: { ...validTenant(), razonSocal: 'typo' } });
    expect(r2.json().error).toMatchObject({ code: 'invalid_field', param: 'razonSocal' });
    const r3 = await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant({ fechaResolucion: '2024-02-30' }) });
    expect(r3.json().error).toMatchObject({ code: 'invalid_date', param: 'fechaResolucion' });
    const r4 = await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant({ numeroResolucion: '80' }) });
    expect(r4.json().error).toMatchObject({ code: 'invalid_field', param: 'numeroResolucion' });
  });

  it('paginates newest first over more than one page', async () => {
    const { key: k2 } = await t.account('Pager');
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await t.call(k2, { method: 'POST', url: '/api/v1/tenants', payload: validTenant({ razonSocial: `Empresa ${i}` }) });
      ids.push(r.json().id);
      // Distinct creation times: two creates in one millisecond have no defined order.
      await new Promise((res) => setTimeout(res, 3));
    }
    const seen: string[] = [];
    let iterator: string | null = null;
    let pages = 0;
    do {
      const q: string = iterator ? `?limit=3&iterator=${encodeURIComponent(iterator)}` : '?limit=3';
      const r = await t.call(k2, { method: 'GET', url: `/api/v1/tenants${q}` });
      expect(r.statusCode).toBe(200);
      const body = r.json();
      seen.push(...body.data.map((x: { id: string }) => x.id));
      iterator = body.iterator;
      expect(body.done).toBe(iterator === null);
      pages++;
    } while (iterator);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
    const bad = await t.call(k2, { method: 'GET', url: '/api/v1/tenants?iterator=nonsense' });
    expect(bad.json().error.code).toBe('invalid_iterator');
    const badLimit = await t.call(k2, { method: 'GET', url: '/api/v1/tenants?limit=251' });
    expect(badLimit.json().error).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
  });

  it('keeps accounts apart: another account’s tenant is a 404', async () => {
    const mine = (await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json();
    const { key: other } = await t.account('Other');
    for (const [method, payload] of [
      ['GET', undefined],
      ['PATCH', { giro: 'x' }],
    ] as const) {
      const r = await t.call(other, { method, url: `/api/v1/tenants/${mine.id}`, ...(payload ? { payload } : {}) });
      expect(r.statusCode).toBe(404);
      expect(r.json().error.code).toBe('tenant_not_found');
    }
    const list = await t.call(other, { method: 'GET', url: '/api/v1/tenants' });
    expect(list.json().data).toEqual([]);
  });
});
