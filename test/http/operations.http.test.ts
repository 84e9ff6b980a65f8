import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../support/db.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { readyTenant, requestFolios, startIssuingApp, type IssuingApp } from '../support/issuing.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { enqueue } from '../../src/jobs/queue.ts';

/** Parses Prometheus text: every sample line as {name, labels, value}; throws on a line it cannot read. */
function parseExposition(text: string) {
  const samples: { name: string; labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

describeEachDb('operations endpoints', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { env: { RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '1' } });
  });
  afterAll(() => t.close());

  it('/healthz answers 200 without a key, many times over (no rate limit)', async () => {
    for (let i = 0; i < 20; i++) {
      const r = await t.app.inject({ method: 'GET', url: '/healthz' });
      expect(r.statusCode).toBe(200);
      expect(r.json()).toEqual({ status: 'ok' });
    }
  });

  it('/readyz answers 200 when both databases have every migration', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ status: 'ready' });
  });

  it('/readyz answers 503 with Retry-After and the error envelope while a migration is missing', async () => {
    const [last] = (await t.tdb.db.query<{ name: string }>('select name from schema_migrations order by name desc limit 1')).rows;
    await t.tdb.db.query('delete from schema_migrations where name = $1', [last!.name]);
    try {
      const r = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(r.statusCode).toBe(503);
      expect(r.headers['retry-after']).toBe('5');
      expect(r.json()).toEqual({
        error: {
          code: 'migrations_pending',
          message: expect.stringContaining('migration'),
          details: { check: 'database', pending: [last!.name] },
          requestId: r.headers['request-id'],
        },
      });
    } finally {
      await t.tdb.db.query('insert into schema_migrations (name) values ($1)', [last!.name]);
    }
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });

  it('the OpenAPI document does not list the operations endpoints', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => /healthz|readyz|metrics/.test(p))).toEqual([]);
  });
});

describe('/readyz with its database gone', () => {
  it('answers 503 database_unavailable while /healthz still answers 200, and logs no error or warning for it', async () => {
    const lines: { level: number; msg?: string }[] = [];
    const stream = { write: (l: string) => void lines.push(JSON.parse(l) as { level: number }) };
    const t = await startTestApp('pglite', { logger: { level: 'info', stream } });
    try {
      await t.sdb.db.close();
      const r = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(r.statusCode).toBe(503);
      expect(r.headers['retry-after']).toBe('5');
      expect(r.json().error).toMatchObject({ code: 'database_unavailable', details: { check: 'secrets_database' } });
      expect(r.body).not.toMatch(/PGlite|closed/i);
      expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      // Probes are logged at warn and above only, and a not-ready answer is neither.
      expect(lines.filter((l) => l.level >= 40)).toEqual([]);
      expect(lines.filter((l) => JSON.stringify(l).includes('/readyz'))).toEqual([]);
    } finally {
      await t.app.close();
      await t.tdb.close();
    }
  });
});

describe('/metrics settings', () => {
  it('is off by default in production mode, and on there once METRICS_TOKEN is set', async () => {
    const off = await startTestApp('pglite', { env: { NODE_ENV: 'production' } });
    try {
      expect((await off.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
      expect((await off.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await off.close();
    }
  });

  it('with METRICS_TOKEN, answers 401 without the token or with a wrong one, and the text with it', async () => {
    const token = 'metrics-token-0123456789abcdef';
    const t = await startTestApp('pglite', { env: { NODE_ENV: 'production', METRICS_TOKEN: token } });
    try {
      const none = await t.app.inject({ method: 'GET', url: '/metrics' });
      expect(none.statusCode).toBe(401);
      expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(none.json().error.code).toBe('metrics_token_required');
      const wrong = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}x` } });
      expect(wrong.statusCode).toBe(401);
      const ok = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(ok.body).not.toContain(token);
    } finally {
      await t.close();
    }
  });
});

describeEachDb('/metrics after a small flow', (backend) => {
  let t: IssuingApp;
  let r: WebhookReceiver;
  let key: string;
  let accountEmail: string;
  let tenantId: string;
  beforeAll(async () => {
    r = await startWebhookReceiver();
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
    accountEmail = (await t.call(key, { method: 'GET', url: '/api/v1/account' })).json().email as string;
    tenantId = await readyTenant(t, key);
    await requestFolios(t, key, tenantId, 33, 20);
    const headers = { 'content-type': 'application/json' };
    const ep = (await t.call(key, { method: 'POST', url: '/api/v1/webhooks/endpoints', payload: { url: r.url }, headers })).json() as {
      id: string;
      secret: string;
    };
    r.secret = ep.secret;
    const msg = (await t.call(key, { method: 'POST', url: `/api/v1/webhooks/endpoints/${ep.id}/test`, payload: {} })).json() as {
      id: string;
    };
    await r.waitFor((all) => all.some((d) => d.webhookId === msg.id), 30_000);
    // A job nobody handles in this process: it stays due, so the queue has depth and age.
    await enqueue(t.ctx.db, 'ops.test', {});
    await new Promise((res) => setTimeout(res, 300));
  });
  afterAll(async () => {
    await t?.close();
    await r?.close();
  });

  it('has every named series, non-zero, labelled by route pattern and ids only', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    const samples = parseExposition(res.body);
    const find = (name: string, labels: Record<string, string> = {}) =>
      samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

    const tenantRoute = find('dte_http_request_duration_seconds_count', {
      route: '/api/v1/tenants/:tenantId/folios/request',
      method: 'POST',
    });
    expect(tenantRoute.length).toBeGreaterThan(0);
    expect(tenantRoute[0]!.labels.status_class).toBe('2xx');
    expect(find('dte_jobs_queue_depth', { queue: 'ops.test' })[0]?.value).toBe(1);
    expect(find('dte_jobs_oldest_ready_age_seconds', { queue: 'ops.test' })[0]?.value).toBeGreaterThan(0);
    expect(find('dte_webhook_deliveries_total', { outcome: 'succeeded' })[0]?.value).toBeGreaterThanOrEqual(1);
    const calls = find('dte_provider_calls_total');
    expect(calls.reduce((n, s) => n + s.value, 0)).toBeGreaterThan(0);
    expect(calls.map((s) => s.labels.operation)).toContain('/api/folios/get/:n/:n');
    expect(res.body).toContain('# TYPE dte_provider_rate_limited_total counter');
    expect(find('dte_folios_left', { tenant_id: tenantId, tipo_dte: '33' })[0]?.value).toBe(20);

    // No URL with an id, no key, no e-mail, no RUT in any label.
    const labelValues = samples.flatMap((s) => Object.values(s.labels));
    expect(labelValues.filter((v) => v.includes(tenantId) && v !== tenantId)).toEqual([]);
    expect(res.body).not.toContain(key);
    expect(res.body).not.toContain(key.slice(0, 12));
    expect(res.body).not.toContain(accountEmail);
    expect(res.body).not.toMatch(/sk_live_|whsec_|act_[A-Za-z0-9]|@example\.com/);
    expect(res.body).not.toMatch(/\b\d{1,2}\.?\d{3}\.?\d{3}-[\dkK]\b/);
    for (const s of samples.filter((x) => x.labels.route)) expect(s.labels.route).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
  });

  it('labels unmatched requests as such, not by their URL', async () => {
    await t.app.inject({ method: 'GET', url: '/no/such/path/sk_live_abcdef' });
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.body).toContain('route="unmatched"');
    expect(res.body).not.toContain('/no/such/path');
  });
});
