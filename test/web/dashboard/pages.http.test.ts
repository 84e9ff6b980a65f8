import { afterAll, beforeAll, expect, it } from 'vitest';
import { manualClock } from '../../../src/lib/clock.ts';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import { DashboardClient, textOf } from './client.ts';
import { makeCert, modernPfx } from '../../support/pfx.ts';

describeEachDb('dashboard pages', (backend) => {
  let t: TestApp;
  let c: DashboardClient;
  let email: string;
  const clock = manualClock(new Date());
  beforeAll(async () => {
    t = await startTestApp(backend, { clock });
    c = new DashboardClient(t.app);
    email = await c.signUp('Contadores Unidos');
  });
  afterAll(() => t.close());

  it('shows the overview with the empty states, in Spanish by default', async () => {
    const r = await c.get('/');
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    const text = textOf(r.body);
    expect(text).toContain('Resumen');
    expect(text).toContain('Aún no tienes empresas.');
    expect(text).toContain('Contadores Unidos');
  });

  it('switches to English with ?lang=en and remembers it in a cookie', async () => {
    const r = await c.get('/?lang=en');
    expect(textOf(r.body)).toContain('Overview');
    expect(r.body).toContain('<html lang="en">');
    expect(c.cookies.get('dte_lang')).toBe('en');
    expect(textOf((await c.get('/tenants')).body)).toContain('Companies');
    await c.get('/?lang=es');
    expect(textOf((await c.get('/tenants')).body)).toContain('Empresas');
  });

  it('creates, shows and edits a tenant, with errors naming the field', async () => {
    await c.get('/tenants/new');
    const bad = await c.post('/tenants/new', { ...stringify(validTenant({ rutEmpresa: '76.192.083-1' })) });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('aria-invalid="true"');
    expect(textOf(bad.body)).toContain('El RUT no es válido');
    expect(bad.body).toContain('value="Servicios Ejemplo SpA"'); // the form keeps what was typed

    const ok = await c.post('/tenants/new', {
      ...stringify(validTenant({ rutEmpresa: '76.192.083-9', razonSocial: 'Panadería <b>La Espiga</b>' })),
      acteco: '620200, 631100',
    });
    expect(ok.statusCode).toBe(303);
    const url = ok.headers.location as string;
    expect(url).toMatch(/^\/tenants\/[0-9a-f-]{36}\?done=created$/);
    const page = await c.get(url);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Panadería &lt;b&gt;La Espiga&lt;/b&gt;');
    expect(page.body).not.toContain('<b>La Espiga</b>');
    expect(textOf(page.body)).toContain('Empresa creada.');
    expect(textOf(page.body)).toContain('620200, 631100');
    expect(textOf(page.body)).toContain('Aún no se ha generado ningún enlace.');

    const id = url.split('/')[2]!.split('?')[0]!;
    // The same company again (same RUT and environment): refused, naming the field, nothing created.
    await c.get('/tenants/new');
    const twice = await c.post('/tenants/new', { ...stringify(validTenant({ rutEmpresa: '76.192.083-9' })), acteco: '620200' });
    expect(twice.statusCode).toBe(409);
    expect(textOf(twice.body)).toContain('Ya tienes una empresa con ese RUT en ese ambiente');
    const edit = await c.get(`/tenants/${id}/edit`);
    expect(edit.body).toContain('value="76.192.083-9"');
    const saved = await c.post(`/tenants/${id}/edit`, {
      ...stringify(validTenant({ rutEmpresa: '76.192.083-9', giro: 'Panadería artesanal' })),
      ambiente: 'certificacion',
    });
    expect(saved.statusCode).toBe(303);
    const api = await t.ctx.services.tenants.get(c_account(), id);
    expect([api.giro, api.ambiente]).toEqual(['Panadería artesanal', 'certificacion']);
    expect(textOf((await c.get('/tenants')).body)).toContain('Servicios Ejemplo SpA');
  });

  it('switches the primary certificate from the company page, through the same service as the API', async () => {
    const tenant = await t.ctx.services.tenants.create(c_account(), validTenant());
    const add = async (esPrincipal: boolean) => {
      const cert = makeCert({ rut: '11111111-1', commonName: 'María Pérez' });
      return t.ctx.services.credentials.addCertificate(c_account(), tenant.id, {
        file: modernPfx(cert, 'clave'),
        password: 'clave',
        rutCertificado: '11111111-1',
        nombreTitular: 'María Pérez',
        fechaVencimiento: cert.notAfter.toISOString().slice(0, 10),
        esPrincipal,
      });
    };
    const first = await add(false);
    const second = await add(false);
    const page = await c.get(`/tenants/${tenant.id}`);
    const action = `/tenants/${tenant.id}/certificates/${second.id}/primary`;
    expect(page.body).toContain(`action="${action}"`);
    expect(page.body).not.toContain(`/certificates/${first.id}/primary`); // already primary: no button
    const r = await c.post(action);
    expect(r.statusCode).toBe(303);
    expect(r.headers.location).toBe(`/tenants/${tenant.id}?done=primary#credentials`);
    expect(textOf((await c.get(`/tenants/${tenant.id}?done=primary`)).body)).toContain('Certificado principal cambiado');
    const certs = (await t.ctx.services.credentials.status(c_account(), tenant.id)).certificates;
    expect(Object.fromEntries(certs.map((x) => [x.id, x.esPrincipal]))).toEqual({ [first.id]: false, [second.id]: true });
  });

  it('generates an activation link shown once (POST, 303, a GET a reload cannot repeat), then reports it pending, expired, and invalidated', async () => {
    const tenant = await t.ctx.services.tenants.create(c_account(), validTenant());
    const before = await c.get(`/tenants/${tenant.id}`);
    expect(before.body).toContain(`action="/tenants/${tenant.id}/activation-link"`); // no link yet: a direct POST
    const r = await c.post(`/tenants/${tenant.id}/activation-link`);
    expect([r.statusCode, r.headers.location]).toEqual([303, `/tenants/${tenant.id}?done=link#activation`]);
    expect(r.body).not.toContain('/activate/act_');
    const shown = await c.get(`/tenants/${tenant.id}?done=link`);
    const link = /value="(http[^"]+\/activate\/act_[A-Za-z0-9_-]{43})"/.exec(shown.body)?.[1];
    expect(link).toBeDefined();
    expect(shown.body).toContain('data-copy="activation-url"');
    expect(shown.headers['cache-control']).toBe('no-store');
    // A reload of the result page: no new link, the one copied still works, and it is not shown again.
    const reload = await c.get(`/tenants/${tenant.id}?done=link`);
    expect(reload.body).not.toContain('/activate/act_');
    expect(textOf(reload.body)).toContain('El enlace ya se mostró');
    expect((await t.ctx.services.activation.view(link!.split('/activate/')[1]!)).state).toBe('pending');
    const again = await c.get(`/tenants/${tenant.id}`);
    expect(again.body).not.toContain('/activate/act_');
    expect(textOf(again.body)).toContain('Pendiente');
    // A pending link is replaced only through the confirmation page.
    expect(again.body).not.toContain(`action="/tenants/${tenant.id}/activation-link"`);
    expect(again.body).toContain(`href="/tenants/${tenant.id}/activation-link"`);
    clock.advance(8 * 86_400_000);
    // Eight days later the dashboard session has expired too: log in again.
    expect((await c.get(`/tenants/${tenant.id}`)).headers.location).toMatch(/^\/login\?next=.*&expired=1$/);
    expect((await c.logIn(email)).statusCode).toBe(303);
    expect(textOf((await c.get(`/tenants/${tenant.id}`)).body)).toContain('Expirado');
    clock.advance(-8 * 86_400_000);
    // The old link is replaced by a new one, after the confirmation page.
    const confirm = await c.get(`/tenants/${tenant.id}/activation-link`);
    expect(confirm.statusCode).toBe(200);
    expect(textOf(confirm.body)).toContain('El enlace pendiente que ya enviaste dejará de funcionar');
    const second = await c.post(`/tenants/${tenant.id}/activation-link`);
    expect(second.statusCode).toBe(303);
    const secondLink = /\/activate\/(act_[A-Za-z0-9_-]{43})/.exec((await c.get(second.headers.location as string)).body)?.[1];
    expect(secondLink).toBeDefined();
    expect(secondLink).not.toBe(link?.split('/activate/')[1]);
    const view = await t.ctx.services.activation.view(link!.split('/activate/')[1]!);
    expect(view.state).toBe('invalidated');
  });

  it('creates an API key shown once (a reload creates no other), lists it by prefix, and revokes it after a confirmation', async () => {
    await c.get('/settings/api-keys');
    const count = async () => (await t.ctx.services.apiKeys.list(c_account(), { limit: 250 })).data.length;
    const before = await count();
    const r = await c.post('/settings/api-keys', { name: 'producción' });
    expect([r.statusCode, r.headers.location]).toEqual([303, '/settings/api-keys?done=created#new-key']);
    expect(r.body).not.toContain('sk_live_');
    const shown = await c.get('/settings/api-keys?done=created');
    const key = /value="(sk_live_[A-Za-z0-9_-]{43})"/.exec(shown.body)?.[1];
    expect(key).toBeDefined();
    expect(await count()).toBe(before + 1);
    // Reloading the result page creates nothing and shows the key no more.
    const reload = await c.get('/settings/api-keys?done=created');
    expect(reload.body).not.toContain(key!);
    expect(textOf(reload.body)).toContain('La clave ya se mostró');
    expect(await count()).toBe(before + 1);
    expect((await t.call(key!, { method: 'GET', url: '/api/v1/account' })).statusCode).toBe(200);
    const list = await c.get('/settings/api-keys');
    expect(list.body).not.toContain(key!);
    expect(list.body).toContain(`${key!.slice(0, 14)}…`);
    const keyId = (await t.ctx.services.apiKeys.list(c_account(), { limit: 10 })).data.find((k) => k.name === 'producción')!.id;
    // The list links to a confirmation page; opening it revokes nothing.
    expect(list.body).toContain(`href="/settings/api-keys/${keyId}/revoke"`);
    expect(list.body).not.toContain(`action="/settings/api-keys/${keyId}/revoke"`);
    const confirm = await c.get(`/settings/api-keys/${keyId}/revoke`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain(`action="/settings/api-keys/${keyId}/revoke"`);
    expect(textOf(confirm.body)).toContain('dejarán de funcionar de inmediato');
    expect((await t.call(key!, { method: 'GET', url: '/api/v1/account' })).statusCode).toBe(200);
    const revoked = await c.post(`/settings/api-keys/${keyId}/revoke`);
    expect([revoked.statusCode, revoked.headers.location]).toEqual([303, '/settings/api-keys?done=revoked']);
    const refused = await t.call(key!, { method: 'GET', url: '/api/v1/account' });
    expect([refused.statusCode, refused.json().error.code]).toEqual([401, 'revoked_api_key']);
    expect(textOf((await c.get('/settings/api-keys?done=revoked')).body)).toContain('Clave revocada.');
    expect((await c.get(`/settings/api-keys/${keyId}/revoke`)).statusCode).toBe(404);
  });

  it('manages webhook endpoints: create, edit events, disable, reveal and rotate the secret, test, delete', async () => {
    await c.get('/webhooks');
    const bad = await c.post('/webhooks', { url: 'ftp://example.com/hook', filterTypes: ['folio.low'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('value="ftp://example.com/hook"');
    const created = await c.post('/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      description: 'ERP',
      filterTypes: ['folio.low', 'dte.status.changed'],
    });
    expect(created.statusCode).toBe(303);
    const id = /\/webhooks\/([0-9a-f-]{36})/.exec(created.headers.location as string)![1]!;
    const page = await c.get(`/webhooks/${id}`);
    expect(page.body).not.toMatch(/whsec_[A-Za-z0-9+/]{16}/); // a secret, not the help text's word
    expect(textOf(page.body)).toContain('folio.low, dte.status.changed');

    const edited = await c.post(`/webhooks/${id}`, {
      url: 'http://127.0.0.1:9/hook2',
      description: '',
      filterTypes: 'tenant.credentials.updated',
      signatureScheme: 'standard-webhooks',
    });
    expect(edited.statusCode).toBe(303);
    const ep = await t.ctx.services.webhooks.getEndpoint(c_account(), id);
    expect([ep.url, ep.filterTypes, ep.description, ep.signatureScheme]).toEqual([
      'http://127.0.0.1:9/hook2',
      ['tenant.credentials.updated'],
      null,
      'standard-webhooks',
    ]);

    await c.get(`/webhooks/${id}`);
    const reveal = await c.post(`/webhooks/${id}/secret`);
    expect([reveal.statusCode, reveal.headers.location]).toEqual([303, `/webhooks/${id}?done=secret#secret`]);
    const shown = await c.get(`/webhooks/${id}?done=secret`);
    const secret = /value="(whsec_[A-Za-z0-9+/=]+)"/.exec(shown.body)?.[1];
    expect(secret).toBe((await t.ctx.services.webhooks.getSecret(c_account(), id)).secret);
    expect(shown.headers['cache-control']).toBe('no-store');
    expect((await c.get(`/webhooks/${id}?done=secret`)).body).not.toMatch(/whsec_[A-Za-z0-9+/]{16}/); // a secret, not the help text's word
    // Rotating goes through a confirmation page, then shows the new secret once.
    expect(shown.body).toContain(`href="/webhooks/${id}/secret/rotate"`);
    const confirm = await c.get(`/webhooks/${id}/secret/rotate`);
    expect(textOf(confirm.body)).toContain('El secreto actual deja de firmar de inmediato');
    expect((await t.ctx.services.webhooks.getSecret(c_account(), id)).secret).toBe(secret);
    const rotate = await c.post(`/webhooks/${id}/secret/rotate`);
    expect([rotate.statusCode, rotate.headers.location]).toEqual([303, `/webhooks/${id}?done=rotated#secret`]);
    const rotated = await c.get(rotate.headers.location as string);
    expect(textOf(rotated.body)).toContain('Secreto rotado');
    const newSecret = /value="(whsec_[A-Za-z0-9+/=]+)"/.exec(rotated.body)?.[1];
    expect(newSecret).toBeDefined();
    expect(newSecret).not.toBe(secret);
    expect(newSecret).toBe((await t.ctx.services.webhooks.getSecret(c_account(), id)).secret);

    const test = await c.post(`/webhooks/${id}/test`, { eventType: 'folio.low' });
    expect(test.statusCode).toBe(303);
    const msgUrl = test.headers.location as string;
    expect(msgUrl).toMatch(/^\/logs\/webhooks\/[0-9a-f-]{36}\?done=tested$/);
    const msg = await c.get(msgUrl);
    expect(textOf(msg.body)).toContain('folio.low');
    const log = await c.get(`/logs/webhooks?endpointId=${id}`);
    expect(log.body).toContain(msgUrl.split('?')[0]!);
    const resend = await c.post(`${msgUrl.split('?')[0]}/resend`, { endpointId: id });
    expect(resend.statusCode).toBe(303);

    expect((await c.post(`/webhooks/${id}/disable`)).statusCode).toBe(303);
    expect((await t.ctx.services.webhooks.getEndpoint(c_account(), id)).disabled).toBe(true);
    expect((await c.post(`/webhooks/${id}/enable`)).statusCode).toBe(303);
    expect((await t.ctx.services.webhooks.getEndpoint(c_account(), id)).disabled).toBe(false);

    expect((await c.get(`/webhooks/${id}/delete`)).statusCode).toBe(200);
    const del = await c.post(`/webhooks/${id}/delete`);
    expect([del.statusCode, del.headers.location]).toEqual([303, '/webhooks?done=deleted']);
    expect((await c.get(`/webhooks/${id}`)).statusCode).toBe(404);
  });

  it('lists documents of a tenant when issuing is available, and answers 404 for an unknown one', async () => {
    const tenant = await t.ctx.services.tenants.create(c_account(), validTenant());
    const r = await c.get(`/tenants/${tenant.id}/documents?status=accepted&tipoDte=33`);
    expect(r.statusCode).toBe(200);
    expect((await c.get(`/tenants/${tenant.id}/documents/5b1b6c1e-0000-4000-8000-000000000000`)).statusCode).toBe(404);
  });

  let accountId: string | undefined;
  function c_account(): string {
    if (!accountId) throw new Error('account not known yet');
    return accountId;
  }
  beforeAll(async () => {
    const row = await t.tdb.db.query<{ id: string }>(`select id from accounts where name = 'Contadores Unidos'`);
    accountId = row.rows[0]!.id;
  });
});

const stringify = (o: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, String(v)]));
