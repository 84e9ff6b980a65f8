import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../support/app.ts';
import { certificateForm } from '../support/pfx.ts';
import { DashboardClient } from '../web/dashboard/client.ts';
import { errorSerializer } from '../../src/http/log.ts';
import { safeLogContext } from '../../src/lib/log-safe.ts';

/**
 * NUL characters, malformed URLs and a database outage: each answered in the error envelope with
 * its own code, never a 500 (src/http/text-guard.ts, src/http/plugins/errors.ts).
 */
interface Op {
  method: string;
  path: string;
  body: { properties?: Record<string, { type?: string }> } | undefined;
}

describeEachDb('hostile input', (backend) => {
  let t: TestApp;
  let a: { accountId: string; key: string };
  let ops: Op[];
  let tenantA: string;

  beforeAll(async () => {
    t = await startTestApp(backend, {
      env: {
        SIGNUP_ENABLED: 'true',
        RATE_LIMIT_PER_SECOND: '100000',
        RATE_LIMIT_BURST: '100000',
        ACCOUNT_RATE_LIMIT_PER_SECOND: '100000',
        ACCOUNT_RATE_LIMIT_BURST: '100000',
      },
    });
    a = await t.account('A');
    tenantA = (await t.call(a.key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id;
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Op['body'] }> } }>>;
    };
    ops = Object.entries(doc.paths).flatMap(([path, byMethod]) =>
      Object.entries(byMethod).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        body: op.requestBody?.content?.['application/json']?.schema,
      })),
    );
  });
  afterAll(() => t.close());

  const fill = (path: string) =>
    path.replace(/\{(\w+)\}/g, (_m, name: string) =>
      name === 'tenantId' ? tenantA : name === 'tipoDte' ? '33' : '5b1b6c1e-0000-4000-8000-000000000000',
    );

  it('refuses a NUL in every text field of every JSON body with 400 invalid_character naming the field', async () => {
    let checked = 0;
    for (const op of ops) {
      for (const [name, prop] of Object.entries(op.body?.properties ?? {})) {
        if (prop.type !== 'string') continue;
        const r = await t.call(a.key, { method: op.method as 'POST', url: fill(op.path), payload: { [name]: 'before\u0000after' } });
        expect(r.statusCode, `${op.method} ${op.path} ${name}`).toBe(400);
        expect(r.json().error).toMatchObject({ code: 'invalid_character', param: name });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10);
    const nested = await t.call(a.key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantA}/dte`,
      payload: { tipoDte: 33, receptor: { rut: '11111111-1', razonSocial: 'A\u0000' }, detalle: [] },
    });
    expect(nested.json().error).toMatchObject({ code: 'invalid_character', param: 'receptor.razonSocial' });
    const query = await t.call(a.key, { method: 'GET', url: '/api/v1/tenants?status=active%00' });
    expect(query.json().error).toMatchObject({ code: 'invalid_character', param: 'status' });
    const path = await t.call(a.key, { method: 'GET', url: '/api/v1/tenants/%00' });
    expect(path.statusCode).toBe(400);
    expect(path.json().error).toMatchObject({ code: 'invalid_character', param: 'tenantId' });
  });

  const CONTROL = [
    '\u0001start',
    'end\u001b[31m',
    'mid\u007fdle',
    'line\u2028sep',
    'lone \ud800 surrogate',
    'c1 \u0085 next',
    'tab\tand\nnewline',
  ];
  const expectEnvelope = (r: { statusCode: number; json(): { error?: { code?: string; requestId?: string } } }, label: string) => {
    expect(r.statusCode, label).toBeLessThan(500);
    if (r.statusCode >= 400) {
      expect(r.json().error?.code, label).toMatch(/^[a-z_]+$/);
      expect(r.json().error?.requestId, label).toMatch(/^req_/);
    }
  };

  it('never answers 5xx to control characters in any text field, alone or inside a valid body', async () => {
    let checked = 0;
    for (const op of ops)
      for (const [name, prop] of Object.entries(op.body?.properties ?? {})) {
        if (prop.type !== 'string') continue;
        for (const value of CONTROL) {
          const r = await t.call(a.key, { method: op.method as 'POST', url: fill(op.path), payload: { [name]: value } });
          expectEnvelope(r, `${op.method} ${op.path} ${name}=${JSON.stringify(value)}`);
          checked++;
        }
      }
    // Valid bodies with one field changed, so the value reaches the service and the database.
    const valid: [string, string, Record<string, unknown>][] = [
      ['POST', '/api/v1/tenants', validTenant()],
      ['PATCH', '/api/v1/account', { name: 'Cuenta' }],
      ['POST', '/api/v1/api-keys', { name: 'ci' }],
      ['POST', '/api/v1/webhooks/endpoints', { url: 'https://93.184.215.14/hook', description: 'd' }],
    ];
    for (const [method, url, body] of valid)
      for (const [field, v] of Object.entries(body)) {
        if (typeof v !== 'string' || field === 'url') continue;
        for (const value of CONTROL) {
          const r = await t.call(a.key, { method: method as 'POST', url, payload: { ...body, [field]: value } });
          expectEnvelope(r, `${method} ${url} ${field}=${JSON.stringify(value)}`);
          checked++;
        }
      }
    expect(checked).toBeGreaterThan(100);
  });

  it('never answers 5xx to any route with every character of its path percent-encoded, or with over-long parameters', async () => {
    const encodeAll = (p: string) =>
      p
        .split('/')
        .map((seg) => [...Buffer.from(seg, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''))
        .join('/');
    for (const op of ops) {
      const plain = fill(op.path);
      for (const url of [encodeAll(plain), plain.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, (id) => id + 'x'.repeat(520))]) {
        const r = await t.call(a.key, {
          method: op.method as 'POST',
          url,
          ...(op.method === 'POST' || op.method === 'PATCH' ? { payload: {} } : {}),
        });
        expectEnvelope(r, `${op.method} ${url.slice(0, 80)}`);
      }
    }
  });

  it('refuses a NUL in a multipart field and in the dashboard sign-up form, without a 500', async () => {
    const form = certificateForm(
      { password: 'x', nombreTitular: 'Ana\u0000', rutCertificado: '11.111.111-1', fechaVencimiento: '2030-01-01' },
      { data: Buffer.from('x') },
    );
    const r = await t.call(a.key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantA}/credentials/certificate`,
      payload: form.payload,
      headers: form.headers,
    });
    expect(r.statusCode).toBe(400);
    expect(r.json().error).toMatchObject({ code: 'invalid_character', param: 'nombreTitular' });
    const page = new DashboardClient(t.app);
    await page.get('/signup');
    const signup = await page.post('/signup', { name: 'Mallory\u0000', email: 'm@example.com', password: 'a long enough password 123' });
    expect(signup.statusCode).toBeLessThan(500);
  });

  it('answers malformed URLs and over-long path parameters in the error envelope', async () => {
    for (const [url, code] of [
      ['/api/v1/tenants/%E0%A4%A', 'invalid_url'],
      ['/%', 'invalid_url'],
      [`/api/v1/tenants/${'a'.repeat(600)}`, 'path_parameter_too_long'],
      [`/dte/${'x'.repeat(700)}/status`, 'path_parameter_too_long'],
    ] as const) {
      const r = await t.call(a.key, { method: 'GET', url });
      expect(r.statusCode, url).toBe(400);
      expect(r.json().error.code, url).toBe(code);
      expect(r.json().error.requestId).toBe(r.headers['request-id']);
    }
  });

  it('answers 503 database_unavailable with Retry-After while the database cannot be reached', async () => {
    // The very error the PostgreSQL driver raises when nothing listens (a closed port).
    const refused = await new Promise<Error>((resolve) => net.connect(1, '127.0.0.1').on('error', resolve));
    const db = t.ctx.db as { query: unknown; transaction: unknown };
    const { query, transaction } = db;
    db.query = async () => {
      throw refused;
    };
    db.transaction = async () => {
      throw refused;
    };
    try {
      const r = await t.call(a.key, { method: 'GET', url: '/api/v1/account' });
      expect(r.statusCode).toBe(503);
      expect(r.headers['retry-after']).toBe('5');
      expect(r.json().error.code).toBe('database_unavailable');
    } finally {
      db.query = query;
      db.transaction = transaction;
    }
    expect((await t.call(a.key, { method: 'GET', url: '/api/v1/account' })).statusCode).toBe(200);
  });
});

it('never logs what a driver error carries besides its message (parameters, rows)', () => {
  const e = Object.assign(new Error('duplicate key value violates unique constraint'), {
    code: '23505',
    params: ['scrypt$hash-of-a-new-password'],
    query: 'insert into accounts …',
    detail: 'Key (email)=(ana@example.com) already exists.',
  });
  const logged = JSON.stringify(errorSerializer(e));
  expect(logged).toContain('23505');
  expect(logged).not.toMatch(/scrypt|ana@example\.com|insert into/);
  // Background work logs through the same reduction (jobs, periodics, webhook delivery).
  const background = JSON.stringify(safeLogContext({ jobId: 'j1', err: new Error('job failed', { cause: e }) }));
  expect(background).toContain('j1');
  expect(background).toContain('23505');
  expect(background).not.toMatch(/scrypt|ana@example\.com|insert into/);
});
