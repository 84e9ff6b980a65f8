import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { computeDv, formatRutDotted, tryParseRut } from '../../../src/dte/rut.ts';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

/**
 * Property-based fuzzing of tenant creation: at least 1,000 generated bodies, valid and mutated.
 * Valid ones succeed; invalid ones get a 4xx with a code; none gets a 5xx.
 */
// Printable ISO-8859-1, what the SII's documents can carry: a tenant's text follows the documents'
// text policy (docs/errors.md, "Text"); anything else is refused, which the mutated bodies and
// test/http/free-text.http.test.ts cover.
const latin1Char = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff })).map((c) => String.fromCharCode(c));
const text = (max: number) => fc.string({ minLength: 1, maxLength: max, unit: latin1Char }).filter((s) => s.trim().length > 0);
const rut = fc.integer({ min: 1_000_000, max: 99_999_999 }).map((body) => formatRutDotted({ body, dv: computeDv(body) }));
const date = fc
  .date({ min: new Date('2003-01-01'), max: new Date('2030-12-31'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

const validBody = fc.record({
  rutEmpresa: rut,
  razonSocial: text(100),
  giro: text(80),
  direccion: text(70),
  comuna: text(20),
  ciudad: text(20),
  numeroResolucion: fc.integer({ min: 0, max: 999999 }),
  fechaResolucion: date,
});

const junk = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 300 }),
  fc.constant(''),
  fc.constant('x'.repeat(5000)),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.object({ maxDepth: 2 }),
);

const mutated = fc
  .tuple(
    validBody,
    fc.constantFrom('rutEmpresa', 'razonSocial', 'giro', 'direccion', 'comuna', 'ciudad', 'numeroResolucion', 'fechaResolucion', 'extra'),
    fc.constantFrom('delete', 'junk'),
    junk,
  )
  .map(([body, field, how, value]) => {
    const out: Record<string, unknown> = { ...body };
    if (how === 'delete' && field !== 'extra') delete out[field];
    else out[field] = value;
    return out;
  });

describeEachDb('tenant creation fuzzing', (backend) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp(backend, {
      env: {
        RATE_LIMIT_PER_SECOND: '100000',
        RATE_LIMIT_BURST: '100000',
        ACCOUNT_RATE_LIMIT_PER_SECOND: '100000',
        ACCOUNT_RATE_LIMIT_BURST: '100000',
      },
    });
    ({ key } = await t.account());
  });
  afterAll(() => t.close());

  it('accepts every valid body', async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(validBody, async (body) => {
        const r = await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: body });
        // The same RUT and environment drawn again is the account's existing tenant: 409 tenant_exists.
        const pair = formatRutDotted(tryParseRut(body.rutEmpresa.trim())!);
        if (seen.has(pair)) {
          expect(r.statusCode, JSON.stringify({ body, res: r.json() })).toBe(409);
          expect(r.json().error.code).toBe('tenant_exists');
          return;
        }
        seen.add(pair);
        expect(r.statusCode, JSON.stringify({ body, res: r.json() })).toBe(201);
        expect(r.json().razonSocial).toBe(body.razonSocial.trim());
      }),
      { numRuns: 400 },
    );
  });

  it('answers every mutated body with a 2xx or a 4xx code, never a 5xx', async () => {
    let rejected = 0;
    await fc.assert(
      fc.asyncProperty(mutated, async (body) => {
        const r = await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: body });
        expect(r.statusCode, JSON.stringify(body).slice(0, 300)).toBeLessThan(500);
        if (r.statusCode >= 400) {
          rejected++;
          expect(r.json().error.code).toMatch(/^[a-z_]+$/);
          expect(r.json().error.message.length).toBeGreaterThan(10);
        }
      }),
      { numRuns: 700 },
    );
    expect(rejected).toBeGreaterThan(300);
  });
});
