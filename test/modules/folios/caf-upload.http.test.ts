import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addDays } from '../../../src/dte/dates.ts';
import { siiDate } from '../../../src/dte/index.ts';
import { manualClock } from '../../../src/lib/clock.ts';
import { cafTrust } from '../../../src/provider/sii-keys.ts';
import { startTestApp, uniqueRut, validTenant, type TestApp } from '../../support/app.ts';
import { describeEachDb } from '../../support/db.ts';
import { OFFICIAL_CAF } from '../../support/dte/sii-fixtures.ts';
import { createTestCaf, createTestSii } from '../../support/dte/test-caf.ts';
import { dteBody, readyTenant } from '../../support/issuing.ts';

/**
 * POST /api/v1/tenants/{tenantId}/folios/caf (docs/folios.md, "Uploading a CAF"): a CAF file as
 * the SII gives it, checked and stored like a requested one. CAFs come from a test SII (IDK 666)
 * that this app trusts through the context's cafKeys; one test uses the SII's own sample CAF
 * (IDK 100), and one a key added with the SII_CAF_KEYS setting.
 */
const SII_SAMPLE = OFFICIAL_CAF;
const sii = createTestSii();
const today = () => siiDate(new Date());

/** A multipart body with the given file parts and text fields. */
function form(
  files: Record<string, { data: Buffer; filename?: string }>,
  fields: Record<string, string> = {},
  boundary = `----caf${crypto.randomBytes(8).toString('hex')}`,
) {
  const parts: Buffer[] = [];
  for (const [name, f] of Object.entries(files))
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${f.filename ?? 'caf.xml'}"\r\nContent-Type: text/xml\r\n\r\n`,
      ),
      f.data,
      Buffer.from('\r\n'),
    );
  for (const [k, v] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const swapText = (xml: Buffer, from: RegExp, to: string) => Buffer.from(xml.toString('latin1').replace(from, to), 'latin1');

describeEachDb('CAF upload over HTTP', (backend) => {
  let t: TestApp;
  let key: string;
  const clock = manualClock(new Date());

  beforeAll(async () => {
    t = await startTestApp(backend, { clock, cafKeys: cafTrust([{ idk: sii.idk, publicKey: sii.publicKey }]) });
    ({ key } = await t.account());
  });
  afterAll(() => t?.close());

  const tenant = async (over: Record<string, unknown> = {}) => {
    const r = await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant(over) });
    expect(r.statusCode, r.body).toBe(201);
    return r.json() as { id: string; rutEmpresa: string; status: string };
  };
  const caf = (rutEmpresa: string, over: Partial<Parameters<typeof createTestCaf>[0]> = {}) =>
    createTestCaf({ sii, rutEmisor: rutEmpresa, fechaAutorizacion: siiDate(clock.now()), desde: 1, hasta: 100, ...over }).xml;
  const upload = (tenantId: string, file: Buffer, o: { k?: string; headers?: Record<string, string>; boundary?: string } = {}) => {
    const f = form({ file: { data: file } }, {}, o.boundary);
    return t.call(o.k ?? key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/folios/caf`,
      payload: f.payload,
      headers: { ...f.headers, ...o.headers },
    });
  };
  const refused = async (tenantId: string, file: Buffer, status: number, code: string) => {
    const r = await upload(tenantId, file);
    expect(r.statusCode, r.body).toBe(status);
    const e = r.json().error;
    expect(e.code).toBe(code);
    expect(e.message.length).toBeGreaterThan(20);
    return e as { code: string; message: string; param?: string; details?: Record<string, unknown> };
  };
  const ranges = async (tenantId: string) =>
    (
      await t.ctx.db.query<{ desde: string; hasta: string; request_id: string | null; ambiente: string }>(
        'select desde, hasta, request_id, ambiente from folio_ranges where tenant_id = $1 order by tipo_dte, desde',
        [tenantId],
      )
    ).rows.map((g) => [Number(g.desde), Number(g.hasta)]);

  it('stores a CAF for a tenant without credentials: 201, key encrypted, in the inventory at once', async () => {
    const tn = await tenant();
    expect(tn.status).toBe('pending_credentials');
    const r = await upload(tn.id, caf(tn.rutEmpresa, { tipoDte: 33, desde: 1, hasta: 100 }));
    expect(r.statusCode, r.body).toBe(201);
    const fa = siiDate(clock.now());
    expect(r.json()).toEqual({
      tipoDte: 33,
      livemode: true,
      desde: 1,
      hasta: 100,
      fechaAutorizacion: fa,
      vencimiento: addDays(fa, 180),
      idk: 666,
      ambiente: 'produccion',
      disponibles: 100,
      createdAt: expect.any(String),
    });
    const row = (
      await t.ctx.db.query<{ caf_block: string; private_key_enc: Buffer; request_id: string | null }>(
        'select caf_block, private_key_enc, request_id from folio_ranges where tenant_id = $1',
        [tn.id],
      )
    ).rows[0]!;
    expect(row.caf_block).toMatch(/^<CAF version="1.0">/);
    expect(row.caf_block).not.toContain('RSASK');
    expect(row.private_key_enc.toString('latin1')).not.toContain('PRIVATE KEY');
    expect(row.request_id).toBeNull();
    const inv = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tn.id}/folios` })).json();
    expect(inv.data).toEqual([
      expect.objectContaining({
        tipoDte: 33,
        total: 100,
        disponibles: 100,
        siguienteFolio: 1,
        lowThreshold: 10,
        rangos: [expect.objectContaining({ desde: 1, hasta: 100 })],
      }),
    ]);
  });

  it('a document is stamped with an uploaded CAF at once', async () => {
    const tenantId = await readyTenant(t, key);
    const rut = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}` })).json().rutEmpresa as string;
    expect((await upload(tenantId, caf(rut, { tipoDte: 33, desde: 41, hasta: 60 }))).statusCode).toBe(201);
    const d = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(33, {}, clock.now()) });
    expect(d.statusCode, d.body).toBe(201);
    expect(d.json().folio).toBe(41);
    const inv = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` })).json();
    expect(inv.data[0]).toMatchObject({ tipoDte: 33, total: 20, usados: 1, disponibles: 19, siguienteFolio: 42 });
  });

  it('the same CAF uploaded again answers the stored range (200), never a second one', async () => {
    const tn = await tenant();
    const file = caf(tn.rutEmpresa, { tipoDte: 34, desde: 1, hasta: 50 });
    const first = await upload(tn.id, file);
    expect(first.statusCode).toBe(201);
    const again = await upload(tn.id, file);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first.json());
    // The same CAF saved again by an editor (CRLF line ends) is still the same CAF.
    const resaved = Buffer.from(file.toString('latin1').replace(/\n/g, '\r\n'), 'latin1');
    expect((await upload(tn.id, resaved)).statusCode).toBe(200);
    expect(await ranges(tn.id)).toEqual([[1, 50]]);
  });

  it('honours Idempotency-Key like every POST', async () => {
    const tn = await tenant();
    // A retry sends the same bytes (the same multipart boundary).
    const headers = { 'idempotency-key': `caf-${crypto.randomUUID()}` };
    const boundary = 'retry-boundary-1';
    const file = caf(tn.rutEmpresa, { tipoDte: 61, desde: 1, hasta: 10 });
    const first = await upload(tn.id, file, { headers, boundary });
    expect(first.statusCode).toBe(201);
    const replay = await upload(tn.id, file, { headers, boundary });
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());
    const other = await upload(tn.id, caf(tn.rutEmpresa, { tipoDte: 61, desde: 11, hasta: 20 }), { headers, boundary });
    expect(other.statusCode).toBe(409);
    expect(other.json().error.code).toBe('idempotency_key_reused');
    expect(await ranges(tn.id)).toEqual([[1, 10]]);
  });

  it('refuses a range overlapping one of the tenant’s CAFs of that type: 409 caf_overlap with the range', async () => {
    const tn = await tenant();
    expect((await upload(tn.id, caf(tn.rutEmpresa, { tipoDte: 33, desde: 101, hasta: 200 }))).statusCode).toBe(201);
    for (const [desde, hasta] of [
      [150, 250],
      [1, 101],
      [120, 130],
      [101, 200],
    ] as const) {
      const e = await refused(tn.id, caf(tn.rutEmpresa, { tipoDte: 33, desde, hasta }), 409, 'caf_overlap');
      expect(e.details).toEqual({ overlapping: [{ desde: 101, hasta: 200, fechaAutorizacion: siiDate(clock.now()) }] });
    }
    // Next to it, or of another type: no overlap.
    expect((await upload(tn.id, caf(tn.rutEmpresa, { tipoDte: 33, desde: 201, hasta: 300 }))).statusCode).toBe(201);
    expect((await upload(tn.id, caf(tn.rutEmpresa, { tipoDte: 39, desde: 150, hasta: 250 }))).statusCode).toBe(201);
    expect(await ranges(tn.id)).toEqual([
      [101, 200],
      [201, 300],
      [150, 250],
    ]);
  });

  it('of two overlapping uploads at once, exactly one is stored', async () => {
    const tn = await tenant();
    const rs = await Promise.all([
      upload(tn.id, caf(tn.rutEmpresa, { tipoDte: 52, desde: 1, hasta: 100 })),
      upload(tn.id, caf(tn.rutEmpresa, { tipoDte: 52, desde: 50, hasta: 150 })),
    ]);
    expect(rs.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    expect(await ranges(tn.id)).toHaveLength(1);
  });

  it("refuses another company's CAF: 422 caf_rut_mismatch", async () => {
    const tn = await tenant();
    const e = await refused(tn.id, caf(uniqueRut()), 422, 'caf_rut_mismatch');
    expect(e.message).toMatch(/not for the tenant/);
    expect(e.param).toBe('file');
  });

  it('refuses a type the service does not issue: 422 unsupported_tipo_dte', async () => {
    const tn = await tenant();
    const e = await refused(tn.id, caf(tn.rutEmpresa, { tipoDte: 30 }), 422, 'unsupported_tipo_dte');
    expect(e.details).toEqual({ tipoDte: 30 });
  });

  it('refuses an expired CAF (180 days for 33, 43, 46, 56, 61); boleta CAFs never expire', async () => {
    const tn = await tenant();
    const old = addDays(siiDate(clock.now()), -180);
    const e = await refused(tn.id, caf(tn.rutEmpresa, { tipoDte: 56, fechaAutorizacion: old }), 422, 'caf_expired');
    expect(e.details).toEqual({ fechaAutorizacion: old, vencimiento: siiDate(clock.now()) });
    expect((await upload(tn.id, caf(tn.rutEmpresa, { tipoDte: 56, fechaAutorizacion: addDays(old, 1) }))).statusCode).toBe(201);
    expect((await upload(tn.id, caf(tn.rutEmpresa, { tipoDte: 39, fechaAutorizacion: '2020-01-02' }))).statusCode).toBe(201);
  });

  it('refuses a CAF whose FRMA does not verify (altered after signing): 422 caf_signature_invalid', async () => {
    const tn = await tenant();
    await refused(tn.id, swapText(caf(tn.rutEmpresa), /<H>100<\/H>/, '<H>1000</H>'), 422, 'caf_signature_invalid');
    // Signed by another key that says it is 666.
    const impostor = createTestCaf({ sii: createTestSii(666), rutEmisor: tn.rutEmpresa, fechaAutorizacion: today() }).xml;
    await refused(tn.id, impostor, 422, 'caf_signature_invalid');
  });

  it('refuses a CAF signed by a key nobody configured: 422 caf_unknown_idk', async () => {
    const tn = await tenant();
    const other = createTestCaf({ sii: createTestSii(777), rutEmisor: tn.rutEmpresa, fechaAutorizacion: today() }).xml;
    const e = await refused(tn.id, other, 422, 'caf_unknown_idk');
    expect(e.message).toMatch(/SII_CAF_KEYS/);
    expect(e.details).toMatchObject({ idk: 777, trustedIdks: expect.arrayContaining([100, 300, 666]) });
  });

  it('refuses a CAF without its private key, or with one that is not its own', async () => {
    const tn = await tenant();
    const file = caf(tn.rutEmpresa);
    await refused(tn.id, swapText(file, /<RSASK>[\s\S]*<\/RSASK>/, ''), 422, 'caf_private_key_missing');
    const otherKey = /<RSASK>[\s\S]*<\/RSASK>/.exec(caf(tn.rutEmpresa).toString('latin1'))![0];
    await refused(tn.id, swapText(file, /<RSASK>[\s\S]*<\/RSASK>/, otherKey), 422, 'caf_private_key_mismatch');
    await refused(tn.id, swapText(file, /<RSASK>[\s\S]*<\/RSASK>/, '<RSASK>not a key</RSASK>'), 422, 'caf_unreadable');
    expect(await ranges(tn.id)).toEqual([]);
  });

  it('refuses what is not a CAF: 422 caf_unreadable, saying what is wrong', async () => {
    const tn = await tenant();
    const cases: [Buffer, RegExp][] = [
      [Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj'), /not XML/],
      [Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0]), /not XML/],
      [Buffer.alloc(0), /empty/],
      [Buffer.from('<?xml version="1.0"?><EnvioDTE><SetDTE/></EnvioDTE>'), /XML but not a CAF/],
      [Buffer.from('<AUTORIZACION><CAF version="1.0"><DA>'), /not well formed/],
      [Buffer.from('<!DOCTYPE x [<!ENTITY a "b">]><AUTORIZACION/>'), /DOCTYPE/],
      [swapText(caf(tn.rutEmpresa), /<RNG>.*<\/RNG>/, ''), /no <D>/],
    ];
    for (const [file, message] of cases) expect((await refused(tn.id, file, 422, 'caf_unreadable')).message).toMatch(message);
  });

  it('refuses a malformed request: no file part, other fields, not multipart, too large', async () => {
    const tn = await tenant();
    const url = `/api/v1/tenants/${tn.id}/folios/caf`;
    const send = (f: ReturnType<typeof form>) => t.call(key, { method: 'POST', url, payload: f.payload, headers: f.headers });
    const expectError = async (
      p: Promise<{ statusCode: number; json(): { error: { code: string; param?: string } } }>,
      s: number,
      code: string,
      param?: string,
    ) => {
      const r = await p;
      expect(r.statusCode).toBe(s);
      expect(r.json().error).toMatchObject({ code, ...(param ? { param } : {}) });
    };
    await expectError(send(form({}, { note: 'x' })), 400, 'invalid_field', 'note');
    await expectError(send(form({})), 400, 'invalid_field', 'file');
    await expectError(send(form({}, { file: '<AUTORIZACION/>' })), 400, 'invalid_field', 'file');
    await expectError(send(form({ caf: { data: caf(tn.rutEmpresa) } })), 400, 'invalid_field', 'caf');
    await expectError(send(form({ file: { data: caf(tn.rutEmpresa) } }, { extra: '1' })), 400, 'invalid_field', 'extra');
    await expectError(t.call(key, { method: 'POST', url, payload: { file: 'x' } }), 415, 'unsupported_media_type');
    await expectError(
      t.call(key, { method: 'POST', url, payload: 'x', headers: { 'content-type': 'text/xml' } }),
      415,
      'unsupported_media_type',
    );
    await expectError(
      t.call(key, { method: 'POST', url, payload: caf(tn.rutEmpresa), headers: { 'content-type': 'multipart/form-data' } }),
      400,
      'invalid_multipart',
    );
    await expectError(send(form({ file: { data: Buffer.alloc(17 * 1024, 0x20) } })), 413, 'file_too_large', 'file');
    await expectError(send(form({ file: { data: Buffer.alloc(300 * 1024, 0x20) } })), 413, 'body_too_large');
    expect(await ranges(tn.id)).toEqual([]);
  });

  it("another account's tenant is a 404; no key is a 401", async () => {
    const tn = await tenant();
    const other = await t.account('Other SaaS');
    const r = await upload(tn.id, caf(tn.rutEmpresa), { k: other.key });
    expect(r.statusCode).toBe(404);
    expect(r.json().error.code).toBe('tenant_not_found');
    const f = form({ file: { data: caf(tn.rutEmpresa) } });
    expect(
      (await t.call(undefined, { method: 'POST', url: `/api/v1/tenants/${tn.id}/folios/caf`, payload: f.payload, headers: f.headers }))
        .statusCode,
    ).toBe(401);
    expect(await ranges(tn.id)).toEqual([]);
  });

  it("the SII's own sample CAF (IDK 100) verifies with the SII's key; it is a certification CAF", async () => {
    const sample = fs.readFileSync(SII_SAMPLE);
    const prod = await tenant({ rutEmpresa: '97.975.000-5', ambiente: 'produccion' });
    const e = await refused(prod.id, sample, 422, 'caf_ambiente_mismatch');
    expect(e.details).toEqual({ idk: 100, cafAmbiente: 'certificacion', ambiente: 'produccion' });
    const cert = await tenant({ rutEmpresa: '97.975.000-5', ambiente: 'certificacion' });
    // Authorized 2003-09-04: expired today, so the signature was good (it is checked first).
    expect((await refused(cert.id, sample, 422, 'caf_expired')).details).toMatchObject({ vencimiento: '2004-03-02' });
    // On a day it was still valid it is stored like any other.
    const now = clock.now();
    clock.set('2003-10-01T15:00:00.000Z');
    try {
      const r = await upload(cert.id, sample);
      expect(r.statusCode, r.body).toBe(201);
      expect(r.json()).toMatchObject({ tipoDte: 33, desde: 1, hasta: 200, idk: 100, ambiente: 'certificacion', vencimiento: '2004-03-02' });
    } finally {
      clock.set(now);
    }
  });
});

describeEachDb('CAF upload with a key added by SII_CAF_KEYS', (backend) => {
  let t: TestApp;
  let dir: string;
  const own = createTestSii(777);

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'caf-keys-'));
    fs.writeFileSync(path.join(dir, 'caf-777.pem'), own.publicKeyPem);
    t = await startTestApp(backend, { env: { SII_CAF_KEYS: `777:${path.join(dir, 'caf-777.pem')}` } });
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('trusts CAFs of that key for tenants of either environment, beside the SII’s and the emulator’s', async () => {
    expect(Object.keys(t.ctx.cafKeys).sort()).toEqual(['100', '300', '666', '777']);
    const { key } = await t.account();
    for (const ambiente of ['certificacion', 'produccion']) {
      const tn = (await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant({ ambiente }) })).json();
      const f = form({ file: { data: createTestCaf({ sii: own, rutEmisor: tn.rutEmpresa, fechaAutorizacion: today() }).xml } });
      const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tn.id}/folios/caf`, payload: f.payload, headers: f.headers });
      expect(r.statusCode, r.body).toBe(201);
      expect(r.json()).toMatchObject({ idk: 777, ambiente });
    }
  });
});
