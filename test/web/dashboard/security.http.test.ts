import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import dashboard from '../../../src/web/dashboard/index.ts';
import type { AppContext } from '../../../src/context.ts';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import { DashboardClient, textOf } from './client.ts';

/** Every route of the dashboard plugin, found by registering it on its own (so new routes are covered). */
async function dashboardRoutes(ctx: AppContext): Promise<{ method: string; url: string }[]> {
  const f = Fastify({ logger: false });
  const routes: { method: string; url: string }[] = [];
  f.addHook('onRoute', (r) => {
    for (const m of [r.method].flat()) if (m !== 'HEAD') routes.push({ method: m, url: r.url });
  });
  await f.register(dashboard, { ctx });
  await f.ready();
  await f.close();
  return routes;
}

const ENV = { PAGE_RATE_LIMIT_BURST: '100000', LOGIN_RATE_LIMIT_BURST: '1000' };

describeEachDb('dashboard security', (backend) => {
  let t: TestApp;
  let a: DashboardClient;
  let b: DashboardClient;
  let routes: { method: string; url: string }[];
  let ids: Record<string, string>;
  let accountA: string;
  let keyA: string;

  beforeAll(async () => {
    t = await startTestApp(backend, { env: ENV });
    a = new DashboardClient(t.app, '198.51.100.1');
    b = new DashboardClient(t.app, '198.51.100.2');
    const emailA = await a.signUp('Cuenta A');
    await b.signUp('Cuenta B');
    accountA = (await t.ctx.services.accounts.findByEmail(emailA))!.id;
    const tenant = await t.ctx.services.tenants.create(accountA, validTenant());
    const key = await t.ctx.services.apiKeys.create(accountA, { name: 'A key' });
    keyA = key.key;
    const endpoint = await t.ctx.services.webhooks.createEndpoint(accountA, { url: 'http://127.0.0.1:9/a' });
    const message = await t.ctx.services.webhooks.sendTestEvent(accountA, endpoint.id);
    // A second member of A and a pending invitation, so the members routes are tried with A's ids.
    const ownerA = (await t.ctx.services.members.findLogin(emailA))!;
    const actorA = { accountId: accountA, memberId: ownerA.id, email: ownerA.email, role: ownerA.role };
    const invited = await t.ctx.services.members.invite(actorA, {
      email: 'colega-a@example.com',
      role: 'operator',
      inviterName: 'A',
      lang: 'es',
    });
    const accepted = await t.ctx.services.members.acceptInvitation({
      token: new URL(invited.link).searchParams.get('token')!,
      name: 'Colega A',
      passwordHash: 'scrypt$not-a-login',
    });
    const pending = await t.ctx.services.members.invite(actorA, {
      email: 'pendiente-a@example.com',
      role: 'read_only',
      inviterName: 'A',
      lang: 'es',
    });
    ids = {
      memberId: accepted.member.id,
      invitationId: pending.invitation.id,
      tenantId: tenant.id,
      id: key.id,
      endpointId: endpoint.id,
      messageId: message.id,
      dteId: '5b1b6c1e-0000-4000-8000-000000000000',
    };
    routes = await dashboardRoutes(t.ctx);
  });
  afterAll(() => t.close());

  const fill = (url: string) => url.replace(/:(\w+)/g, (_m, name: string) => ids[name] ?? 'x');
  const posts = () => routes.filter((r) => r.method === 'POST');

  it('finds every state-changing form of the dashboard', () => {
    expect(
      posts()
        .map((r) => r.url)
        .sort(),
    ).toEqual(
      [
        '/login',
        '/logout',
        '/signup',
        '/signup/confirm',
        '/logs/webhooks/:messageId/resend',
        '/mode',
        '/settings/api-keys',
        '/settings/api-keys/:id/revoke',
        '/settings/members/invitations',
        '/settings/members/invitations/:invitationId/revoke',
        '/settings/members/:memberId/role',
        '/settings/members/:memberId/remove',
        '/invitations/accept',
        '/tenants/:tenantId/activation-link',
        '/tenants/:tenantId/certificates/:certificateId/primary',
        '/tenants/:tenantId/certification/books/:kind/send',
        '/tenants/:tenantId/certification/documents',
        '/tenants/:tenantId/certification/send',
        '/tenants/:tenantId/certification/set',
        '/tenants/:tenantId/credentials/api-key',
        '/tenants/:tenantId/credentials/certificate',
        '/tenants/:tenantId/documents/:dteId/credit-note',
        '/tenants/:tenantId/documents/:dteId/resend',
        '/tenants/:tenantId/documents/:dteId/send',
        '/tenants/:tenantId/edit',
        '/tenants/:tenantId/folios/request',
        '/tenants/:tenantId/logo',
        '/tenants/:tenantId/logo/delete',
        '/tenants/new',
        '/webhooks',
        '/webhooks/:endpointId',
        '/webhooks/:endpointId/delete',
        '/webhooks/:endpointId/disable',
        '/webhooks/:endpointId/enable',
        '/webhooks/:endpointId/secret',
        '/webhooks/:endpointId/secret/rotate',
        '/webhooks/:endpointId/test',
      ].sort(),
    );
  });

  it('refuses every POST without the session’s CSRF token, or from another site, with 403 and no effect', async () => {
    await a.get('/');
    const tokenA = a.csrf;
    await b.get('/');
    const tokenB = b.csrf;
    expect(tokenA).not.toBe(tokenB);
    const secretBefore = (await t.ctx.services.webhooks.getSecret(accountA, ids.endpointId!)).secret;
    const messagesBefore = (await t.ctx.services.webhooks.listMessages(accountA, { limit: 100 })).data.length;
    for (const r of posts()) {
      const url = fill(r.url);
      const form = {
        name: 'x',
        email: 'x@example.com',
        password: 'una clave bien larga',
        url: 'http://127.0.0.1:9/b',
        endpointId: ids.endpointId!,
      };
      const cases: [string, Parameters<DashboardClient['post']>[2]][] = [
        ['no token', { csrf: null }],
        ['empty token', { csrf: '' }],
        ["another session's token", { csrf: tokenB }],
        ['token with a wrong character', { csrf: `${tokenA.slice(0, -1)}${tokenA.endsWith('A') ? 'B' : 'A'}` }],
        ['cross-site Origin', { csrf: tokenA, headers: { origin: 'https://evil.example' } }],
        ['Sec-Fetch-Site cross-site', { csrf: tokenA, headers: { 'sec-fetch-site': 'cross-site' } }],
      ];
      for (const [label, opts] of cases) {
        const res = await a.post(url, form, opts);
        expect(res.statusCode, `POST ${r.url} with ${label}`).toBe(403);
        expect(textOf(res.body), `POST ${r.url} with ${label}`).toContain('El formulario expiró');
      }
    }
    // Nothing happened: still logged in, the key works, the endpoint and its secret are unchanged.
    expect((await a.get('/')).statusCode).toBe(200);
    expect((await t.call(keyA, { method: 'GET', url: '/api/v1/account' })).statusCode).toBe(200);
    expect((await t.ctx.services.webhooks.getSecret(accountA, ids.endpointId!)).secret).toBe(secretBefore);
    expect((await t.ctx.services.webhooks.getEndpoint(accountA, ids.endpointId!)).disabled).toBe(false);
    expect((await t.ctx.services.webhooks.listMessages(accountA, { limit: 100 })).data.length).toBe(messagesBefore);
    expect((await t.ctx.services.tenants.list(accountA, { limit: 10 })).data).toHaveLength(1);
    expect((await t.ctx.services.activation.linkStatus(accountA, ids.tenantId!)).state).toBe('none');
  });

  it("answers 404 to another account's ids in every dashboard URL, GET and POST", async () => {
    const withParams = routes.filter((r) => r.url.includes(':') && !r.url.startsWith('/assets/'));
    expect(withParams.length).toBeGreaterThanOrEqual(15);
    for (const r of withParams) {
      const url = fill(r.url);
      const res =
        r.method === 'GET'
          ? await b.get(url)
          : (await b.get('/'), await b.post(url, { endpointId: ids.endpointId!, url: 'http://127.0.0.1:9/x' }));
      expect(res.statusCode, `${r.method} ${r.url} as account B`).toBe(404);
      expect(textOf(res.body)).toContain('No encontrado');
      expect(res.body).not.toMatch(/whsec_[A-Za-z0-9+/]{16}/); // a secret, not the help text's word
    }
    expect((await t.ctx.services.webhooks.getEndpoint(accountA, ids.endpointId!)).disabled).toBe(false);
    expect((await t.call(keyA, { method: 'GET', url: '/api/v1/account' })).statusCode).toBe(200);
  });

  it('sends every page with the security headers and no inline script or style', async () => {
    const pages = routes.filter((r) => r.method === 'GET' && !r.url.startsWith('/assets/') && !r.url.includes('/xml'));
    for (const r of pages) {
      const res = await a.get(fill(r.url));
      const where = `GET ${r.url}`;
      expect([200, 303, 404], where).toContain(res.statusCode);
      const csp = String(res.headers['content-security-policy']);
      expect(csp, where).toContain("default-src 'none'");
      expect(csp, where).toContain("script-src 'self'");
      expect(csp, where).toContain("frame-ancestors 'none'");
      expect(csp, where).not.toContain('unsafe-inline');
      expect(res.headers['referrer-policy'], where).toBe('no-referrer');
      expect(res.headers['x-content-type-options'], where).toBe('nosniff');
      expect(res.headers['cache-control'], where).toBe('no-store');
      expect(res.body, where).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
      expect(res.body, where).not.toMatch(/\sstyle=|\son[a-z]+=/i);
    }
    const asset = routes.find((r) => r.url.endsWith('.js'))!;
    const js = await a.get(asset.url);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toContain('immutable');
  });

  it('requires a login for every page but the login and sign-up ones', async () => {
    const anon = new DashboardClient(t.app, '198.51.100.3');
    for (const r of routes.filter(
      // /signup/confirm is the e-mailed link that logs in, /signup/sent the "check your e-mail" page
      // after a sign-up (their own tests: signup-confirmation.http.test.ts); /invitations/accept is
      // an invitation's link (test/web/dashboard/teams.http.test.ts).
      (x) =>
        x.method === 'GET' &&
        !x.url.startsWith('/assets/') &&
        !['/login', '/signup', '/signup/confirm', '/signup/sent', '/invitations/accept'].includes(x.url),
    )) {
      const res = await anon.get(fill(r.url));
      expect(res.statusCode, r.url).toBe(303);
      expect(res.headers.location, r.url).toMatch(/^\/login(\?next=.+)?$/);
    }
  });

  it('rotates the session id at login (fixation), and a logged-out cookie is refused', async () => {
    const c = new DashboardClient(t.app, '198.51.100.4');
    const email = await c.signUp('Fijación');
    await c.post('/logout');
    expect(c.session()).toBeUndefined();
    // An attacker's pre-login session, planted in the victim's browser:
    await c.get('/login');
    const planted = c.session()!;
    expect(planted).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const res = await c.post('/login', { email, password: 'una clave bien larga' });
    expect(res.statusCode).toBe(303);
    const fresh = c.session()!;
    expect(fresh).not.toBe(planted);
    const asAttacker = await t.app.inject({ method: 'GET', url: '/', cookies: { dte_session: planted } });
    expect(asAttacker.statusCode).toBe(303);
    expect(asAttacker.headers.location).toMatch(/^\/login/);
    expect((await c.get('/')).statusCode).toBe(200);

    const csrf = c.csrf;
    const out = await c.post('/logout');
    expect([out.statusCode, out.headers.location]).toEqual([303, '/login?loggedOut=1']);
    const stale = await t.app.inject({ method: 'GET', url: '/tenants', cookies: { dte_session: fresh } });
    expect([stale.statusCode, stale.headers.location]).toEqual([303, '/login?next=%2Ftenants&expired=1']);
    const replay = await t.app.inject({
      method: 'POST',
      url: '/settings/api-keys',
      cookies: { dte_session: fresh },
      payload: `_csrf=${encodeURIComponent(csrf)}&name=x`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(replay.statusCode).toBe(303);
    expect(replay.headers.location).toMatch(/^\/login/);
  });

  it('sets the session cookie HttpOnly, SameSite=Lax, Path=/ and not Secure over http', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/login' });
    const cookie = res.cookies.find((x) => x.name === 'dte_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie.secure).toBeUndefined();
  });

  it('never redirects after login to another site', async () => {
    const c = new DashboardClient(t.app, '198.51.100.5');
    const email = await c.signUp('Redirect');
    await c.post('/logout');
    for (const next of ['//evil.example/x', 'https://evil.example', '/\\evil.example', '/login']) {
      await c.get(`/login?next=${encodeURIComponent(next)}`);
      const res = await c.post('/login', { email, password: 'una clave bien larga', next });
      expect(res.headers.location, next).toBe('/');
      await c.post('/logout');
    }
    await c.get('/login?next=%2Ftenants%3Flang%3Den');
    expect((await c.post('/login', { email, password: 'una clave bien larga', next: '/tenants?lang=en' })).headers.location).toBe(
      '/tenants?lang=en',
    );
  });
});

describeEachDb('dashboard login rate limit', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, {
      env: { PAGE_RATE_LIMIT_BURST: '100000', LOGIN_RATE_LIMIT_BURST: '5', LOGIN_RATE_LIMIT_WINDOW: '15m' },
    });
  });
  afterAll(() => t.close());

  it('limits login attempts per IP with 429 and Retry-After, with one generic error before that', async () => {
    const owner = new DashboardClient(t.app, '203.0.113.1');
    const email = await owner.signUp('Víctima');
    const attacker = new DashboardClient(t.app, '203.0.113.66');
    await attacker.get('/login');
    const wrongPassword = await attacker.post('/login', { email, password: 'no es la clave' });
    const unknownEmail = await attacker.post('/login', { email: 'nadie@example.com', password: 'no es la clave' });
    expect(wrongPassword.statusCode).toBe(401);
    expect(unknownEmail.statusCode).toBe(401);
    const message = (body: string) => /role="alert"><h2>[^<]*<\/h2><p>([^<]*)<\/p>/.exec(body)?.[1];
    expect(message(wrongPassword.body)).toBe('El correo o la contraseña no son correctos.');
    expect(message(unknownEmail.body)).toBe(message(wrongPassword.body));
    for (let i = 0; i < 3; i++) expect((await attacker.post('/login', { email, password: `intento ${i}` })).statusCode).toBe(401);
    const limited = await attacker.post('/login', { email, password: 'una clave bien larga' });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(60);
    expect(attacker.session()).toBeDefined();
    expect((await attacker.get('/')).statusCode).toBe(303); // still not logged in, even with the right password
    // Another address is not affected.
    const other = new DashboardClient(t.app, '203.0.113.2');
    expect((await other.logIn(email)).statusCode).toBe(303);
  });
});

describe('dashboard over https, and with sign-up turned off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('pglite', { env: { APP_URL: 'https://panel.example.com', SIGNUP_ENABLED: 'false' } });
  });
  afterAll(() => t.close());

  it('uses a Secure __Host- cookie', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/login' });
    const cookie = res.cookies.find((x) => x.name === '__Host-dte_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
  });

  it('has no sign-up page and refuses the form', async () => {
    const c = new DashboardClient(t.app);
    const page = await c.get('/signup');
    expect(page.statusCode).toBe(404);
    expect(page.body).not.toContain('name="password"');
    await c.get('/login');
    c.cookies.set('dte_session', c.cookies.get('__Host-dte_session')!);
    const r = await t.app.inject({
      method: 'POST',
      url: '/signup',
      cookies: { '__Host-dte_session': c.cookies.get('__Host-dte_session')! },
      payload: new URLSearchParams({ _csrf: c.csrf, name: 'X', email: 'nuevo@example.com', password: 'una clave bien larga' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.statusCode).toBe(404);
    expect(await t.ctx.services.accounts.findByEmail('nuevo@example.com')).toBeUndefined();
    expect(textOf((await c.get('/login')).body)).not.toContain('Crear cuenta');
  });
});
