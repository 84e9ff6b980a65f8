import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { siiDate } from '../../src/dte/index.ts';
import { describeEachDb } from '../support/db.ts';
import { createTestCaf, createTestSii } from '../support/dte/test-caf.ts';
import {
  CERT_PASSWORD,
  dteBody,
  readyTenant,
  requestFolios,
  SANDBOX_API_KEY,
  startIssuingApp,
  type IssuingApp,
} from '../support/issuing.ts';
import { findings } from '../support/secret-scan.ts';
import { zeroPng } from '../support/zero-png.ts';
import { DashboardClient, textOf } from '../web/dashboard/client.ts';

/**
 * The audit log (issue 29; docs/audit.md) over the real app: a flow through the API and the
 * dashboard (keys, tenant, credentials, activation link, folios requested and uploaded, a document
 * issued and sent, a webhook endpoint's whole life, a member invited and joined) is listed with
 * who did each change and from where; filters and pagination; another account sees none of it;
 * and no secret handed to or made by the flow appears in the events, the table or the CSV.
 */
interface Event {
  id: string;
  action: string;
  actor: { type: string; id: string | null; label: string };
  target: { type: string; id: string | null };
  ip: string | null;
  userAgent: string | null;
  details: Record<string, unknown>;
  livemode: boolean;
  createdAt: string;
}

const PASSWORD = 'una clave bien larga';

describeEachDb('audit log over HTTP', (backend) => {
  let t: IssuingApp;
  let dir: string;
  const own = createTestSii(778);
  let owner: DashboardClient;
  let ownerEmail: string;
  let developerEmail: string;
  let developer: DashboardClient;
  let key: string;
  let prefix: string;
  let other: { key: string };
  const secrets: Record<string, Buffer> = {};

  const api = async (method: string, url: string, payload?: unknown, k = key) => {
    const r = await t.call(k, { method: method as 'GET', url, ...(payload === undefined ? {} : { payload: payload as object }) });
    if (r.statusCode >= 300) throw new Error(`${method} ${url}: ${r.statusCode} ${r.body}`);
    return r.statusCode === 204 ? undefined : r.json();
  };
  /** Every event of the key's account, walking the pages of `limit`. */
  const all = async (query = '', limit = 250, k = key): Promise<Event[]> => {
    const out: Event[] = [];
    let iterator: string | null = null;
    do {
      const qs = new URLSearchParams(query);
      qs.set('limit', String(limit));
      if (iterator) qs.set('iterator', iterator);
      const page = (await api('GET', `/api/v1/audit-events?${qs}`, undefined, k)) as { data: Event[]; iterator: string | null };
      out.push(...page.data);
      iterator = page.iterator;
    } while (iterator);
    return out;
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-caf-'));
    fs.writeFileSync(path.join(dir, 'caf.pem'), own.publicKeyPem);
    t = await startIssuingApp(backend, {
      env: { SII_CAF_KEYS: `778:${path.join(dir, 'caf.pem')}`, PAGE_RATE_LIMIT_BURST: '100000', LOGIN_RATE_LIMIT_BURST: '1000' },
    });
    owner = new DashboardClient(t.app, '198.51.100.20');
    ownerEmail = await owner.signUp('Auditada SpA');
    const accountId = (await t.ctx.services.accounts.findByEmail(ownerEmail))!.id;
    // The first key is made by the service itself (as the CLI would): the system's event.
    const boot = await t.ctx.services.apiKeys.create(accountId, { name: 'boot' });
    key = boot.key;
    prefix = boot.prefix;
    secrets.apiKey = Buffer.from(key);

    const made = await api('POST', '/api/v1/api-keys', { name: 'ci' });
    secrets.secondApiKey = Buffer.from(made.key);
    await api('DELETE', `/api/v1/api-keys/${made.id}`);

    const tenantId = await readyTenant(t, key);
    secrets.pfxPassword = Buffer.from(CERT_PASSWORD);
    secrets.providerApiKey = Buffer.from(SANDBOX_API_KEY);
    const tenant = await api('PATCH', `/api/v1/tenants/${tenantId}`, { razonSocial: 'Auditada Cambiada SpA' });
    const logo = await t.call(key, {
      method: 'PUT',
      url: `/api/v1/tenants/${tenantId}/logo`,
      payload: await zeroPng({ width: 32, height: 32 }),
      headers: { 'content-type': 'image/png' },
    });
    expect(logo.statusCode, logo.body).toBe(200);
    await api('DELETE', `/api/v1/tenants/${tenantId}/logo`);
    const link = await api('POST', `/api/v1/tenants/${tenantId}/activation-link`);
    secrets.activationToken = Buffer.from(link.token);

    await requestFolios(t, key, tenantId, 33, 5);
    const caf = createTestCaf({ sii: own, rutEmisor: tenant.rutEmpresa, tipoDte: 34, fechaAutorizacion: siiDate(new Date()) }).xml;
    const boundary = `----audit${crypto.randomBytes(6).toString('hex')}`;
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="caf.xml"\r\nContent-Type: text/xml\r\n\r\n`),
      caf,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const up = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/folios/caf`,
      payload: body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(up.statusCode, up.body).toBe(201);

    const dte = await api('POST', `/api/v1/tenants/${tenantId}/dte`, dteBody(33, {}, t.clock.now()));
    await api('POST', `/api/v1/tenants/${tenantId}/dte/send`, { dteIds: [dte.id] });

    const endpoint = await api('POST', '/api/v1/webhooks/endpoints', { url: 'http://127.0.0.1:9/hook?token=query-secret-1' });
    secrets.webhookSecret = Buffer.from(endpoint.secret);
    secrets.webhookUrlToken = Buffer.from('query-secret-1');
    secrets.rotatedWebhookSecret = Buffer.from((await api('POST', `/api/v1/webhooks/endpoints/${endpoint.id}/secret/rotate`)).secret);
    await api('PATCH', `/api/v1/webhooks/endpoints/${endpoint.id}`, { description: 'ERP' });
    await api('DELETE', `/api/v1/webhooks/endpoints/${endpoint.id}`);

    // The dashboard: a key made by the owner, a developer invited and joining.
    await owner.get('/settings/api-keys');
    expect((await owner.post('/settings/api-keys', { name: 'from the dashboard' })).statusCode).toBe(303);
    developerEmail = `dev-${crypto.randomBytes(4).toString('hex')}@example.com`;
    await owner.get('/settings/members');
    const invited = await owner.post('/settings/members/invitations', { email: developerEmail, role: 'developer' });
    expect(invited.statusCode).toBe(303);
    const page = await owner.get(invited.headers.location as string);
    const invitation = new URL(/value="(http[^"]+\/invitations\/accept\?token=[^"]+)"/.exec(page.body)![1]!.replace(/&amp;/g, '&'));
    const token = invitation.searchParams.get('token')!;
    secrets.invitationToken = Buffer.from(token);
    developer = new DashboardClient(t.app, '198.51.100.44');
    await developer.get(invitation.pathname + invitation.search);
    const accepted = await developer.post('/invitations/accept', { token, name: 'Dev', password: PASSWORD });
    expect(accepted.statusCode, accepted.body.slice(0, 300)).toBe(303);
    await developer.get('/');

    other = await t.account('Otra');
  }, 240_000);
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists every change of the flow, newest first, with who, from where and in which mode', async () => {
    const events = await all();
    const actions = events.map((e) => e.action);
    for (const a of [
      'api_key.created',
      'api_key.revoked',
      'tenant.created',
      'credential.api_key_set',
      'certificate.uploaded',
      'tenant.updated',
      'tenant.logo_updated',
      'tenant.logo_removed',
      'activation_link.created',
      'folio.requested',
      'folio.caf_uploaded',
      'dte.sent',
      'webhook_endpoint.created',
      'webhook_endpoint.secret_rotated',
      'webhook_endpoint.updated',
      'webhook_endpoint.deleted',
      'member.invited',
      'member.joined',
    ])
      expect(actions, a).toContain(a);
    const times = events.map((e) => e.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    expect(events.every((e) => e.livemode)).toBe(true);

    const byKey = events.find((e) => e.action === 'tenant.created')!;
    expect(byKey.actor).toMatchObject({ type: 'api_key', label: prefix });
    expect(byKey.ip).toBeTruthy();
    const keyEvents = events.filter((e) => e.action === 'api_key.created');
    expect(keyEvents.map((e) => e.actor.type).sort()).toEqual(['api_key', 'member', 'system']);
    expect(keyEvents.find((e) => e.actor.type === 'member')).toMatchObject({ actor: { label: ownerEmail }, ip: '198.51.100.20' });
    expect(events.find((e) => e.action === 'member.invited')).toMatchObject({
      actor: { type: 'member', label: ownerEmail },
      details: { email: developerEmail, role: 'developer' },
    });
    expect(events.find((e) => e.action === 'member.joined')).toMatchObject({
      actor: { type: 'member', label: developerEmail },
      ip: '198.51.100.44',
    });
    expect(events.find((e) => e.action === 'webhook_endpoint.created')!.details.url).toBe('http://127.0.0.1:9/hook');
  });

  it('filters by action, actor and time, and pages without losing or repeating an event', async () => {
    const everything = await all();
    const paged = await all('', 3);
    expect(paged.map((e) => e.id)).toEqual(everything.map((e) => e.id));

    const tenants = await all('action=tenant.');
    expect(tenants.map((e) => e.action).sort()).toEqual(['tenant.created', 'tenant.logo_removed', 'tenant.logo_updated', 'tenant.updated']);
    expect((await all('action=dte.sent')).map((e) => e.action)).toEqual(['dte.sent']);
    const byKey = await all(`actor=${prefix}`);
    expect(byKey.length).toBeGreaterThan(10);
    expect(byKey.every((e) => e.actor.label === prefix)).toBe(true);
    const byOwner = await all(`actor=${encodeURIComponent(ownerEmail.toUpperCase())}`);
    expect(byOwner.map((e) => e.action).sort()).toEqual(['api_key.created', 'member.invited']);

    const middle = everything[Math.floor(everything.length / 2)]!.createdAt;
    const since = await all(`since=${encodeURIComponent(middle)}`);
    const until = await all(`until=${encodeURIComponent(middle)}`);
    expect(since.length + until.length).toBe(everything.length);
    expect(since.every((e) => e.createdAt >= middle) && until.every((e) => e.createdAt < middle)).toBe(true);

    const bad = await t.call(key, { method: 'GET', url: '/api/v1/audit-events?action=drop%20table' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'invalid_audit_filter', param: 'action' });
    expect((await t.call(key, { method: 'GET', url: '/api/v1/audit-events?since=ayer' })).statusCode).toBe(400);
  });

  it("shows another account none of the account's events, whatever the filter", async () => {
    // Its own history is the key it was created with, by the system; nothing of the first account.
    const mine = new Set((await all()).map((e) => e.id));
    const theirs = await all('', 250, other.key);
    expect(theirs.map((e) => [e.action, e.actor.type])).toEqual([['api_key.created', 'system']]);
    expect(theirs.some((e) => mine.has(e.id))).toBe(false);
    expect(await all(`actor=${prefix}`, 250, other.key)).toEqual([]);
    expect(await all('action=tenant.', 250, other.key)).toEqual([]);
    expect((await t.call(undefined, { method: 'GET', url: '/api/v1/audit-events' })).statusCode).toBe(401);
  });

  it('keeps no secret: not in the API answer, the table, or the CSV export', async () => {
    expect(Object.keys(secrets)).toHaveLength(9);
    const listed = Buffer.from(JSON.stringify(await all()));
    const table = await t.ctx.db.query<{ v: string }>('select row_to_json(a)::text as v from audit_events a');
    const rows = Buffer.from(table.rows.map((r) => r.v).join('\n'));
    const csv = await owner.get('/settings/audit.csv');
    expect(csv.statusCode).toBe(200);
    expect(table.rows.length).toBeGreaterThanOrEqual(21);
    expect([
      ...findings(listed, secrets, 'the API'),
      ...findings(rows, secrets, 'audit_events'),
      ...findings(Buffer.from(csv.body), secrets, 'the CSV'),
    ]).toEqual([]);
  });

  it('shows the page with filters and its CSV to an owner and a developer', async () => {
    const page = await owner.get('/settings/audit?action=tenant.');
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain('tenant.created');
    expect(text).not.toContain('dte.sent');
    expect(page.body).toContain('href="/settings/audit.csv?action=tenant.');
    expect((await developer.get('/settings/audit')).statusCode).toBe(200);
    const csv = await developer.get('/settings/audit.csv?action=dte.');
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('id;createdAt;livemode;actorType;actorId;actor;action;targetType;targetId;ip;userAgent;details');
    expect(
      lines
        .slice(1)
        .map((l) => l.split(';')[6])
        .sort(),
    ).toEqual(['dte.sent']);
    const bad = await owner.get('/settings/audit?since=2026-13-45');
    expect(bad.statusCode).toBe(400);
  });
});
