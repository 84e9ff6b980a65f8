import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import {
  certificateForm,
  hugeIterationPfx,
  legacyPfx,
  makeCert,
  mismatchedPfx,
  modernPfx,
  nestedDer,
  nestedIndefiniteBer,
  noKeyPfx,
  ymd,
} from '../../support/pfx.ts';

const PASSWORD = 'Clave-Prueba-1';
const RUT = '12345678-5';

describeEachDb('certificate intake over HTTP', (backend) => {
  let t: TestApp;
  let key: string;
  let otherKey: string;
  const cert = makeCert({ rut: RUT, commonName: 'María Pérez Soto' });
  const modern = modernPfx(cert, PASSWORD);
  const good = {
    password: PASSWORD,
    rutCertificado: '12.345.678-5',
    nombreTitular: 'María Pérez Soto',
    fechaVencimiento: ymd(cert.notAfter),
  };

  beforeAll(async () => {
    t = await startTestApp(backend);
    ({ key } = await t.account());
    ({ key: otherKey } = await t.account('Other SaaS'));
  });
  afterAll(() => t.close());

  const newTenant = async (k = key) =>
    (await t.call(k, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id as string;
  const upload = (
    tenantId: string,
    fields: Record<string, string | undefined>,
    file?: Buffer,
    k = key,
    headers: Record<string, string> = {},
  ) => {
    const form = certificateForm(fields, file ? { data: file } : undefined);
    return t.call(k, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/credentials/certificate`,
      payload: form.payload,
      headers: { ...form.headers, ...headers },
    });
  };

  it('accepts a modern .pfx (AES-256, PBKDF2-SHA256, SHA-256 MAC) and makes the first one primary', async () => {
    const tenantId = await newTenant();
    const r = await upload(tenantId, good, modern);
    expect(r.statusCode).toBe(201);
    const entry = r.json();
    expect(entry).toMatchObject({ rutCertificado: '12.345.678-5', nombreTitular: 'María Pérez Soto', esPrincipal: true });
    expect(entry.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(entry.fechaVencimiento).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // Nothing secret in the answer.
    expect(r.body).not.toContain(PASSWORD);
    const status = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/credentials/status` })).json();
    expect(status).toEqual({
      provider: 'simpleapi',
      apiKey: { configured: false, lastVerified: null, required: true },
      certificates: [entry],
      ready: false,
      missing: ['apiKey'],
    });
    const tenant = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}` })).json();
    expect(tenant.credentials).toMatchObject({ certificate: { configured: true }, ready: false });
    expect(tenant.status).toBe('pending_credentials');
  });

  it('accepts a legacy .pfx (RC2-40 certificates, 3DES key, SHA-1 MAC) and a node-forge 3DES one', async () => {
    const tenantId = await newTenant();
    const legacyCert = makeCert({ rut: RUT });
    const r1 = await upload(tenantId, { ...good, fechaVencimiento: ymd(legacyCert.notAfter) }, legacyPfx(legacyCert, PASSWORD));
    expect(r1.statusCode).toBe(201);
    const forgeCert = makeCert({ rut: RUT });
    const r2 = await upload(tenantId, { ...good, fechaVencimiento: ymd(forgeCert.notAfter) }, forgeCert.toPfx(PASSWORD));
    expect(r2.statusCode).toBe(201);
    expect(r2.json().esPrincipal).toBe(false);
  });

  it.each<[string, () => Buffer, Record<string, string>, number, string, string]>([
    ['wrong password', () => modern, { password: 'not-the-password' }, 422, 'certificate_password_invalid', 'password'],
    ['an empty file', () => Buffer.alloc(0), {}, 422, 'certificate_unreadable', 'file'],
    ['random bytes', () => crypto.randomBytes(4096), {}, 422, 'certificate_unreadable', 'file'],
    ['deeply nested DER', () => nestedDer(20_000), {}, 422, 'certificate_unreadable', 'file'],
    ['deeply nested indefinite-length BER', () => nestedIndefiniteBer(120_000), {}, 422, 'certificate_unreadable', 'file'],
    ['a MAC with 2e9 iterations', () => hugeIterationPfx(modern), {}, 422, 'certificate_unreadable', 'file'],
    ['no private key', () => noKeyPfx(cert, PASSWORD), {}, 422, 'certificate_key_missing', 'file'],
    ['a key of another certificate', () => mismatchedPfx(cert, PASSWORD), {}, 422, 'certificate_key_mismatch', 'file'],
    ['a different holder RUT', () => modern, { rutCertificado: '11.111.111-1' }, 422, 'certificate_rut_mismatch', 'rutCertificado'],
    [
      'a fechaVencimiento two days off',
      () => modern,
      { fechaVencimiento: ymd(new Date(cert.notAfter.getTime() + 2 * 86_400_000)) },
      422,
      'certificate_date_mismatch',
      'fechaVencimiento',
    ],
  ])('refuses %s with its own 4xx code', async (_name, file, over, status, code, param) => {
    const tenantId = await newTenant();
    const started = Date.now();
    const r = await upload(tenantId, { ...good, ...over }, file());
    expect(r.statusCode).toBe(status);
    expect(r.json().error).toMatchObject({ code, param });
    expect(Date.now() - started).toBeLessThan(20_000);
    const status2 = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/credentials/status` })).json();
    expect(status2.certificates).toEqual([]);
  });

  it('accepts fechaVencimiento one day off either way', async () => {
    const tenantId = await newTenant();
    const c = makeCert({ rut: RUT });
    for (const [i, shift] of [-1, 1].entries()) {
      const cc = i === 0 ? c : makeCert({ rut: RUT });
      const r = await upload(
        tenantId,
        { ...good, fechaVencimiento: ymd(new Date(cc.notAfter.getTime() + shift * 86_400_000)) },
        modernPfx(cc, PASSWORD),
      );
      expect(r.statusCode).toBe(201);
    }
  });

  it('refuses an expired certificate, one not yet valid, and one without the SII RUT', async () => {
    const tenantId = await newTenant();
    const expired = makeCert({ rut: RUT, notBefore: new Date('2020-01-01'), notAfter: new Date('2021-01-01') });
    const r1 = await upload(tenantId, { ...good, fechaVencimiento: '2021-01-01' }, modernPfx(expired, PASSWORD));
    expect(r1.statusCode).toBe(422);
    expect(r1.json().error).toMatchObject({ code: 'certificate_expired', param: 'file' });
    const future = makeCert({ rut: RUT, notBefore: new Date(Date.now() + 5 * 86_400_000) });
    const r2 = await upload(tenantId, { ...good, fechaVencimiento: ymd(future.notAfter) }, modernPfx(future, PASSWORD));
    expect(r2.json().error.code).toBe('certificate_not_yet_valid');
    const noRut = makeCert({ withoutRut: true });
    const r3 = await upload(tenantId, { ...good, fechaVencimiento: ymd(noRut.notAfter) }, modernPfx(noRut, PASSWORD));
    expect(r3.json().error.code).toBe('certificate_rut_missing');
  });

  it('refuses a file over the limit with 413', async () => {
    const tenantId = await newTenant();
    const r1 = await upload(tenantId, good, crypto.randomBytes(300 * 1024));
    expect(r1.statusCode).toBe(413);
    expect(r1.json().error).toMatchObject({ code: 'file_too_large', param: 'file' });
    const r2 = await upload(tenantId, good, crypto.randomBytes(2 * 1024 * 1024));
    expect(r2.statusCode).toBe(413);
    expect(r2.json().error.code).toBe('body_too_large');
  });

  it('names missing, malformed and unknown form fields with 400', async () => {
    const tenantId = await newTenant();
    const cases: [Record<string, string | undefined>, Buffer | undefined, string, string][] = [
      [good, undefined, 'invalid_field', 'file'],
      [{ ...good, password: undefined }, modern, 'invalid_field', 'password'],
      [{ ...good, rutCertificado: undefined }, modern, 'invalid_field', 'rutCertificado'],
      [{ ...good, rutCertificado: '12.345.678-9' }, modern, 'invalid_rut', 'rutCertificado'],
      [{ ...good, nombreTitular: '  ' }, modern, 'invalid_field', 'nombreTitular'],
      [{ ...good, fechaVencimiento: '2030-02-30' }, modern, 'invalid_date', 'fechaVencimiento'],
      [{ ...good, esPrincipal: 'yes' }, modern, 'invalid_field', 'esPrincipal'],
      [{ ...good, fechaVencimento: '2030-01-01' }, modern, 'invalid_field', 'fechaVencimento'],
    ];
    for (const [fields, file, code, param] of cases) {
      const r = await upload(tenantId, fields, file);
      expect(r.statusCode, `${code} ${param}`).toBe(400);
      expect(r.json().error).toMatchObject({ code, param });
    }
    const json = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/credentials/certificate`, payload: { file: 'x' } });
    expect(json.statusCode).toBe(400);
    expect(json.json().error.code).toBe('invalid_multipart');
    const broken = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/credentials/certificate`,
      payload: '--abc\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nxx',
      headers: { 'content-type': 'multipart/form-data; boundary=abc' },
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().error.code).toBe('invalid_multipart');
  });

  it('esPrincipal=true demotes the others; deleting the primary promotes another; duplicates are refused', async () => {
    const tenantId = await newTenant();
    const a = makeCert({ rut: RUT });
    const b = makeCert({ rut: RUT });
    const ra = (await upload(tenantId, { ...good, fechaVencimiento: ymd(a.notAfter) }, modernPfx(a, PASSWORD))).json();
    const rb = await upload(tenantId, { ...good, fechaVencimiento: ymd(b.notAfter), esPrincipal: 'true' }, modernPfx(b, PASSWORD));
    expect(rb.statusCode).toBe(201);
    let certs = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/credentials/status` })).json().certificates;
    expect(certs.map((c: { id: string; esPrincipal: boolean }) => [c.id, c.esPrincipal])).toEqual([
      [ra.id, false],
      [rb.json().id, true],
    ]);
    const dup = await upload(tenantId, { ...good, fechaVencimiento: ymd(a.notAfter) }, modernPfx(a, PASSWORD));
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toMatchObject({ code: 'certificate_duplicate', details: { certificateId: ra.id } });
    const del = await t.call(key, { method: 'DELETE', url: `/api/v1/tenants/${tenantId}/credentials/certificates/${rb.json().id}` });
    expect(del.statusCode).toBe(204);
    certs = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/credentials/status` })).json().certificates;
    expect(certs).toEqual([expect.objectContaining({ id: ra.id, esPrincipal: true })]);
    const again = await t.call(key, { method: 'DELETE', url: `/api/v1/tenants/${tenantId}/credentials/certificates/${rb.json().id}` });
    expect(again.statusCode).toBe(404);
    expect(again.json().error.code).toBe('certificate_not_found');
    // The secrets of the deleted certificate are gone from the secrets store.
    const refs = (await t.sdb.db.query<{ ref: string }>('select ref from secrets')).rows.map((r) => r.ref);
    expect(refs.some((r) => r.includes(rb.json().id))).toBe(false);
    expect(refs.some((r) => r.includes(ra.id))).toBe(true);
  });

  it('PATCH esPrincipal=true switches the primary; false, unknown ids and other accounts are refused', async () => {
    const tenantId = await newTenant();
    const a = makeCert({ rut: RUT });
    const b = makeCert({ rut: RUT });
    const ra = (await upload(tenantId, { ...good, fechaVencimiento: ymd(a.notAfter) }, modernPfx(a, PASSWORD))).json();
    const rb = (await upload(tenantId, { ...good, fechaVencimiento: ymd(b.notAfter) }, modernPfx(b, PASSWORD))).json();
    expect([ra.esPrincipal, rb.esPrincipal]).toEqual([true, false]);
    const url = (id: string) => `/api/v1/tenants/${tenantId}/credentials/certificates/${id}`;
    const primaries = async () =>
      (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/credentials/status` }))
        .json()
        .certificates.filter((c: { esPrincipal: boolean }) => c.esPrincipal)
        .map((c: { id: string }) => c.id);

    const sw = await t.call(key, { method: 'PATCH', url: url(rb.id), payload: { esPrincipal: true } });
    expect(sw.statusCode).toBe(200);
    expect(sw.json()).toMatchObject({ id: rb.id, esPrincipal: true });
    expect(await primaries()).toEqual([rb.id]);
    // Idempotent: the primary stays primary.
    expect((await t.call(key, { method: 'PATCH', url: url(rb.id), payload: { esPrincipal: true } })).json().esPrincipal).toBe(true);
    expect(await primaries()).toEqual([rb.id]);

    const demote = await t.call(key, { method: 'PATCH', url: url(rb.id), payload: { esPrincipal: false } });
    expect(demote.statusCode).toBe(422);
    expect(demote.json().error).toMatchObject({ code: 'certificate_primary_required', param: 'esPrincipal' });
    const missing = await t.call(key, { method: 'PATCH', url: url(crypto.randomUUID()), payload: { esPrincipal: true } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('certificate_not_found');
    const notUuid = await t.call(key, { method: 'PATCH', url: url('nope'), payload: { esPrincipal: true } });
    expect(notUuid.statusCode).toBe(404);
    const other = await t.call(otherKey, { method: 'PATCH', url: url(ra.id), payload: { esPrincipal: true } });
    expect(other.statusCode).toBe(404);
    expect(other.json().error.code).toBe('tenant_not_found');
    const bad = await t.call(key, { method: 'PATCH', url: url(ra.id), payload: { esPrincipal: 'yes' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'invalid_field', param: 'esPrincipal' });
    // An expired certificate cannot become the one that signs.
    await t.tdb.db.query("update tenant_certificates set not_after = '2021-01-01T00:00:00Z' where id = $1", [ra.id]);
    const expired = await t.call(key, { method: 'PATCH', url: url(ra.id), payload: { esPrincipal: true } });
    expect(expired.statusCode).toBe(422);
    expect(expired.json().error).toMatchObject({ code: 'certificate_expired', details: { notAfter: '2021-01-01T00:00:00.000Z' } });
    // None of the refusals moved the primary.
    expect(await primaries()).toEqual([rb.id]);
  });

  it("treats another account's tenant as not found, and needs an API key", async () => {
    const tenantId = await newTenant();
    const r = await upload(tenantId, good, modern, otherKey);
    expect(r.statusCode).toBe(404);
    expect(r.json().error.code).toBe('tenant_not_found');
    const s = await t.call(otherKey, { method: 'GET', url: `/api/v1/tenants/${tenantId}/credentials/status` });
    expect(s.statusCode).toBe(404);
    const noKey = await upload(tenantId, good, modern, '');
    expect(noKey.statusCode).toBe(401);
    const unknown = await t.call(key, { method: 'GET', url: '/api/v1/tenants/not-a-uuid/credentials/status' });
    expect(unknown.statusCode).toBe(404);
  });

  it('replays a multipart upload under the same Idempotency-Key, and refuses a different body', async () => {
    const tenantId = await newTenant();
    const c = makeCert({ rut: RUT });
    const form = certificateForm({ ...good, fechaVencimiento: ymd(c.notAfter) }, { data: modernPfx(c, PASSWORD) });
    const send = (payload: Buffer) =>
      t.call(key, {
        method: 'POST',
        url: `/api/v1/tenants/${tenantId}/credentials/certificate`,
        payload,
        headers: { ...form.headers, 'idempotency-key': `cert-${tenantId}` },
      });
    const r1 = await send(form.payload);
    const r2 = await send(form.payload);
    expect(r1.statusCode).toBe(201);
    expect(r2.statusCode).toBe(201);
    expect(r2.headers['idempotent-replayed']).toBe('true');
    expect(r2.json().id).toBe(r1.json().id);
    const changed = Buffer.from(form.payload);
    changed[changed.lastIndexOf('Soto') + 3] = 0x61; // nombreTitular "…Soto" → "…Sota
    expect(changed.equals(form.payload)).toBe(false);
    const r3 = await send(changed);
    expect(r3.statusCode).toBe(409);
    expect(r3.json().error.code).toBe('idempotency_key_reused');
  });
});

describe('certificate intake keeps the process alive', () => {
  it('answers many hostile uploads at once without blocking the event loop', async () => {
    const t = await startTestApp('pglite');
    try {
      const { key } = await t.account();
      const tenantId = (await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id;
      const cert = makeCert({ rut: RUT });
      const files = [
        nestedDer(20_000),
        nestedIndefiniteBer(120_000),
        crypto.randomBytes(200_000),
        hugeIterationPfx(modernPfx(cert, PASSWORD)),
      ];
      let maxLag = 0;
      let last = Date.now();
      const timer = setInterval(() => {
        maxLag = Math.max(maxLag, Date.now() - last - 10);
        last = Date.now();
      }, 10);
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => {
          const form = certificateForm(
            { password: PASSWORD, rutCertificado: RUT, nombreTitular: 'x', fechaVencimiento: ymd(cert.notAfter) },
            { data: files[i % files.length]! },
          );
          return t.call(key, {
            method: 'POST',
            url: `/api/v1/tenants/${tenantId}/credentials/certificate`,
            payload: form.payload,
            headers: form.headers,
          });
        }),
      );
      clearInterval(timer);
      for (const r of results) expect(r.json().error.code).toBe('certificate_unreadable');
      // Parsing runs in worker threads: the main loop never stalls for long (a parse on the main
      // thread would stall it for seconds; the bound leaves room for a loaded 2-core machine).
      expect(maxLag).toBeLessThan(2_000);
    } finally {
      await t.close();
    }
  });
});
