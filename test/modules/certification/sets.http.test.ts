import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import { describeEachDb } from '../../support/db.ts';

/**
 * The SII's test set in, through the real app (docs/certification.md): both real sets as the SII
 * serves them (ISO-8859-1, tabs, one with CRLF), the same set twice, JSON bodies, unreadable
 * texts, and another account's tenant or set.
 */
const fixture = (n: string) => readFileSync(new URL(`../../fixtures/certification/SIISetDePruebas-${n}.txt`, import.meta.url));
const set01 = fixture('01');
const set02 = fixture('02');

describeEachDb('certification sets', (backend) => {
  let t: TestApp;
  let key: string;
  let otherKey: string;
  let tenantId: string;
  let otherTenantId: string;

  beforeAll(async () => {
    t = await startTestApp(backend);
    ({ key } = await t.account());
    ({ key: otherKey } = await t.account('Other'));
    const mine = await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() });
    const theirs = await t.call(otherKey, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() });
    expect([mine.statusCode, theirs.statusCode], mine.body).toEqual([201, 201]);
    tenantId = mine.json().id;
    otherTenantId = theirs.json().id;
  });
  afterAll(() => t?.close());

  const url = (tid = tenantId) => `/api/v1/tenants/${tid}/certification/sets`;
  const upload = (body: Buffer | string, contentType = 'text/plain', k = key, tid = tenantId) =>
    t.call(k, { method: 'POST', url: url(tid), payload: body, headers: { 'content-type': contentType } });

  it('reads set 01 as the SII serves it: 201 with sections, cases and progress', async () => {
    const r = await upload(set01);
    expect(r.statusCode, r.body).toBe(201);
    const s = r.json();
    expect(s).toMatchObject({ object: 'certification_set', tenantId, progress: { cases: 19, documents: 0 } });
    expect(s.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.sections.map((x: { kind: string; attentionNumber: string }) => `${x.kind}:${x.attentionNumber}`)).toEqual([
      'basico:4244618',
      'libro_ventas:4244619',
      'libro_compras:4244620',
      'guias:4244621',
      'libro_guias:4244622',
      'exenta:4244623',
    ]);
    const c2 = s.cases.find((c: { id: string }) => c.id === '4244618-2');
    expect(c2).toMatchObject({ documentType: { name: 'FACTURA ELECTRONICA', code: 33 }, dteId: null });
    expect(c2.items[0]).toMatchObject({ name: 'Pañuelo AFECTO', cantidad: 416, precioUnitario: 3293, descuentoPct: 6 });
    expect(s.sections[2].purchaseBook.factorProporcionalidadIva).toBe(0.6);

    const got = await t.call(key, { method: 'GET', url: `${url()}/${s.id}` });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(s);
  });

  it('the same set again, in UTF-8 with CRLF or as JSON, is the same set (200); another set is a second one', async () => {
    const first = (await upload(set01)).json();
    const again = await upload(set01, 'text/plain; charset=ISO-8859-1');
    expect([again.statusCode, again.json().id]).toEqual([200, first.id]);
    const utf8 = Buffer.from(new TextDecoder('latin1').decode(set01).replace(/\n/g, '\r\n'), 'utf8');
    const asUtf8 = await upload(utf8, 'text/plain; charset=utf-8');
    expect([asUtf8.statusCode, asUtf8.json().id]).toEqual([200, first.id]);
    const asJson = await t.call(key, { method: 'POST', url: url(), payload: { text: new TextDecoder('latin1').decode(set01) } });
    expect([asJson.statusCode, asJson.json().id]).toEqual([200, first.id]);

    const second = await upload(set02);
    expect(second.statusCode, second.body).toBe(201);
    expect(second.json()).toMatchObject({ progress: { cases: 32 } });
    expect(second.json().cases.find((c: { id: string }) => c.id === '4267223-1').exportacion.tipoBulto).toEqual({
      name: 'CONTENEDOR REFRIGERADO',
      code: 76,
    });

    const list = await t.call(key, { method: 'GET', url: `${url()}?limit=1` });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((x: { id: string }) => x.id)).toEqual([second.json().id]);
    expect(list.json().done).toBe(false);
    const next = await t.call(key, { method: 'GET', url: `${url()}?limit=1&iterator=${list.json().iterator}` });
    expect(next.json()).toMatchObject({ data: [{ id: first.id }], done: true });
  });

  it('a text it cannot read is a 422 naming the line; nothing is kept', async () => {
    const before = (await t.call(key, { method: 'GET', url: url() })).json().data.length;
    const bad = await upload(
      'SET BASICO - NUMERO DE ATENCION: 1\nCASO 1-1\n=====\nDOCUMENTO\tFACTURA ELECTRONICA\nITEM\t\tCANTIDAD\nUno\t\tdiez\n',
    );
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error).toMatchObject({
      code: 'certification_set_unreadable',
      param: 'body',
      details: { line: 6, reason: 'bad_number', expected: 'CANTIDAD as a number' },
    });
    expect(bad.json().error.message).toMatch(/Line 6: expected CANTIDAD as a number, found 'diez'/);
    const xml = await upload('<?xml version="1.0"?><EnvioDTE/>');
    expect([xml.statusCode, xml.json().error.code, xml.json().error.details.reason]).toEqual([
      422,
      'certification_set_unreadable',
      'not_a_test_set',
    ]);
    const empty = await t.call(key, { method: 'POST', url: url(), payload: { text: ' ' } });
    expect([empty.statusCode, empty.json().error.details.reason]).toEqual([422, 'empty']);
    expect((await t.call(key, { method: 'GET', url: url() })).json().data.length).toBe(before);
  });

  it('refuses other bodies with their own codes', async () => {
    const charset = await upload(set01, 'text/plain; charset=utf-16');
    expect([charset.statusCode, charset.json().error.code]).toEqual([415, 'unsupported_media_type']);
    const xml = await upload(set01, 'application/xml');
    expect(xml.statusCode).toBe(415);
    const wrongJson = await t.call(key, { method: 'POST', url: url(), payload: { texto: 'x' } });
    expect([wrongJson.statusCode, wrongJson.json().error.code]).toEqual([400, 'invalid_field']);
    const huge = await upload(Buffer.alloc(300 * 1024, 0x41));
    expect(huge.statusCode).toBe(413);
  });

  it("another account's tenant or set is a 404", async () => {
    const mine = (await upload(set01)).json();
    const r = await upload(set01, 'text/plain', otherKey, tenantId);
    expect([r.statusCode, r.json().error.code]).toEqual([404, 'tenant_not_found']);
    const other = await t.call(otherKey, { method: 'GET', url: `${url(otherTenantId)}/${mine.id}` });
    expect([other.statusCode, other.json().error.code]).toEqual([404, 'certification_set_not_found']);
    const notUuid = await t.call(key, { method: 'GET', url: `${url()}/nope` });
    expect([notUuid.statusCode, notUuid.json().error.code]).toEqual([404, 'certification_set_not_found']);
  });
});
