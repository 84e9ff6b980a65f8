import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../support/db.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { curlSample, exampleOf, transformOpenApi, type OpenApiDocument } from '../../src/http/openapi.ts';
import { responseExample } from '../../src/http/openapi-examples.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

type Op = {
  responses: Record<string, { description?: string; content?: Record<string, { schema?: { $ref?: string }; example?: unknown }> }>;
  security?: Record<string, string[]>[];
  'x-codeSamples'?: { lang: string; source: string }[];
};

describeEachDb('API reference at /docs and the OpenAPI document', (backend) => {
  let t: TestApp;
  let doc: {
    paths: Record<string, Record<string, Op>>;
    components: Record<string, Record<string, unknown>>;
    tags: { name: string; description: string }[];
  };
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((m) => ({ path, method: m, op: item[m]! })));

  beforeAll(async () => {
    t = await startTestApp(backend);
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  });
  afterAll(() => t.close());

  it('/docs leads to an HTML page whose scripts and styles all come from this app, with a CSP', async () => {
    const bare = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(bare.statusCode).toBe(301);
    expect(bare.headers.location).toBe('/docs/');
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-eval');
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    // Every inline script carries this response's nonce; no source or link leaves the app.
    for (const tag of page.body.match(/<script[^>]*>/g) ?? []) expect(tag).toContain(`nonce="${nonce}"`);
    const sources = [...page.body.matchAll(/<(?:script|link|img)\b[^>]*\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThan(0);
    for (const s of sources) expect(s).not.toMatch(/^(https?:)?\/\//);
    expect(page.body).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
    const second = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(second.headers['content-security-policy']).not.toBe(csp);

    for (const s of sources) {
      const asset = await t.app.inject({ method: 'GET', url: new URL(s, 'http://x/docs/').pathname });
      expect(asset.statusCode).toBe(200);
      if (s.endsWith('.svg')) {
        // The favicon the dashboard and activation pages share.
        expect(asset.headers['content-type']).toMatch(/^image\/svg\+xml/);
        continue;
      }
      expect(asset.headers['content-type']).toMatch(/javascript/);
      expect(asset.body.length).toBeGreaterThan(100_000);
    }
    expect(sources.some((s) => /scalar/.test(s))).toBe(true);
  });

  it('describes every response, with errors in the shared Error schema and their codes', () => {
    expect(JSON.stringify(doc)).not.toContain('Default Response');
    expect(doc.components.schemas!.Error).toBeDefined();
    for (const { path, method, op } of operations()) {
      for (const [status, res] of Object.entries(op.responses)) {
        expect(res.description, `${method} ${path} ${status}`).toMatch(/\w/);
        if (/^[45]/.test(status)) expect(res.content?.['application/json']?.schema?.$ref).toBe('#/components/schemas/Error');
      }
    }
    const create = doc.paths['/api/v1/tenants']!.post!;
    expect(create.responses['201']!.description).toBe('Created.');
    expect(create.responses['401']!.description).toContain('`invalid_api_key`');
    expect(create.responses['429']!.description).toContain('`rate_limited`');
    // Codes a route names in its description are listed on that status's response.
    const issue = doc.paths['/api/v1/tenants/{tenantId}/dte']!.post!;
    expect(issue.responses['409']!.description).toContain('This route: `tenant_not_ready`, `folios_exhausted`.');
    expect(issue.responses['422']!.description).toContain('`amount_mismatch`');
  });

  it('declares bearerAuth and applies it to every /api/v1 operation', () => {
    expect(doc.components.securitySchemes).toEqual({ bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }) });
    const api = operations().filter((o) => o.path.startsWith('/api/v1/'));
    expect(api.length).toBeGreaterThan(20);
    for (const { op } of api) expect(op.security).toEqual([{ bearerAuth: [] }]);
  });

  it('gives every tag a description and every operation a generated curl sample', () => {
    expect(doc.tags.length).toBeGreaterThan(5);
    for (const tag of doc.tags) expect(tag.description).not.toMatch(/^Operations on/);
    for (const { path, method, op } of operations()) {
      const curl = op['x-codeSamples']?.find((c) => c.lang === 'Shell')?.source ?? '';
      expect(curl, `${method} ${path}`).toContain(`curl -X ${method.toUpperCase()} "`);
      if (path.startsWith('/api/v1/')) expect(curl).toContain('-H "Authorization: Bearer $KEY"');
      expect(curl.split('\n')[0]).not.toMatch(/[{}]/);
    }
    // The body comes from the request schema's examples (required fields).
    const issue = doc.paths['/api/v1/tenants/{tenantId}/dte']!.post!['x-codeSamples']![0]!.source;
    expect(issue).toContain('"http://127.0.0.1:3000/api/v1/tenants/<tenantId>/dte"');
    expect(issue).toContain('"tipoDte": 33');
    expect(issue).toContain('"nombre": "Servicio de soporte"');
  });

  it('gives every operation a TypeScript SDK sample beside curl (compiled in test/tooling/sdk-samples.test.ts)', () => {
    for (const { path, method, op } of operations()) {
      const ts = op['x-codeSamples']?.find((c) => c.lang === 'TypeScript')?.source ?? '';
      expect(ts, `${method} ${path}`).toContain("from '@dte-service/sdk'");
      expect(ts).toMatch(new RegExp(`dte\\.(${method}|paginate)\\('${path.replace(/[{}]/g, '\\$&')}'`));
      expect(ts).not.toMatch(/Idempotency-Key: \$/);
    }
    const list = doc.paths['/api/v1/tenants']!.get!['x-codeSamples']!.find((c) => c.lang === 'TypeScript')!.source;
    expect(list).toContain("for await (const item of dte.paginate('/api/v1/tenants'");
    const pdf = doc.paths['/api/v1/tenants/{tenantId}/dte/{dteId}/pdf']!.get!['x-codeSamples']!.find(
      (c) => c.lang === 'TypeScript',
    )!.source;
    expect(pdf).toContain("parseAs: 'arrayBuffer'");
  });

  it('shows an example for every success response, with every field given a plausible value that fits its schema', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    (addFormats as unknown as (a: Ajv) => void)(ajv);
    const schemas = doc.components.schemas as Record<string, Record<string, unknown>>;
    let checked = 0;
    for (const { path, method, op } of operations()) {
      for (const [status, res] of Object.entries(op.responses)) {
        if (!/^2/.test(status)) continue;
        for (const [type, media] of Object.entries(res.content ?? {})) {
          if (!/json/.test(type)) continue;
          const where = `${method} ${path} ${status}`;
          expect(media.example, where).toBeDefined();
          // Every field has a schema example or a value by name (src/http/openapi-examples.ts).
          expect(responseExample(media.schema as Record<string, unknown>, schemas).missing, where).toEqual([]);
          const text = JSON.stringify(media.example);
          expect(text, where).not.toMatch(/:"string"|"<[A-Za-z]+>"/);
          const validate = ajv.compile({ ...media.schema, components: doc.components });
          expect(validate(media.example), `${where}: ${ajv.errorsText(validate.errors)}`).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
    const tenant = doc.paths['/api/v1/tenants/{tenantId}']!.get!.responses['200']!.content!['application/json']!.example as Record<
      string,
      unknown
    >;
    expect(tenant).toMatchObject({ rutEmpresa: '76.192.083-9', razonSocial: 'Servicios Ejemplo SpA' });
  });
});

describe('OpenAPI finishing step (unit)', () => {
  it('takes a body from the schema examples and puts placeholders in the URL', () => {
    const schemas = {};
    const op = {
      requestBody: {
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['name', 'count'],
              properties: { name: { type: 'string', examples: ['Ana'] }, count: { type: 'integer', minimum: 1 }, note: { type: 'string' } },
            },
          },
        },
      },
    };
    expect(exampleOf(op.requestBody.content['application/json'].schema, schemas)).toEqual({ name: 'Ana', count: 1 });
    const curl = curlSample('post', '/api/v1/tenants/{tenantId}/things', op, 'http://localhost:3000', schemas);
    expect(curl).toContain('"http://localhost:3000/api/v1/tenants/<tenantId>/things"');
    expect(curl).toContain('-H "Idempotency-Key: $(uuidgen)"');
  });

  it('replaces "Default Response" and leaves the input untouched', () => {
    const input: OpenApiDocument = {
      openapi: '3.1.0',
      info: { title: 't' },
      paths: { '/api/v1/x': { delete: { responses: { '204': { description: 'Default Response' } } } } },
    };
    const out = transformOpenApi(input);
    expect(out.paths['/api/v1/x']!.delete!.responses!['204']!.description).toBe('No Content.');
    expect(input.paths['/api/v1/x']!.delete!.responses!['204']!.description).toBe('Default Response');
  });
});
