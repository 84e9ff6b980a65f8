import { afterAll, beforeAll, expect, it } from 'vitest';
import { PAGE_CSP } from '../../../src/web/shared/headers.ts';
import { sha256Hex } from '../../../src/lib/tokens.ts';
import type { manualClock } from '../../../src/lib/clock.ts';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import { PageClient } from '../../support/page-client.ts';
import { makeCert, modernPfx } from '../../support/pfx.ts';

const PASSWORD = 'Clave-Pfx-9';
const DAY = 86_400_000;

describeEachDb('activation links and the hosted activation page', (backend) => {
  let t: TestApp;
  let key: string;
  let otherKey: string;
  const cert = makeCert({ rut: '12345678-5', commonName: 'Ana Rojas Díaz' });
  const pfx = modernPfx(cert, PASSWORD);

  beforeAll(async () => {
    t = await startTestApp(backend, { manualClock: true, env: { APP_URL: 'https://activar.example.cl', PAGE_RATE_LIMIT_BURST: '1000' } });
    ({ key } = await t.account());
    ({ key: otherKey } = await t.account('Other'));
  });
  afterAll(() => t.close());
  const clock = () => t.clock as ReturnType<typeof manualClock>;

  const newTenant = async () => (await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id as string;
  const newLink = async (tenantId: string) => {
    const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/activation-link` });
    expect(r.statusCode).toBe(201);
    return r.json() as { token: string; url: string; expiresAt: string };
  };
  const path = (token: string) => `/activate/${token}`;
  /** Drives steps 1 and 2 on the page; returns the client positioned on the confirmation page. */
  const throughStep2 = async (token: string, c = new PageClient(t.app)) => {
    await c.get(path(token));
    expect((await c.postForm(`${path(token)}/api-key`, { _csrf: c.csrf(), apiKey: 'sk-sandbox-valid-1234' })).statusCode).toBe(303);
    await c.get(path(token));
    const up = await c.postMultipart(
      `${path(token)}/certificate`,
      { _csrf: c.csrf(), password: PASSWORD },
      { name: 'file', filename: 'firma.pfx', data: pfx },
    );
    expect(up.statusCode).toBe(303);
    await c.get(path(token));
    return c;
  };

  it('creates an act_ link stored only as its SHA-256, valid for 7 days', async () => {
    const tenantId = await newTenant();
    const link = await newLink(tenantId);
    expect(link.token).toMatch(/^act_[A-Za-z0-9_-]{43}$/);
    expect(link.url).toBe(`https://activar.example.cl/activate/${link.token}`);
    expect(Date.parse(link.expiresAt) - t.clock.now().getTime()).toBe(7 * DAY);
    const rows = (await t.tdb.db.query<Record<string, unknown>>('select * from activation_links where tenant_id = $1', [tenantId])).rows;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(sha256Hex(link.token));
    expect(JSON.stringify(rows)).not.toContain(link.token);
    const other = await t.call(otherKey, { method: 'POST', url: `/api/v1/tenants/${tenantId}/activation-link` });
    expect(other.statusCode).toBe(404);
  });

  it('a new link invalidates the pending one', async () => {
    const tenantId = await newTenant();
    const first = await newLink(tenantId);
    const second = await newLink(tenantId);
    const c = new PageClient(t.app);
    expect((await c.get(path(first.token))).statusCode).toBe(410);
    expect(c.last!.body).toContain('Este enlace ya no es válido');
    // Says why, and names who sent it (the account) as the one to ask.
    expect(c.last!.body).toContain('fue reemplazado por uno más reciente');
    expect(c.last!.body).toContain('pídalo a <strong>Test SaaS</strong>');
    expect((await c.get(path(second.token))).statusCode).toBe(200);
    await expect(t.ctx.services.activation.complete(first.token)).rejects.toMatchObject({
      code: 'activation_link_invalidated',
      kind: 'gone',
    });
  });

  it('expires after its lifetime (injected clock)', async () => {
    const tenantId = await newTenant();
    const link = await newLink(tenantId);
    const c = new PageClient(t.app);
    clock().advance(7 * DAY - 1000);
    expect((await c.get(path(link.token))).statusCode).toBe(200);
    clock().advance(1000);
    expect((await c.get(path(link.token))).statusCode).toBe(410);
    expect(c.last!.body).toContain('El enlace de activación venció.');
    expect(c.last!.body).toContain('<strong>Test SaaS</strong>');
    await expect(t.ctx.services.activation.submitApiKey(link.token, 'sk-sandbox-valid-1234')).rejects.toMatchObject({
      code: 'activation_link_expired',
    });
    // Replacing an expired link records it as expired, not invalidated.
    await newLink(tenantId);
    const states = (
      await t.tdb.db.query<{ status: string }>('select status from activation_links where tenant_id = $1 order by created_at', [tenantId])
    ).rows;
    expect(states.map((s) => s.status)).toEqual(['expired', 'pending']);
  });

  it('unknown and malformed tokens get the same page with 404', async () => {
    const c = new PageClient(t.app);
    for (const token of ['act_' + 'A'.repeat(43), 'act_short', 'sk_live_x', '<script>']) {
      const r = await c.get(path(encodeURIComponent(token)));
      expect(r.statusCode).toBe(404);
      expect(r.body).toContain('Este enlace ya no es válido');
      expect(r.body).toContain('no existe');
      expect(r.body).toContain('la empresa que le envió este'); // an unknown token names nobody
      expect(r.body).not.toContain('<script>');
    }
  });

  it('walks through both steps, shows what it read, completes once, and emits the event', async () => {
    const tenantId = await newTenant();
    const link = await newLink(tenantId);
    const c = new PageClient(t.app);
    const page1 = await c.get(path(link.token));
    expect(page1.statusCode).toBe(200);
    expect(page1.body).toContain('<html lang="es">');
    expect(page1.body).toContain('Paso 1 de 3');
    expect(page1.body).toContain('<label for="f-apiKey">');

    // A key the provider refuses: error next to the field, nothing kept.
    const bad = await c.postForm(`${path(link.token)}/api-key`, { _csrf: c.csrf(), apiKey: 'sk-invalid-0000' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toMatch(/id="f-apiKey-error"[^>]*>.*rechazó/s);
    expect(bad.body).toContain('aria-invalid="true"');
    expect(bad.body).not.toContain('sk-invalid-0000');
    const down = await c.postForm(`${path(link.token)}/api-key`, { _csrf: c.csrf(), apiKey: 'sk-unavailable-0' });
    expect(down.statusCode).toBe(502);
    expect(down.body).toContain('No pudimos comunicarnos con el proveedor');

    // Step 1 done → redirect to the page, which now asks for the certificate.
    const ok = await c.postForm(`${path(link.token)}/api-key`, { _csrf: c.csrf(), apiKey: 'sk-sandbox-valid-1234' });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe(path(link.token));
    const page2 = await c.get(path(link.token));
    expect(page2.body).toContain('Paso 2 de 3');
    expect(page2.body).toContain('enctype="multipart/form-data"');

    // Progress is kept server-side: another device (no cookies) lands on step 2 too.
    expect((await new PageClient(t.app, '198.51.100.1').get(path(link.token))).body).toContain('Paso 2 de 3');

    // A wrong password: error next to the password field.
    const wrong = await c.postMultipart(
      `${path(link.token)}/certificate`,
      { _csrf: c.csrf(), password: 'nope' },
      { name: 'file', filename: 'f.pfx', data: pfx },
    );
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toMatch(/id="f-password-error"[^>]*>.*contraseña no corresponde/s);
    const garbage = await c.postMultipart(
      `${path(link.token)}/certificate`,
      { _csrf: c.csrf(), password: 'x' },
      { name: 'file', filename: 'f.pfx', data: Buffer.from('not a pfx') },
    );
    expect(garbage.statusCode).toBe(422);
    expect(garbage.body).toMatch(/id="f-file-error"/);
    const big = await c.postMultipart(
      `${path(link.token)}/certificate`,
      { _csrf: c.csrf(), password: 'x' },
      { name: 'file', filename: 'f.pfx', data: Buffer.alloc(300 * 1024, 1) },
    );
    expect(big.statusCode).toBe(413);
    expect(big.body).toContain('demasiado grande');

    const up = await c.postMultipart(
      `${path(link.token)}/certificate`,
      { _csrf: c.csrf(), password: PASSWORD },
      { name: 'file', filename: 'f.pfx', data: pfx },
    );
    expect(up.statusCode).toBe(303);
    const confirm = await c.get(path(link.token));
    expect(confirm.body).toContain('Paso 3 de 3: revise y confirme');
    expect(confirm.body).toContain('Ana Rojas Díaz');
    expect(confirm.body).toContain('12.345.678-5');

    // Nothing is on the tenant before confirmation.
    let status = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/credentials/status` })).json();
    expect(status.ready).toBe(false);

    const done = await c.postForm(`${path(link.token)}/confirm`, { _csrf: c.csrf() });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('Activación completada');
    status = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/credentials/status` })).json();
    expect(status).toMatchObject({
      apiKey: { configured: true },
      certificates: [{ rutCertificado: '12.345.678-5', nombreTitular: 'Ana Rojas Díaz', esPrincipal: true }],
      ready: true,
    });
    const tenant = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}` })).json();
    expect(tenant.status).toBe('active');
    const ev = (
      await t.tdb.db.query<{ payload: string }>("select payload from outbox_events where event_type = 'tenant.credentials.updated'")
    ).rows
      .map((r) => JSON.parse(r.payload))
      .filter((p) => p.data.tenantId === tenantId);
    expect(ev).toEqual([
      {
        event: 'tenant.credentials.updated',
        timestamp: expect.any(String),
        livemode: true,
        data: { tenantId, apiKey: { configured: true }, certificate: { configured: true } },
      },
    ]);

    // Single use: the page and every form now say the link is no longer valid.
    expect((await c.get(path(link.token))).statusCode).toBe(410);
    expect(c.last!.body).toContain('ya se usó');
    expect((await c.postForm(`${path(link.token)}/confirm`, { _csrf: 'x' })).statusCode).toBe(410);
    expect(c.last!.body).toContain('<strong>Test SaaS</strong>');
    await expect(t.ctx.services.activation.complete(link.token)).rejects.toMatchObject({ code: 'activation_link_completed', kind: 'gone' });
    // Staged secrets moved, none left behind on the link.
    const row = (
      await t.tdb.db.query<Record<string, unknown>>(
        'select status, staged_pfx, api_key_ref, staged_password_ref from activation_links where tenant_id = $1',
        [tenantId],
      )
    ).rows[0]!;
    expect(row).toEqual({ status: 'completed', staged_pfx: null, api_key_ref: null, staged_password_ref: null });
  });

  it('50 concurrent completions of one token: exactly one succeeds', async () => {
    const tenantId = await newTenant();
    const link = await newLink(tenantId);
    await throughStep2(link.token);
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => t.ctx.services.activation.complete(link.token)));
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ kind: 'gone' });
    expect((await t.tdb.db.query('select count(*)::int as n from tenant_certificates where tenant_id = $1', [tenantId])).rows[0]).toEqual({
      n: 1,
    });
    const events = (
      await t.tdb.db.query<{ payload: string }>("select payload from outbox_events where event_type = 'tenant.credentials.updated'")
    ).rows.filter((r) => r.payload.includes(tenantId));
    expect(events).toHaveLength(1);
  });

  it('50 concurrent confirmations over HTTP: one success page, 49 "no longer valid"', async () => {
    const tenantId = await newTenant();
    const link = await newLink(tenantId);
    const c = await throughStep2(link.token);
    const csrf = c.csrf();
    const results = await Promise.all(Array.from({ length: 50 }, () => c.postForm(`${path(link.token)}/confirm`, { _csrf: csrf })));
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(results.filter((r) => r.statusCode === 410)).toHaveLength(49);
  });

  it('refuses forms without the CSRF cookie and token, from another site, or bound to another link', async () => {
    const tenantId = await newTenant();
    const link = await newLink(tenantId);
    const otherLink = await newLink(await newTenant());
    const c = new PageClient(t.app);
    await c.get(path(link.token));
    const token = c.csrf();
    const stranger = new PageClient(t.app);
    expect((await stranger.postForm(`${path(link.token)}/api-key`, { _csrf: token, apiKey: 'sk-sandbox-valid-1234' })).statusCode).toBe(
      403,
    );
    expect((await c.postForm(`${path(link.token)}/api-key`, { _csrf: 'forged', apiKey: 'sk-sandbox-valid-1234' })).statusCode).toBe(403);
    expect((await c.postForm(`${path(link.token)}/api-key`, { apiKey: 'sk-sandbox-valid-1234' })).statusCode).toBe(403);
    expect(
      (
        await c.postForm(
          `${path(link.token)}/api-key`,
          { _csrf: token, apiKey: 'sk-sandbox-valid-1234' },
          { origin: 'https://evil.example' },
        )
      ).statusCode,
    ).toBe(403);
    expect(
      (
        await c.postForm(
          `${path(link.token)}/api-key`,
          { _csrf: token, apiKey: 'sk-sandbox-valid-1234' },
          { 'sec-fetch-site': 'cross-site' },
        )
      ).statusCode,
    ).toBe(403);
    expect((await c.postForm(`${path(otherLink.token)}/api-key`, { _csrf: token, apiKey: 'sk-sandbox-valid-1234' })).statusCode).toBe(403);
    expect((await t.ctx.services.activation.view(link.token)) as { apiKeyVerifiedAt: unknown }).toMatchObject({ apiKeyVerifiedAt: null });
    // The right one works, from the right origin.
    expect(
      (
        await c.postForm(
          `${path(link.token)}/api-key`,
          { _csrf: token, apiKey: 'sk-sandbox-valid-1234' },
          { origin: 'https://activar.example.cl' },
        )
      ).statusCode,
    ).toBe(303);
    // The CSRF cookie is HttpOnly, SameSite=Strict and Secure (APP_URL is https).
    const setCookie = String((await new PageClient(t.app).get(path(link.token))).headers['set-cookie']);
    expect(setCookie).toMatch(/^__Host-csrf=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Secure$/);
  });

  it('sends strict security headers on every page, error page and the stylesheet', async () => {
    const tenantId = await newTenant();
    const link = await newLink(tenantId);
    const c = new PageClient(t.app);
    for (const url of [path(link.token), path('act_unknown'), '/activate/', `${path(link.token)}/nothing-here`]) {
      const r = await c.get(url);
      expect(r.headers['content-security-policy'], url).toBe(PAGE_CSP);
      expect(r.headers['referrer-policy']).toBe('no-referrer');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['cache-control']).toBe('no-store');
      expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(r.body).not.toMatch(/<script|\sstyle=|\son[a-z]+=/i);
    }
    const css = await c.get('/assets/site.css');
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['x-content-type-options']).toBe('nosniff');
  });

  it('an oversized step-1 form gets the step again with a generic message (413)', async () => {
    const link = await newLink(await newTenant());
    const c = new PageClient(t.app);
    await c.get(path(link.token));
    const r = await c.postForm(`${path(link.token)}/api-key`, { _csrf: c.csrf(), apiKey: 'k'.repeat(20_000) });
    expect(r.statusCode).toBe(413);
    expect(r.body).toContain('Paso 1 de 3');
    expect(r.body).toContain('No pudimos procesar la clave');
    expect(r.headers['content-security-policy']).toBe(PAGE_CSP);
  });

  it('asks for step 1 before step 2', async () => {
    const tenantId = await newTenant();
    const link = await newLink(tenantId);
    const c = new PageClient(t.app);
    await c.get(path(link.token));
    const r = await c.postMultipart(
      `${path(link.token)}/certificate`,
      { _csrf: c.csrf(), password: PASSWORD },
      { name: 'file', filename: 'f.pfx', data: pfx },
    );
    expect(r.statusCode).toBe(303);
    expect((await c.get(path(link.token))).body).toContain('Paso 1 de 3');
  });
});

describeEachDb('hosted page rate limit', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { env: { PAGE_RATE_LIMIT_BURST: '3', PAGE_RATE_LIMIT_PER_SECOND: '1' } });
  });
  afterAll(() => t.close());

  it('limits each IP with a 429 page and Retry-After', async () => {
    const a = new PageClient(t.app, '192.0.2.10');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await a.get(path('act_' + 'B'.repeat(43)))).statusCode);
    expect(statuses.slice(0, 3)).toEqual([404, 404, 404]);
    expect(statuses[4]).toBe(429);
    expect(a.last!.headers['retry-after']).toMatch(/^\d+$/);
    expect(a.last!.body).toContain('Demasiados intentos');
    expect(a.last!.headers['content-security-policy']).toBe(PAGE_CSP);
    // Another address is not affected.
    expect((await new PageClient(t.app, '192.0.2.11').get(path('act_' + 'B'.repeat(43)))).statusCode).toBe(404);
  });
  const path = (token: string) => `/activate/${token}`;
});
