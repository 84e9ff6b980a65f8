import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import { DashboardClient, textOf } from './client.ts';

/**
 * The dashboard's traps (issue 18): secrets shown once without a reload creating another, every
 * form error at once in the page's language, timestamps with seconds, the favicon, and the
 * account's name on the activation page.
 */
describeEachDb('dashboard polish', (backend) => {
  let t: TestApp;
  let c: DashboardClient;
  let account: string;
  beforeAll(async () => {
    t = await startTestApp(backend);
    c = new DashboardClient(t.app);
    await c.signUp('Facturín SaaS <Ltda>');
    account = (await t.tdb.db.query<{ id: string }>(`select id from accounts where name = 'Facturín SaaS <Ltda>'`)).rows[0]!.id;
  });
  afterAll(() => t.close());

  const allKeys = async () => (await t.ctx.services.apiKeys.list(account, { limit: 250 })).data;

  it('shows a created key to its own session only, once', async () => {
    await c.get('/settings/api-keys');
    const r = await c.post('/settings/api-keys', { name: 'ci' });
    expect(r.statusCode).toBe(303);
    // Another browser of the same account (its own session) follows the same address: no key.
    const other = new DashboardClient(t.app, '198.51.100.8');
    const email = (await t.tdb.db.query<{ email: string }>('select email from accounts where id = $1', [account])).rows[0]!.email;
    expect((await other.logIn(email)).statusCode).toBe(303);
    const elsewhere = await other.get('/settings/api-keys?done=created');
    expect(elsewhere.body).not.toMatch(/sk_live_[A-Za-z0-9_-]{43}/);
    const mine = await c.get('/settings/api-keys?done=created');
    expect(mine.body).toMatch(/value="sk_live_[A-Za-z0-9_-]{43}"/);
    expect((await allKeys()).filter((k) => k.name === 'ci')).toHaveLength(1);
  });

  it('shows every error of the company form at once, in Spanish, beside its field, keeping what was typed', async () => {
    await c.get('/tenants/new');
    const r = await c.post('/tenants/new', {
      rutEmpresa: '76.192.083-1', // wrong check digit
      razonSocial: 'Panadería La Espiga',
      giro: '', // required
      direccion: 'Av. Matta 1020',
      comuna: 'Santiago',
      ciudad: 'Santiago',
      numeroResolucion: 'ochenta',
      fechaResolucion: '2014-02-30',
      acteco: '12, 620200',
      ambiente: 'pruebas',
      email: 'no-es-correo',
    });
    expect(r.statusCode).toBe(400);
    const text = textOf(r.body);
    for (const message of [
      'El RUT no es válido',
      'Completa este campo.',
      'Escribe un número entero entre 0 y 999999',
      'La fecha no es válida',
      'Escribe hasta 4 códigos de 6 dígitos',
      'Elige una de las opciones.',
      'Ese correo electrónico no es válido.',
    ])
      expect(text).toContain(message);
    // No English from the services or the form rules reaches the Spanish page.
    expect(text).not.toMatch(/must|required\b|is not|whole number|check digit/i);
    for (const f of ['rutEmpresa', 'giro', 'numeroResolucion', 'fechaResolucion', 'acteco', 'email']) {
      expect(r.body).toMatch(new RegExp(`id="f-${f}"[^>]*aria-describedby="[^"]*f-${f}-error"[^>]*aria-invalid="true"`));
      expect(r.body).toContain(`<a href="#f-${f}">`); // the summary links to it
    }
    expect(r.body).toMatch(/<select id="f-ambiente" name="ambiente" aria-invalid="true" aria-describedby="f-ambiente-error">/);
    expect(r.body).toContain('value="Panadería La Espiga"');
    expect(r.body).toContain('value="ochenta"');
    expect(r.body).toContain('value="no-es-correo"');
    expect((await t.ctx.services.tenants.list(account, { limit: 50 })).data).toHaveLength(0);

    // The same form in English: English messages, all of them.
    const en = await c.post('/tenants/new?lang=en', {
      rutEmpresa: '',
      razonSocial: '',
      giro: 'x',
      direccion: 'x',
      comuna: 'x',
      ciudad: 'x',
      numeroResolucion: '1',
      fechaResolucion: '2020-01-01',
    });
    expect(en.statusCode).toBe(400);
    await c.get('/?lang=es');
    expect(textOf(en.body).match(/Fill in this field\./g)).toHaveLength(4); // in the summary and beside each field
  });

  it('shows every error of the webhook form at once, in Spanish', async () => {
    await c.get('/webhooks');
    const r = await c.post('/webhooks', { url: '', description: 'x'.repeat(501), signatureScheme: 'md5' });
    expect(r.statusCode).toBe(400);
    const text = textOf(r.body);
    expect(text).toContain('Completa este campo.');
    expect(text).toContain('Puede tener como máximo 500 caracteres.');
    expect(text).toContain('Elige una de las opciones.');
    expect(text).not.toMatch(/must|one of:/);
    // A rule only the service knows (the URL policy) is shown in Spanish too.
    const scheme = await c.post('/webhooks', { url: 'ftp://example.com/hook' });
    expect(textOf(scheme.body)).toContain('La URL debe comenzar con https://');
  });

  it('shows every sign-up error at once', async () => {
    const anon = new DashboardClient(t.app, '198.51.100.9');
    await anon.get('/signup');
    const r = await anon.post('/signup', { name: ' ', email: 'nadie', password: 'corta' });
    expect(r.statusCode).toBe(400);
    const text = textOf(r.body);
    expect(text).toContain('Escribe un nombre.');
    expect(text).toContain('Ese correo electrónico no es válido.');
    expect(text).toContain('La contraseña debe tener al menos 10 caracteres.');
    expect(r.body).toContain('value="nadie"');
  });

  it('writes timestamps with seconds, dates without a time', async () => {
    const tenant = await t.ctx.services.tenants.create(account, validTenant({ razonSocial: 'Reloj SpA' }));
    const page = await c.get('/tenants');
    expect(textOf(page.body)).toMatch(/\d{2}-\d{2}-\d{4}, \d{2}:\d{2}:\d{2}/);
    const one = await c.get(`/tenants/${tenant.id}`);
    expect(textOf(one.body)).toMatch(/Fecha de resolución 22-08-2014 Códigos/); // a date, no time
  });

  it('keeps RUTs on one line', async () => {
    const tenant = await t.ctx.services.tenants.create(account, validTenant({ razonSocial: 'Rut Largo SpA' }));
    const list = await c.get('/tenants');
    expect(list.body).toContain(`<span class="rut">${tenant.rutEmpresa}</span>`);
    const css = await t.app.inject({ method: 'GET', url: '/assets/site.css' });
    expect(css.body).toMatch(/\.rut \{\s*white-space: nowrap;/);
  });

  it('serves the favicon without a session or an API key, and every page links it', async () => {
    for (const [url, type] of [
      ['/assets/favicon.svg', 'image/svg+xml'],
      ['/favicon.ico', 'image/x-icon'],
    ] as const) {
      const r = await t.app.inject({ method: 'GET', url });
      expect([r.statusCode, r.headers['content-type']]).toEqual([200, type]);
      expect(r.headers['cache-control']).toBe('public, max-age=86400');
    }
    expect((await t.app.inject({ method: 'GET', url: '/favicon.ico' })).rawPayload.readUInt16LE(2)).toBe(1); // an ICO
    const link = '<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">';
    expect((await c.get('/')).body).toContain(link);
    expect((await new DashboardClient(t.app, '198.51.100.10').get('/login')).body).toContain(link);
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.body).toContain(link);
  });

  it('names the account asking for the credentials, and the company with its RUT, on the activation page', async () => {
    const tenant = await t.ctx.services.tenants.create(account, validTenant({ razonSocial: 'Panadería <b>Espiga</b>' }));
    const link = await t.ctx.services.activation.createLink(account, tenant.id);
    const page = await t.app.inject({ method: 'GET', url: `/activate/${link.token}` });
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body).replace(/\s+([,.)])/g, '$1');
    expect(text).toContain(`Solicitado por Facturín SaaS <Ltda>, para la empresa Panadería <b>Espiga</b> (RUT ${tenant.rutEmpresa})`);
    expect(page.body).toContain('Facturín SaaS &lt;Ltda&gt;'); // escaped, never markup
    expect(page.body).not.toContain('<b>Espiga</b>');
    expect(page.body).toContain(`<span class="rut">${tenant.rutEmpresa}</span>`);
    // A replaced link says whom to ask for a new one.
    await t.ctx.services.activation.createLink(account, tenant.id);
    const old = await t.app.inject({ method: 'GET', url: `/activate/${link.token}` });
    expect(old.statusCode).toBe(410);
    expect(textOf(old.body)).toContain('pídalo a Facturín SaaS <Ltda>');
  });
});
