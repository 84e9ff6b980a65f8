import { afterAll, beforeAll, expect, it } from 'vitest';
import { manualClock } from '../../../src/lib/clock.ts';
import { allowed, ROLES, rolesFor, type Role } from '../../../src/modules/members/index.ts';
import { ROUTE_ACTIONS } from '../../../src/web/dashboard/http/route-actions.ts';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import { DashboardClient, textOf } from './client.ts';

/**
 * Test mode in the dashboard (issue 29; docs/dashboard.md "Test mode"): the session's switch (a
 * CSRF-checked POST that makes the account's test twin on first use), the strip on every page, the
 * separation of the two modes' data (another mode's object is a 404, as another account's is), the
 * keys of each mode, and the role policy checked for the role AND the mode.
 */
const ENV = { PAGE_RATE_LIMIT_BURST: '100000', LOGIN_RATE_LIMIT_BURST: '1000' };
const PASSWORD = 'una clave bien larga';
const STRIP_ES = 'Modo de prueba: estás viendo datos de prueba; nada llega al SII.';
const STRIP_EN = 'Test mode — you are viewing test data; nothing reaches the SII.';
const REFUSED = 'Tu rol no lo permite';
const ROLE_NAMES_ES: Record<Role, string> = {
  owner: 'Propietario',
  admin: 'Administrador',
  developer: 'Desarrollador',
  operator: 'Operador',
  read_only: 'Solo lectura',
};
const stringify = (o: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, String(v)]));

describeEachDb('dashboard test mode', (backend) => {
  let t: TestApp;
  const clock = manualClock('2026-12-05T11:00:00.000Z');
  let owner: DashboardClient;
  let ownerEmail: string;
  let accountId: string;
  const as: Partial<Record<Role, DashboardClient>> = {};

  const twins = async () =>
    (await t.tdb.db.query<{ id: string }>('select id from accounts where live_account_id = $1', [accountId])).rows.map((r) => r.id);
  const switchTo = async (c: DashboardClient, mode: string, next = '/') => {
    await c.get('/');
    return c.post('/mode', { mode, next });
  };

  /** A member of `role`, through an invitation accepted in a fresh client. */
  async function join(role: Role, ip: string): Promise<DashboardClient> {
    const ownerMember = (await t.ctx.services.members.findLogin(ownerEmail))!;
    const actor = { accountId, memberId: ownerMember.id, email: ownerEmail, role: 'owner' as const };
    const email = `${role}-${Math.random().toString(36).slice(2)}@example.com`;
    const { link } = await t.ctx.services.members.invite(actor, { email, role, inviterName: 'Dueña', lang: 'es' });
    const url = new URL(link);
    const c = new DashboardClient(t.app, ip);
    expect((await c.get(url.pathname + url.search)).statusCode).toBe(200);
    const accepted = await c.post('/invitations/accept', {
      token: url.searchParams.get('token')!,
      name: `Persona ${role}`,
      password: PASSWORD,
    });
    expect(accepted.statusCode, accepted.body.slice(0, 300)).toBe(303);
    await c.get('/');
    return c;
  }

  beforeAll(async () => {
    t = await startTestApp(backend, { env: ENV, clock });
    owner = new DashboardClient(t.app, '198.51.100.60');
    ownerEmail = await owner.signUp('Pruebas SaaS');
    accountId = (await t.ctx.services.accounts.findByEmail(ownerEmail))!.id;
    as.owner = owner;
    for (const [i, role] of (['admin', 'developer', 'operator', 'read_only'] as const).entries())
      as[role] = await join(role, `198.51.100.${70 + i}`);
  });
  afterAll(() => t?.close());

  it('starts in live; switches with a CSRF-checked POST that makes the test twin the first time', async () => {
    const live = await owner.get('/');
    expect(textOf(live.body)).not.toContain(STRIP_ES);
    expect(live.body).toContain('role="switch" aria-checked="false"');
    expect(await twins()).toEqual([]);

    // Refused without the session's token, or from another site: nothing switched, no twin made.
    await owner.get('/');
    const noToken = await owner.post('/mode', { mode: 'test' }, { csrf: null });
    expect(noToken.statusCode).toBe(403);
    expect(textOf(noToken.body)).toContain('El formulario expiró');
    await owner.get('/');
    const crossSite = await owner.post('/mode', { mode: 'test' }, { headers: { origin: 'https://evil.example' } });
    expect(crossSite.statusCode).toBe(403);
    await owner.get('/');
    expect((await owner.post('/mode', { mode: 'sandbox' })).statusCode).toBe(400);
    expect(await twins()).toEqual([]);
    expect(textOf((await owner.get('/')).body)).not.toContain(STRIP_ES);

    // Switching lands on the section of the page it came from; the twin now exists.
    const switched = await switchTo(owner, 'test', '/tenants/5b1b6c1e-0000-4000-8000-000000000000/documents');
    expect(switched.statusCode).toBe(303);
    expect(switched.headers.location).toBe('/tenants');
    expect(await twins()).toHaveLength(1);
    for (const page of ['/', '/tenants', '/webhooks', '/logs/webhooks', '/mailbox', '/settings/api-keys', '/settings/members']) {
      const r = await owner.get(page);
      expect(r.statusCode, page).toBe(200);
      expect(textOf(r.body), page).toContain(STRIP_ES);
      expect(r.body, page).toContain('role="switch" aria-checked="true"');
    }
    expect(textOf((await owner.get('/?lang=en')).body)).toContain(STRIP_EN);
    await owner.get('/?lang=es');
    // The 404 page of the test mode says so too.
    expect(textOf((await owner.get('/tenants/5b1b6c1e-0000-4000-8000-000000000000')).body)).toContain(STRIP_ES);

    // Switching again reuses the same twin; an off-site `next` lands on the overview.
    expect((await switchTo(owner, 'test', '//evil.example/x')).headers.location).toBe('/');
    expect(await twins()).toHaveLength(1);

    // The mode is the session's: another login of the same member starts in live.
    const other = new DashboardClient(t.app, '198.51.100.61');
    expect((await other.logIn(ownerEmail)).statusCode).toBe(303);
    expect(textOf((await other.get('/')).body)).not.toContain(STRIP_ES);
    expect(textOf((await owner.get('/')).body)).toContain(STRIP_ES);

    expect((await switchTo(owner, 'live', '/settings/api-keys')).headers.location).toBe('/settings/api-keys');
    expect(textOf((await owner.get('/')).body)).not.toContain(STRIP_ES);
  });

  it('keeps the modes apart: a test company is not listed in live and its pages are 404 there, and vice versa', async () => {
    await switchTo(owner, 'test');
    await owner.get('/tenants/new');
    const made = await owner.post('/tenants/new', {
      ...stringify(validTenant({ razonSocial: 'Empresa De Prueba SpA' })),
      acteco: '620200',
    });
    expect(made.statusCode, made.body.slice(0, 400)).toBe(303);
    const testTenant = /^\/tenants\/([0-9a-f-]{36})/.exec(made.headers.location as string)![1]!;
    expect(textOf((await owner.get('/tenants')).body)).toContain('Empresa De Prueba SpA');
    expect(textOf((await owner.get('/')).body)).toContain('Empresa De Prueba SpA');
    const testPage = await owner.get(`/tenants/${testTenant}`);
    expect(testPage.statusCode).toBe(200);
    // A test company's page never suggests its documents reach the SII.
    expect(textOf(testPage.body)).toContain('Emulador integrado (modo de prueba: nada llega al SII)');
    expect(textOf(testPage.body)).not.toContain('A través de SimpleAPI');
    // Stored in the twin's scope, not the live account's.
    const [twin] = await twins();
    expect((await t.ctx.services.tenants.list(twin!, { limit: 50 })).data.map((x) => x.id)).toContain(testTenant);
    expect((await t.ctx.services.tenants.list(accountId, { limit: 50 })).data.map((x) => x.id)).not.toContain(testTenant);

    await switchTo(owner, 'live');
    expect(textOf((await owner.get('/tenants')).body)).not.toContain('Empresa De Prueba SpA');
    expect(textOf((await owner.get('/')).body)).not.toContain('Empresa De Prueba SpA');
    for (const page of [
      `/tenants/${testTenant}`,
      `/tenants/${testTenant}/edit`,
      `/tenants/${testTenant}/documents`,
      `/tenants/${testTenant}/credentials`,
    ])
      expect((await owner.get(page)).statusCode, page).toBe(404);
    await owner.get('/');
    expect((await owner.post(`/tenants/${testTenant}/edit`, stringify(validTenant()))).statusCode).toBe(404);

    // And a live company is a 404 in test mode.
    const liveTenant = await t.ctx.services.tenants.create(accountId, validTenant({ razonSocial: 'Empresa Real Ltda' }));
    expect(textOf((await owner.get('/tenants')).body)).toContain('Empresa Real Ltda');
    expect(textOf((await owner.get(`/tenants/${liveTenant.id}`)).body)).not.toContain('Emulador integrado');
    await switchTo(owner, 'test');
    expect(textOf((await owner.get('/tenants')).body)).not.toContain('Empresa Real Ltda');
    expect((await owner.get(`/tenants/${liveTenant.id}`)).statusCode).toBe(404);

    // Webhook endpoints too.
    const endpoint = await t.ctx.services.webhooks.createEndpoint(twin!, { url: 'http://127.0.0.1:9/prueba' });
    expect(textOf((await owner.get('/webhooks')).body)).toContain('http://127.0.0.1:9/prueba');
    expect((await owner.get(`/webhooks/${endpoint.id}`)).statusCode).toBe(200);
    await switchTo(owner, 'live');
    expect(textOf((await owner.get('/webhooks')).body)).not.toContain('http://127.0.0.1:9/prueba');
    expect((await owner.get(`/webhooks/${endpoint.id}`)).statusCode).toBe(404);

    // Members are the account's, the same in both modes.
    const liveMembers = textOf((await owner.get('/settings/members')).body);
    await switchTo(owner, 'test');
    const testMembers = textOf((await owner.get('/settings/members')).body);
    for (const role of ['developer', 'operator', 'read_only']) {
      expect(liveMembers).toContain(`Persona ${role}`);
      expect(testMembers).toContain(`Persona ${role}`);
    }
    await switchTo(owner, 'live');
  });

  it('lists and makes the keys of the session’s mode: sk_test_ in test mode, sk_live_ in live', async () => {
    await switchTo(owner, 'test');
    await owner.get('/settings/api-keys');
    const posted = await owner.post('/settings/api-keys', { name: 'clave de prueba' });
    expect(posted.statusCode).toBe(303);
    const shown = await owner.get(posted.headers.location as string);
    const testKey = /value="(sk_[a-z]+_[A-Za-z0-9_-]{43})"/.exec(shown.body)?.[1];
    expect(testKey).toMatch(/^sk_test_/);
    expect(textOf(shown.body)).toContain('Estas son las claves de prueba');
    const who = await t.ctx.services.apiKeys.authenticate(testKey!);
    expect(who.livemode).toBe(false);
    expect(who.accountId).toBe((await twins())[0]);
    const testKeyId = who.apiKeyId;
    expect(textOf((await owner.get('/settings/api-keys')).body)).toContain(`${testKey!.slice(0, 14)}…`);

    await switchTo(owner, 'live');
    const livePage = await owner.get('/settings/api-keys');
    expect(textOf(livePage.body)).toContain('Estas son las claves reales');
    expect(textOf(livePage.body)).not.toContain('clave de prueba');
    expect(livePage.body).not.toContain('sk_test_');
    // The test key cannot be revoked from live mode: 404, and it still works.
    expect((await owner.get(`/settings/api-keys/${testKeyId}/revoke`)).statusCode).toBe(404);
    await owner.get('/settings/api-keys');
    expect((await owner.post(`/settings/api-keys/${testKeyId}/revoke`)).statusCode).toBe(404);
    expect((await t.ctx.services.apiKeys.authenticate(testKey!)).livemode).toBe(false);

    const livePosted = await owner.post('/settings/api-keys', { name: 'clave real' });
    const liveKey = /value="(sk_[a-z]+_[A-Za-z0-9_-]{43})"/.exec((await owner.get(livePosted.headers.location as string)).body)?.[1];
    expect(liveKey).toMatch(/^sk_live_/);
    expect((await t.ctx.services.apiKeys.authenticate(liveKey!)).accountId).toBe(accountId);

    // Revoked from its own mode, it stops working.
    await switchTo(owner, 'test');
    await owner.get(`/settings/api-keys/${testKeyId}/revoke`);
    expect((await owner.post(`/settings/api-keys/${testKeyId}/revoke`)).statusCode).toBe(303);
    await expect(t.ctx.services.apiKeys.authenticate(testKey!)).rejects.toMatchObject({ code: 'revoked_api_key' });
    await switchTo(owner, 'live');
  });

  it('checks every route for the role AND the mode; a developer does operator work in test mode only', async () => {
    // A developer in live mode is refused company work, and told that test mode allows it.
    const developer = as.developer!;
    const refusedLive = await developer.get('/tenants/new');
    expect(refusedLive.statusCode).toBe(403);
    expect(textOf(refusedLive.body)).toContain('Tu rol (Desarrollador) no permite esta acción');
    expect(textOf(refusedLive.body)).toContain('Tu rol sí puede hacerlo con datos de prueba');
    expect((await switchTo(developer, 'test')).statusCode).toBe(303);
    expect((await developer.get('/tenants/new')).statusCode).toBe(200);
    const made = await developer.post('/tenants/new', {
      ...stringify(validTenant({ razonSocial: 'Prueba Del Desarrollador' })),
      acteco: '620200',
    });
    expect(made.statusCode).toBe(303);

    // Read-only may look at test data but changes nothing there either.
    const readOnly = as.read_only!;
    expect((await switchTo(readOnly, 'test')).statusCode).toBe(303);
    expect(textOf((await readOnly.get('/tenants')).body)).toContain('Prueba Del Desarrollador');
    const refusedTest = await readOnly.get('/tenants/new');
    expect(refusedTest.statusCode).toBe(403);
    for (const needed of ['Propietario', 'Administrador', 'Desarrollador', 'Operador']) expect(textOf(refusedTest.body)).toContain(needed);
    expect(textOf(refusedTest.body)).not.toContain('Tu rol sí puede hacerlo con datos de prueba');

    // Every route, every role, in test mode: refused exactly when the test-mode policy says so.
    let refused = 0;
    for (const role of ROLES) {
      const c = as[role]!;
      await switchTo(c, 'test');
      for (const [key, action] of Object.entries(ROUTE_ACTIONS)) {
        const [method, url] = key.split(' ') as [string, string];
        const path = url.replace(/:(\w+)/g, '5b1b6c1e-0000-4000-8000-00000000000f');
        const res = method === 'GET' ? await c.get(path) : await c.post(path, {}, { csrf: null });
        const text = textOf(res.body);
        const where = `${role}: ${key} (${action})`;
        if (allowed(role, action, 'test')) expect(text, where).not.toContain(REFUSED);
        else {
          refused++;
          expect(res.statusCode, where).toBe(403);
          expect(text, where).toContain(`Tu rol (${ROLE_NAMES_ES[role]})`);
          for (const needed of rolesFor(action, 'test')) expect(text, where).toContain(ROLE_NAMES_ES[needed]);
        }
        // Every page says which data it shows; a download (CSV) is not a page.
        if (res.statusCode !== 303 && String(res.headers['content-type']).startsWith('text/html')) expect(text, where).toContain(STRIP_ES);
      }
      await switchTo(c, 'live');
    }
    expect(refused).toBeGreaterThan(30);

    // The roles table says what test mode adds.
    const table = textOf((await owner.get('/settings/members')).body);
    expect(table).toContain('solo en modo de prueba');
  });
});
