import Fastify from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import dashboard from '../../../src/web/dashboard/index.ts';
import { actionOf, ROUTE_ACTIONS } from '../../../src/web/dashboard/http/route-actions.ts';
import { allowed, createMembersService, ROLES, rolesFor, type Role } from '../../../src/modules/members/index.ts';
import { createMemoryRateLimiter } from '../../../src/lib/rate-limiter.ts';
import type { AppContext } from '../../../src/context.ts';
import { manualClock } from '../../../src/lib/clock.ts';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import { DashboardClient, textOf } from './client.ts';

/**
 * Teams (issue 29; docs/dashboard.md "Members and roles", "Invitations"): the role policy on every
 * dashboard route, for every role; ownership and the last owner; invitations (single use, expiry,
 * existing members, the link shown once); and removal ending a member's sessions.
 */
async function dashboardRoutes(ctx: AppContext): Promise<{ method: string; url: string; public: boolean }[]> {
  const f = Fastify({ logger: false });
  const routes: { method: string; url: string; public: boolean }[] = [];
  f.addHook('onRoute', (r) => {
    const pub = (r.config as { dashboardPublic?: boolean } | undefined)?.dashboardPublic === true;
    for (const m of [r.method].flat()) if (m !== 'HEAD') routes.push({ method: m, url: r.url, public: pub });
  });
  await f.register(dashboard, { ctx });
  await f.ready();
  await f.close();
  return routes;
}

const ENV = { PAGE_RATE_LIMIT_BURST: '100000', LOGIN_RATE_LIMIT_BURST: '1000' };
const PASSWORD = 'una clave bien larga';
const ROLE_NAMES_ES: Record<Role, string> = {
  owner: 'Propietario',
  admin: 'Administrador',
  developer: 'Desarrollador',
  operator: 'Operador',
  read_only: 'Solo lectura',
};

describeEachDb('teams: members, roles and invitations', (backend) => {
  let t: TestApp;
  const clock = manualClock('2026-12-04T12:00:00.000Z');
  let owner: DashboardClient;
  let ownerEmail: string;
  let accountId: string;
  const as: Partial<Record<Role, DashboardClient>> = {};
  const memberIds: Partial<Record<Role, string>> = {};
  let ids: Record<string, string>;
  let routes: Awaited<ReturnType<typeof dashboardRoutes>>;

  /** Invites through the owner's page, reads the link shown once, accepts it in a fresh browser. */
  async function join(role: Role, ip: string): Promise<DashboardClient> {
    const email = `${role}-${Math.random().toString(36).slice(2)}@example.com`;
    await owner.get('/settings/members');
    const posted = await owner.post('/settings/members/invitations', { email, role });
    expect(posted.statusCode, posted.body.slice(0, 300)).toBe(303);
    const page = await owner.get(posted.headers.location as string);
    const link = /value="(http[^"]+\/invitations\/accept\?token=[^"]+)"/.exec(page.body)?.[1];
    expect(link, 'the link is shown to the inviter (no SMTP_URL)').toBeDefined();
    // Shown once: a reload of the same page has no link any more.
    expect((await owner.get(posted.headers.location as string)).body).not.toContain('/invitations/accept?token=');
    const c = new DashboardClient(t.app, ip);
    const path = new URL(link!.replace(/&amp;/g, '&')).pathname + new URL(link!.replace(/&amp;/g, '&')).search;
    const open = await c.get(path);
    expect(open.statusCode).toBe(200);
    expect(textOf(open.body)).toContain(ROLE_NAMES_ES[role]);
    const presented = c.session();
    const accepted = await c.post('/invitations/accept', {
      token: new URL(link!.replace(/&amp;/g, '&')).searchParams.get('token')!,
      name: `Persona ${role}`,
      password: PASSWORD,
    });
    expect(accepted.statusCode, accepted.body.slice(0, 500)).toBe(303);
    // Session fixation: accepting issues a new session id, never the one the browser presented.
    expect(c.session()).toBeDefined();
    expect(c.session()).not.toBe(presented);
    await c.get('/');
    return c;
  }

  beforeAll(async () => {
    t = await startTestApp(backend, { env: ENV, clock });
    owner = new DashboardClient(t.app, '198.51.100.20');
    ownerEmail = await owner.signUp('Equipo SaaS');
    const account = (await t.ctx.services.accounts.findByEmail(ownerEmail))!;
    accountId = account.id;
    as.owner = owner;
    for (const [i, role] of (['admin', 'developer', 'operator', 'read_only'] as const).entries())
      as[role] = await join(role, `198.51.100.${30 + i}`);
    for (const m of await t.ctx.services.members.list({ accountId, memberId: '', email: '', role: 'owner' }))
      if (m.role !== 'owner' || m.email === ownerEmail) memberIds[m.role] = m.id;
    const tenant = await t.ctx.services.tenants.create(accountId, validTenant());
    const key = await t.ctx.services.apiKeys.create(accountId, { name: 'k' });
    const endpoint = await t.ctx.services.webhooks.createEndpoint(accountId, { url: 'http://127.0.0.1:9/a' });
    const message = await t.ctx.services.webhooks.sendTestEvent(accountId, endpoint.id);
    ids = {
      tenantId: tenant.id,
      id: key.id,
      endpointId: endpoint.id,
      messageId: message.id,
      memberId: memberIds.read_only!,
      invitationId: '5b1b6c1e-0000-4000-8000-000000000001',
      dteId: '5b1b6c1e-0000-4000-8000-000000000000',
    };
    routes = await dashboardRoutes(t.ctx);
  });
  afterAll(() => t?.close());

  /** Path parameters filled with this account's ids; a member id is the member's own (its "leave" page). */
  const fill = (url: string, role?: Role) =>
    url.replace(/:(\w+)/g, (_m, name: string) => (name === 'memberId' && role ? memberIds[role]! : (ids[name] ?? 'x')));

  it('names an action for every route that is not public, and lists no route that does not exist', () => {
    const guarded = routes.filter((r) => !r.public && !r.url.startsWith('/assets/'));
    expect(guarded.length).toBeGreaterThanOrEqual(55);
    for (const r of guarded) expect(actionOf(r.method, r.url), `${r.method} ${r.url}`).toBeDefined();
    const real = new Set(routes.map((r) => `${r.method} ${r.url}`));
    for (const key of Object.keys(ROUTE_ACTIONS)) expect(real.has(key), key).toBe(true);
  });

  it('checks the role policy on every dashboard route, for every role (403 page naming the role needed)', async () => {
    const guarded = routes.filter((r) => !r.public && !r.url.startsWith('/assets/'));
    let refused = 0;
    for (const role of ROLES) {
      const c = as[role]!;
      await c.get('/');
      for (const r of guarded) {
        const action = actionOf(r.method, r.url)!;
        const where = `${role}: ${r.method} ${r.url} (${action})`;
        // POSTs go without a CSRF token: an allowed one then stops at the CSRF check (its own 403
        // page, nothing done), a refused one at the role check before it.
        const res = r.method === 'GET' ? await c.get(fill(r.url, role)) : await c.post(fill(r.url, role), {}, { csrf: null });
        const text = textOf(res.body);
        if (allowed(role, action, 'live')) {
          expect(text, where).not.toContain('Tu rol no lo permite');
          if (r.method === 'GET') expect([200, 303, 404], where).toContain(res.statusCode);
          else expect(text, where).toContain('El formulario expiró');
        } else {
          refused++;
          expect(res.statusCode, where).toBe(403);
          expect(text, where).toContain('Tu rol no lo permite');
          expect(text, where).toContain(`Tu rol (${ROLE_NAMES_ES[role]})`);
          for (const needed of rolesFor(action, 'live')) expect(text, where).toContain(ROLE_NAMES_ES[needed]);
        }
      }
    }
    expect(refused).toBeGreaterThan(50);
    // Another member's removal page is for those who manage members.
    const other = await as.developer!.get(`/settings/members/${memberIds.operator}/remove`);
    expect(other.statusCode).toBe(403);
    expect((await as.admin!.get(`/settings/members/${memberIds.operator}/remove`)).statusCode).toBe(200);
    // The navigation leaves out what a role may not open.
    expect((await as.operator!.get('/')).body).not.toContain('href="/settings/api-keys"');
    expect((await as.developer!.get('/')).body).toContain('href="/settings/api-keys"');
    // The refusal is in English on an English page.
    const en = await as.read_only!.get('/tenants/new?lang=en');
    expect(en.statusCode).toBe(403);
    expect(textOf(en.body)).toContain('Your role (Read-only) does not allow this action. It needs the role Owner, Admin or Operator.');
    await as.read_only!.get('/?lang=es');
  });

  it('shows the certification page to every role, its forms only to those who may act (operator and up)', async () => {
    const url = `/tenants/${ids.tenantId}/certification`;
    for (const role of ROLES) {
      const res = await as[role]!.get(url);
      expect(res.statusCode, role).toBe(200);
      const acts = allowed(role, 'documents.manage', 'live');
      expect(res.body.includes(`action="${url}/set"`), role).toBe(acts);
      expect(textOf(res.body).includes('Tu rol solo permite ver esta página.'), role).toBe(!acts);
    }
  });

  it('keeps the last owner: no demotion, no leaving (409); an admin cannot touch owners; an owner hands over', async () => {
    await owner.get('/settings/members');
    const ownerId = (await t.ctx.services.members.findLogin(ownerEmail))!.id;
    const demote = await owner.post(`/settings/members/${ownerId}/role`, { role: 'admin' });
    expect(demote.statusCode).toBe(409);
    expect(textOf(demote.body)).toContain('La cuenta necesita al menos un propietario');
    await owner.get(`/settings/members/${ownerId}/remove`);
    const leave = await owner.post(`/settings/members/${ownerId}/remove`);
    expect(leave.statusCode).toBe(409);
    expect((await owner.get('/')).statusCode).toBe(200);

    // An admin manages the other roles but not ownership.
    const admin = as.admin!;
    await admin.get('/settings/members');
    expect((await admin.post(`/settings/members/${memberIds.read_only}/role`, { role: 'operator' })).statusCode).toBe(303);
    expect((await admin.post(`/settings/members/${memberIds.read_only}/role`, { role: 'read_only' })).statusCode).toBe(303);
    const promote = await admin.post(`/settings/members/${memberIds.developer}/role`, { role: 'owner' });
    expect(promote.statusCode).toBe(403);
    expect(textOf(promote.body)).toContain('Tu rol (Administrador)');
    expect((await admin.post(`/settings/members/${ownerId}/role`, { role: 'read_only' })).statusCode).toBe(403);
    expect((await admin.post(`/settings/members/${ownerId}/remove`)).statusCode).toBe(403);
    const badRole = await admin.post(`/settings/members/${memberIds.read_only}/role`, { role: 'superuser' });
    expect(badRole.statusCode).toBe(400);

    // The owner makes the admin an owner; then may step down, and the new owner is the last one.
    expect((await owner.post(`/settings/members/${memberIds.admin}/role`, { role: 'owner' })).statusCode).toBe(303);
    expect((await owner.post(`/settings/members/${ownerId}/role`, { role: 'admin' })).statusCode).toBe(303);
    // The role is read on every request: the demoted owner is an admin at once.
    expect(textOf((await owner.get('/')).body)).toContain('Administrador');
    await admin.get('/settings/members');
    expect((await admin.post(`/settings/members/${memberIds.admin}/remove`)).statusCode).toBe(409);
    // Back as it was, for the other tests.
    expect((await admin.post(`/settings/members/${ownerId}/role`, { role: 'owner' })).statusCode).toBe(303);
    expect((await owner.post(`/settings/members/${memberIds.admin}/role`, { role: 'admin' })).statusCode).toBe(303);
  });

  it('refuses to invite a member (409 member_exists) or another account’s login (409 email_taken)', async () => {
    await owner.get('/settings/members');
    const member = await owner.post('/settings/members/invitations', { email: ownerEmail.toUpperCase(), role: 'operator' });
    expect(member.statusCode).toBe(409);
    expect(textOf(member.body)).toContain('Esa persona ya es miembro de esta cuenta.');
    const other = new DashboardClient(t.app, '198.51.100.40');
    const otherEmail = await other.signUp('Otra SaaS');
    const taken = await owner.post('/settings/members/invitations', { email: otherEmail, role: 'operator' });
    expect(taken.statusCode).toBe(409);
    const bad = await owner.post('/settings/members/invitations', { email: 'no-es-correo', role: 'operator' });
    expect(bad.statusCode).toBe(400);
    expect(await t.tdb.db.query('select 1 from member_invitations where account_id = $1', [accountId]).then((r) => r.rows.length)).toBe(0);
  });

  it('makes an invitation single-use, stores only its hash, and lets it expire; revoking voids it', async () => {
    const actor = {
      accountId,
      memberId: (await t.ctx.services.members.findLogin(ownerEmail))!.id,
      email: ownerEmail,
      role: 'owner' as const,
    };
    const inv = await t.ctx.services.members.invite(actor, {
      email: 'una-vez@example.com',
      role: 'developer',
      inviterName: 'Dueña',
      lang: 'es',
    });
    const token = new URL(inv.link).searchParams.get('token')!;
    const rows = await t.tdb.db.query<Record<string, unknown>>('select * from member_invitations');
    expect(JSON.stringify(rows.rows)).not.toContain(token);
    const a = new DashboardClient(t.app, '198.51.100.41');
    await a.get(`/invitations/accept?token=${token}`);
    expect((await a.post('/invitations/accept', { token, name: 'Una Vez', password: 'corta' })).statusCode).toBe(400);
    expect((await a.post('/invitations/accept', { token, name: 'Una Vez', password: PASSWORD })).statusCode).toBe(303);
    const again = new DashboardClient(t.app, '198.51.100.42');
    const reused = await again.get(`/invitations/accept?token=${token}`);
    expect(reused.statusCode).toBe(404);
    expect(textOf(reused.body)).toContain('no es válido o ya se usó');
    expect((await again.get('/invitations/accept?token=nada')).statusCode).toBe(404);

    const late = await t.ctx.services.members.invite(actor, {
      email: 'tarde@example.com',
      role: 'operator',
      inviterName: 'Dueña',
      lang: 'es',
    });
    const revoked = await t.ctx.services.members.invite(actor, {
      email: 'anulada@example.com',
      role: 'operator',
      inviterName: 'Dueña',
      lang: 'es',
    });
    await owner.get('/settings/members');
    expect((await owner.post(`/settings/members/invitations/${revoked.invitation.id}/revoke`)).statusCode).toBe(303);
    expect((await again.get(`/invitations/accept?token=${new URL(revoked.link).searchParams.get('token')}`)).statusCode).toBe(404);
    clock.advance(7 * 24 * 3_600_000 + 1000);
    const expired = await again.get(`/invitations/accept?token=${new URL(late.link).searchParams.get('token')}`);
    expect(expired.statusCode).toBe(410);
    expect(textOf(expired.body)).toContain('Invitación vencida');
    expect(await t.ctx.services.members.purgeExpiredInvitations()).toBe(1);
  });

  it('keeps the holder’s login on the account’s e-mail (PATCH /api/v1/account), and refuses another login’s address', async () => {
    const key = await t.ctx.services.apiKeys.create(accountId, { name: 'patch' });
    const memberEmail = (await t.ctx.services.members.list({ accountId, memberId: '', email: '', role: 'owner' })).find(
      (m) => m.role === 'developer',
    )!.email;
    const taken = await t.call(key.key, { method: 'PATCH', url: '/api/v1/account', payload: { email: memberEmail } });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error.code).toBe('email_taken');
    const newEmail = `nuevo-${Math.random().toString(36).slice(2)}@example.com`;
    expect((await t.call(key.key, { method: 'PATCH', url: '/api/v1/account', payload: { email: newEmail } })).statusCode).toBe(200);
    expect((await t.ctx.services.members.findLogin(newEmail))?.role).toBe('owner');
    expect(await t.ctx.services.members.findLogin(ownerEmail)).toBeUndefined();
    // Back as it was, for the other tests.
    expect((await t.call(key.key, { method: 'PATCH', url: '/api/v1/account', payload: { email: ownerEmail } })).statusCode).toBe(200);
    expect((await t.ctx.services.members.findLogin(ownerEmail))?.role).toBe('owner');
    await t.ctx.services.apiKeys.revoke(accountId, key.id);
  });

  it('limits invitations per account (429 invitation_rate_limited with Retry-After)', async () => {
    const members = createMembersService({
      db: t.tdb.db,
      clock,
      settings: { invitationTtlMs: 3_600_000, publicUrl: 'http://x', inviteRateLimit: { perSecond: 1 / 60, burst: 2 } },
      rateLimiter: createMemoryRateLimiter(),
      accountName: async () => 'A',
    });
    const actor = {
      accountId,
      memberId: (await t.ctx.services.members.findLogin(ownerEmail))!.id,
      email: ownerEmail,
      role: 'owner' as const,
    };
    const invite = (n: number) =>
      members.invite(actor, { email: `limite-${n}@example.com`, role: 'operator', inviterName: 'A', lang: 'es' });
    await invite(1);
    await invite(2);
    await expect(invite(3)).rejects.toMatchObject({
      code: 'invitation_rate_limited',
      kind: 'rate_limited',
      retryAfterSeconds: expect.any(Number),
    });
  });

  it('ends a removed member’s sessions at once', async () => {
    // Sessions ended with the clock jump of the previous test: log in again.
    const ro = new DashboardClient(t.app, '198.51.100.43');
    const roEmail = (await t.ctx.services.members.list({ accountId, memberId: '', email: '', role: 'owner' })).find(
      (m) => m.role === 'read_only',
    )!.email;
    expect((await ro.logIn(roEmail)).statusCode).toBe(303);
    expect((await ro.get('/')).statusCode).toBe(200);
    const o = new DashboardClient(t.app, '198.51.100.44');
    expect((await o.logIn(ownerEmail)).statusCode).toBe(303);
    await o.get(`/settings/members/${memberIds.read_only}/remove`);
    expect((await o.post(`/settings/members/${memberIds.read_only}/remove`)).statusCode).toBe(303);
    const after = await ro.get('/');
    expect(after.statusCode).toBe(303);
    expect(after.headers.location).toMatch(/^\/login/);
    expect((await ro.logIn(roEmail)).statusCode).toBe(401);
  });
});
