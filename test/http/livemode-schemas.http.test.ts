import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../support/db.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

type S = { $ref?: string; type?: string; properties?: Record<string, S>; items?: S; anyOf?: S[]; oneOf?: S[]; allOf?: S[] };

/**
 * `livemode` on every object the API returns (docs/design.md "Test mode"), read from the OpenAPI
 * document: every JSON success response that is an object with an `id`, or a list (`data`) of
 * them, or holds such objects, declares `livemode`. A route added later without it fails here.
 */
describeEachDb('livemode in every response schema', (backend) => {
  let t: TestApp;
  let doc: {
    paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: S }> }> }>>;
    components: { schemas: Record<string, S> };
  };
  beforeAll(async () => {
    t = await startTestApp(backend);
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  });
  afterAll(() => t?.close());

  const resolve = (s: S | undefined): S | undefined => (s?.$ref ? doc.components.schemas[s.$ref.split('/').pop()!] : s);
  /** Paths (within one response) of objects that have an `id` but no `livemode`. */
  let checked = 0;
  const missing = (s0: S | undefined, at: string, out: string[], depth = 0) => {
    const s = resolve(s0);
    if (!s || depth > 8) return;
    for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) missing(alt, at, out, depth + 1);
    if (s.items) missing(s.items, `${at}[]`, out, depth + 1);
    if (!s.properties) return;
    // A certification set's cases are parts of the set (their id is the SII's case number), and an
    // audit event's actor and target name other things (a key, a member, a tenant): not objects of their own.
    const part = at.endsWith('.cases[]') || /\.data\[\]\.(actor|target)$/.test(at);
    if ('id' in s.properties && !part) {
      checked++;
      if (!('livemode' in s.properties)) out.push(at || '(body)');
    }
    for (const [k, v] of Object.entries(s.properties)) missing(v, `${at}.${k}`, out, depth + 1);
  };

  it('declares livemode on every returned object with an id', () => {
    const wrong: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/v1/') || path.includes('openapi')) continue;
      for (const [method, op] of Object.entries(ops))
        for (const [status, r] of Object.entries(op.responses ?? {})) {
          if (!status.startsWith('2')) continue;
          const out: string[] = [];
          missing(r.content?.['application/json']?.schema, '', out);
          for (const p of out) wrong.push(`${method.toUpperCase()} ${path} ${status}: ${p}`);
        }
    }
    expect(wrong).toEqual([]);
    // It read the objects it judges: a document whose schemas it could not follow would pass empty.
    expect(checked).toBeGreaterThan(30);
  });
});
