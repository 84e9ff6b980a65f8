import { afterAll, beforeAll, expect, it } from 'vitest';
import { siiDate } from '../../../src/dte/index.ts';
import { validTenant } from '../../support/app.ts';
import { describeEachDb } from '../../support/db.ts';
import { dteBody, randomRut, readyTenant, requestFolios, startIssuingApp, type IssuingApp } from '../../support/issuing.ts';

/**
 * Bad input on every issuing route gets a 4xx with its own code (and the field it names), never a
 * 5xx: wrong types, missing fields, totals off by one, 61 lines, unknown or foreign ids, an
 * inactive tenant.
 */
interface Case {
  name: string;
  body: unknown;
  status: number;
  code: string;
  param?: string;
}

describeEachDb('issuing routes refuse bad input with a specific 4xx', (backend) => {
  let t: IssuingApp;
  let key: string;
  let otherKey: string;
  let tenantId: string;
  let otherTenantSameAccount: string;
  let inactiveTenant: string;
  let foreignTenant: string;
  let sentId: string;
  let createdId: string;

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
    ({ key: otherKey } = await t.account('Other'));
    tenantId = await readyTenant(t, key);
    otherTenantSameAccount = await readyTenant(t, key);
    foreignTenant = await readyTenant(t, otherKey);
    inactiveTenant = (
      await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant({ rutEmpresa: randomRut() }) })
    ).json().id;
    for (const tipo of [33, 39, 61]) await requestFolios(t, key, tenantId, tipo, 20);
    await requestFolios(t, key, otherTenantSameAccount, 33, 5);
    await requestFolios(t, otherKey, foreignTenant, 33, 5);
    createdId = (await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(33) })).json().id;
    sentId = (await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(33) })).json().id;
    await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte/send`, payload: { dteIds: [sentId] } });
  });
  afterAll(() => t?.close());

  const expectError = (
    r: { statusCode: number; json(): { error: { code: string; param?: string; message: string } } },
    c: Omit<Case, 'body' | 'name'>,
    label: string,
  ) => {
    expect(r.statusCode, label).toBe(c.status);
    const e = r.json().error;
    expect(e.code, label).toBe(c.code);
    if (c.param) expect(e.param, label).toBe(c.param);
    expect(e.message.length, label).toBeGreaterThan(10);
  };

  it('POST …/dte', async () => {
    const good = dteBody(33);
    const lines61 = Array.from({ length: 61 }, (_, i) => ({ nombre: `Ítem ${i}`, cantidad: 1, precioUnitario: 100 }));
    const detalle = good.detalle as { montoItem: number }[];
    const cases: Case[] = [
      { name: 'empty body', body: {}, status: 400, code: 'invalid_field', param: 'tipoDte' },
      { name: 'tipoDte as text', body: { ...good, tipoDte: '33' }, status: 400, code: 'invalid_field', param: 'tipoDte' },
      { name: 'unsupported type', body: { ...good, tipoDte: 44 }, status: 422, code: 'unsupported_tipo_dte', param: 'tipoDte' },
      { name: 'no detalle', body: { ...good, detalle: undefined }, status: 400, code: 'invalid_field', param: 'detalle' },
      { name: 'empty detalle', body: { ...good, detalle: [] }, status: 400, code: 'invalid_field', param: 'detalle' },
      {
        name: 'line without montoItem',
        body: { ...good, detalle: [{ nombre: 'x', cantidad: 1, precioUnitario: 1 }] },
        status: 400,
        code: 'invalid_field',
        param: 'detalle[0].montoItem',
      },
      {
        name: 'cantidad as text',
        body: { ...good, detalle: [{ ...detalle[0], cantidad: 'diez' }] },
        status: 400,
        code: 'invalid_field',
        param: 'detalle[0].cantidad',
      },
      {
        name: 'negative price',
        body: { ...good, detalle: [{ ...detalle[0], precioUnitario: -1 }] },
        status: 400,
        code: 'invalid_field',
        param: 'detalle[0].precioUnitario',
      },
      { name: 'decimal amount', body: { ...good, montoTotal: 10.5 }, status: 422, code: 'amount_mismatch', param: 'montoTotal' },
      { name: 'no montoTotal', body: { ...good, montoTotal: undefined }, status: 400, code: 'invalid_field', param: 'montoTotal' },
      {
        name: 'total off by one',
        body: { ...good, montoTotal: (good.montoTotal as number) + 1 },
        status: 422,
        code: 'amount_mismatch',
        param: 'montoTotal',
      },
      {
        name: 'line amount off by one',
        body: { ...good, detalle: [{ ...detalle[0], montoItem: detalle[0]!.montoItem - 1 }, ...detalle.slice(1)] },
        status: 422,
        code: 'amount_mismatch',
        param: 'detalle[0].montoItem',
      },
      { name: '61 lines', body: dteBody(33, { detalle: lines61 }), status: 400, code: 'too_many_lines', param: 'detalle' },
      { name: 'no receptor', body: { ...good, receptor: undefined }, status: 400, code: 'required_field', param: 'receptor' },
      {
        name: 'no razón social',
        body: { ...good, receptor: { rut: '77.777.777-7' } },
        status: 400,
        code: 'required_field',
        param: 'receptor.razonSocial',
      },
      {
        name: 'bad receptor RUT',
        body: { ...good, receptor: { rut: '77.777.777-8', razonSocial: 'X' } },
        status: 400,
        code: 'invalid_rut',
        param: 'receptor.rut',
      },
      { name: 'unknown field', body: { ...good, descuento: 5 }, status: 400, code: 'invalid_field', param: 'descuento' },
      { name: 'future date', body: { ...good, fechaEmision: '2099-01-01' }, status: 400, code: 'invalid_date', param: 'fechaEmision' },
      { name: 'impossible date', body: { ...good, fechaEmision: '2026-02-30' }, status: 400, code: 'invalid_date', param: 'fechaEmision' },
      {
        name: 'emoji',
        body: dteBody(33, { detalle: [{ nombre: 'Café ☕', cantidad: 1, precioUnitario: 1000 }] }),
        status: 400,
        code: 'unsupported_character',
        param: 'detalle[0].nombre',
      },
      {
        name: 'nota without referencias',
        body: dteBody(61, { referencias: undefined }),
        status: 422,
        code: 'references_required',
        param: 'referencias',
      },
      {
        name: 'referencia codRef 4',
        body: dteBody(61, { referencias: [{ tipoDocRef: 33, folioRef: 1, fechaRef: '2026-01-01', codRef: 4, razonRef: 'x' }] }),
        status: 400,
        code: 'invalid_field',
      },
      { name: 'array body', body: [good], status: 400, code: 'invalid_field' },
      { name: 'null body', body: null, status: 400, code: 'invalid_field' },
    ];
    for (const c of cases) {
      const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: c.body as object });
      expectError(r, c, c.name);
    }
    const mismatch = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/dte`,
      payload: { ...good, montoTotal: (good.montoTotal as number) + 1 },
    });
    expect(mismatch.json().error.details).toMatchObject({ expected: good.montoTotal, actual: (good.montoTotal as number) + 1 });
    expect(mismatch.json().error.message).toContain(String(good.montoTotal));
    const notJson = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/dte`,
      payload: '{"tipoDte": 33,',
      headers: { 'content-type': 'application/json' },
    });
    expectError(notJson, { status: 400, code: 'invalid_json' }, 'broken JSON');
    // A boleta may have up to 1000 lines.
    const bol = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(39, { detalle: lines61 }) });
    expect(bol.statusCode, bol.body).toBe(201);
    // Tenants: inactive, unknown, another account's; no folios of that type.
    expectError(
      await t.call(key, { method: 'POST', url: `/api/v1/tenants/${inactiveTenant}/dte`, payload: good }),
      { status: 409, code: 'tenant_not_ready' },
      'inactive',
    );
    expectError(
      await t.call(key, { method: 'POST', url: `/api/v1/tenants/${crypto.randomUUID()}/dte`, payload: good }),
      { status: 404, code: 'tenant_not_found' },
      'unknown',
    );
    expectError(
      await t.call(key, { method: 'POST', url: `/api/v1/tenants/${foreignTenant}/dte`, payload: good }),
      { status: 404, code: 'tenant_not_found' },
      'foreign',
    );
    expectError(
      await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(34) }),
      { status: 409, code: 'folios_exhausted', param: 'tipoDte' },
      'no folios',
    );
  });

  it('POST …/dte/send', async () => {
    const unknown = crypto.randomUUID();
    const foreignDte = (
      await t.call(otherKey, { method: 'POST', url: `/api/v1/tenants/${foreignTenant}/dte`, payload: dteBody(33) })
    ).json().id;
    const otherTenantDte = (
      await t.call(key, { method: 'POST', url: `/api/v1/tenants/${otherTenantSameAccount}/dte`, payload: dteBody(33) })
    ).json().id;
    const cases: Case[] = [
      { name: 'empty body', body: {}, status: 400, code: 'invalid_field', param: 'dteIds' },
      { name: 'not an array', body: { dteIds: createdId }, status: 400, code: 'invalid_field', param: 'dteIds' },
      { name: 'empty list', body: { dteIds: [] }, status: 400, code: 'invalid_field', param: 'dteIds' },
      {
        name: '501 ids',
        body: { dteIds: Array.from({ length: 501 }, () => crypto.randomUUID()) },
        status: 400,
        code: 'invalid_field',
        param: 'dteIds',
      },
      { name: 'number id', body: { dteIds: [123] }, status: 400, code: 'invalid_field', param: 'dteIds[0]' },
      { name: 'unknown id', body: { dteIds: [createdId, unknown] }, status: 404, code: 'dte_not_found', param: 'dteIds[1]' },
      { name: 'not a uuid', body: { dteIds: ['nope'] }, status: 404, code: 'dte_not_found', param: 'dteIds[0]' },
      { name: 'another tenant of the account', body: { dteIds: [otherTenantDte] }, status: 404, code: 'dte_not_found', param: 'dteIds[0]' },
      { name: 'another account', body: { dteIds: [foreignDte] }, status: 404, code: 'dte_not_found', param: 'dteIds[0]' },
      { name: 'duplicate', body: { dteIds: [createdId, createdId] }, status: 400, code: 'duplicate_dte_id', param: 'dteIds[1]' },
      { name: 'already sent', body: { dteIds: [createdId, sentId] }, status: 409, code: 'dte_already_sent', param: 'dteIds[1]' },
    ];
    for (const c of cases) {
      const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte/send`, payload: c.body as object });
      expectError(r, c, c.name);
    }
    const named = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte/send`, payload: { dteIds: [unknown] } });
    expect(named.json().error.message).toContain(unknown);
    // Nothing moved: the refused sends changed no state.
    expect((await t.call(key, { method: 'GET', url: `/api/v1/dte/${createdId}/status` })).json().status).toBe('created');
    expectError(
      await t.call(key, { method: 'POST', url: `/api/v1/tenants/${inactiveTenant}/dte/send`, payload: { dteIds: [createdId] } }),
      { status: 409, code: 'tenant_not_ready' },
      'inactive tenant',
    );
  });

  it('folio routes', async () => {
    const url = `/api/v1/tenants/${tenantId}/folios`;
    const cases: [string, unknown, number, string, string?][] = [
      ['empty body', {}, 400, 'invalid_field', 'tipoDte'],
      ['no cantidad', { tipoDte: 33 }, 400, 'invalid_field', 'cantidad'],
      ['cantidad 0', { tipoDte: 33, cantidad: 0 }, 400, 'invalid_field', 'cantidad'],
      ['cantidad 1001', { tipoDte: 33, cantidad: 1001 }, 400, 'invalid_field', 'cantidad'],
      ['cantidad decimal', { tipoDte: 33, cantidad: 1.5 }, 400, 'invalid_field', 'cantidad'],
      ['tipo as text', { tipoDte: '33', cantidad: 1 }, 400, 'invalid_field', 'tipoDte'],
      ['unsupported tipo', { tipoDte: 44, cantidad: 1 }, 422, 'unsupported_tipo_dte', 'tipoDte'],
    ];
    for (const [name, body, status, code, param] of cases) {
      expectError(
        await t.call(key, { method: 'POST', url: `${url}/request`, payload: body as object }),
        { status, code, ...(param ? { param } : {}) },
        name,
      );
    }
    expectError(
      await t.call(key, { method: 'POST', url: `/api/v1/tenants/${inactiveTenant}/folios/request`, payload: { tipoDte: 33, cantidad: 1 } }),
      { status: 409, code: 'tenant_not_ready' },
      'inactive',
    );
    expectError(
      await t.call(key, { method: 'GET', url: `${url}/requests/${crypto.randomUUID()}` }),
      { status: 404, code: 'folio_request_not_found' },
      'unknown request',
    );
    expectError(
      await t.call(key, { method: 'GET', url: `${url}/requests/xyz` }),
      { status: 404, code: 'folio_request_not_found' },
      'bad request id',
    );
    expectError(await t.call(otherKey, { method: 'GET', url }), { status: 404, code: 'tenant_not_found' }, 'foreign inventory');
    expectError(
      await t.call(key, { method: 'PATCH', url: `${url}/33`, payload: { lowThreshold: -1 } }),
      { status: 400, code: 'invalid_field', param: 'lowThreshold' },
      'negative',
    );
    expectError(
      await t.call(key, { method: 'PATCH', url: `${url}/33`, payload: { lowThreshold: 'x' } }),
      { status: 400, code: 'invalid_field' },
      'text threshold',
    );
    expectError(
      await t.call(key, { method: 'PATCH', url: `${url}/33`, payload: {} }),
      { status: 400, code: 'invalid_field', param: 'lowThreshold' },
      'no threshold',
    );
    expectError(
      await t.call(key, { method: 'PATCH', url: `${url}/abc`, payload: { lowThreshold: 1 } }),
      { status: 400, code: 'invalid_tipo_dte', param: 'tipoDte' },
      'tipo abc',
    );
    expectError(
      await t.call(key, { method: 'PATCH', url: `${url}/44`, payload: { lowThreshold: 1 } }),
      { status: 422, code: 'unsupported_tipo_dte' },
      'tipo 44',
    );
  });

  it('read routes: unknown, malformed and foreign ids are 404; bad filters are 400', async () => {
    const base = `/api/v1/tenants/${tenantId}/dte`;
    for (const id of [crypto.randomUUID(), 'x', "1' or '1'='1"]) {
      for (const url of [
        `${base}/${encodeURIComponent(id)}`,
        `${base}/${encodeURIComponent(id)}/xml`,
        `${base}/${encodeURIComponent(id)}/history`,
        `/api/v1/dte/${encodeURIComponent(id)}/status`,
        `/dte/${encodeURIComponent(id)}/status`,
      ]) {
        expectError(await t.call(key, { method: 'GET', url }), { status: 404, code: 'dte_not_found' }, url);
      }
      expectError(
        await t.call(key, { method: 'GET', url: `${base}/envios/${encodeURIComponent(id)}` }),
        { status: 404, code: 'envio_not_found' },
        'envio',
      );
    }
    for (const url of [`/api/v1/dte/${createdId}/status`, `/dte/${createdId}/status`, `${base}/${createdId}`]) {
      expect((await t.call(otherKey, { method: 'GET', url })).statusCode, url).toBe(404);
    }
    expect((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${otherTenantSameAccount}/dte/${createdId}` })).statusCode).toBe(404);
    expectError(
      await t.call(key, { method: 'GET', url: `${base}?status=done` }),
      { status: 400, code: 'invalid_parameter', param: 'status' },
      'status filter',
    );
    expectError(
      await t.call(key, { method: 'GET', url: `${base}?tipoDte=abc` }),
      { status: 400, code: 'invalid_parameter', param: 'tipoDte' },
      'tipo filter',
    );
    expectError(
      await t.call(key, { method: 'GET', url: `${base}?limit=0` }),
      { status: 400, code: 'invalid_parameter', param: 'limit' },
      'limit',
    );
    expectError(
      await t.call(key, { method: 'GET', url: `${base}?iterator=garbage` }),
      { status: 400, code: 'invalid_iterator' },
      'iterator',
    );
  });

  it('a tenant without activity codes issues boletas; a factura is 409 tenant_acteco_missing and spends no folio', async () => {
    const id = await readyTenant(t, key, { acteco: undefined });
    expect((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${id}` })).json().acteco).toEqual([]);
    await requestFolios(t, key, id, 33, 2);
    await requestFolios(t, key, id, 39, 2);
    const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${id}/dte`, payload: dteBody(33) });
    expect(r.statusCode, r.body).toBe(409);
    expect(r.json().error).toMatchObject({ code: 'tenant_acteco_missing', param: 'acteco' });
    expect(r.json().error.message).toContain('PATCH /api/v1/tenants/{tenantId}');
    const b = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${id}/dte`, payload: dteBody(39) });
    expect(b.statusCode, b.body).toBe(201);
    await t.call(key, { method: 'PATCH', url: `/api/v1/tenants/${id}`, payload: { acteco: [620200] } });
    const f = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${id}/dte`, payload: dteBody(33) });
    expect(f.statusCode, f.body).toBe(201);
    expect(f.json().folio).toBe(1);
  });

  it("a note that cancels one of the tenant's documents for another amount is 422 reference_amount_mismatch and spends no folio", async () => {
    const created = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${createdId}` })).json();
    const annul = (montoTotal: number | undefined, detalle?: unknown) =>
      dteBody(61, {
        referencias: [{ tipoDocRef: 33, folioRef: created.folio, fechaRef: created.fechaEmision, codRef: 1, razonRef: 'Anula factura' }],
        ...(detalle ? { detalle } : {}),
        ...(montoTotal !== undefined ? { montoTotal } : {}),
      });
    const partial = [{ nombre: 'Servicio de desarrollo', cantidad: 1, precioUnitario: 35000 }];
    const inventory = await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` });
    expect(inventory.statusCode).toBe(200);
    const before = inventory.json();
    const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: annul(undefined, partial) });
    expectError(r, { status: 422, code: 'reference_amount_mismatch', param: 'referencias[0].codRef' }, 'partial cancellation');
    expect(r.json().error.details).toEqual({ expected: created.montoTotal, actual: 41650 });
    expect((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` })).json()).toEqual(before);
    // The same lines as the cancelled factura: accepted. A folio this tenant never issued cannot be checked here.
    const ok = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: annul(created.montoTotal) });
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it('a document dated before every CAF with folios left is 422 date_before_caf and spends no folio', async () => {
    // The emulated SII authorises CAFs today; the SII rejects a document dated before its CAF (HED-3-305).
    const yesterday = siiDate(new Date(Date.now() - 86_400_000)); // dates in Chile's time zone, like the SII's
    const before = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` })).json();
    const r = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/dte`,
      payload: dteBody(33, { fechaEmision: yesterday }),
    });
    expectError(r, { status: 422, code: 'date_before_caf', param: 'fechaEmision' }, 'dated yesterday');
    expect(r.json().error.details.earliestAuthorization).toBe(siiDate(new Date()));
    expect((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` })).json()).toEqual(before);
  });

  it('lists with filters and iterator pagination', async () => {
    const base = `/api/v1/tenants/${tenantId}/dte`;
    const all: string[] = [];
    let iterator: string | null = null;
    do {
      const page: { data: { id: string }[]; iterator: string | null; done: boolean } = (
        await t.call(key, { method: 'GET', url: `${base}?limit=2${iterator ? `&iterator=${iterator}` : ''}` })
      ).json();
      all.push(...page.data.map((d) => d.id));
      iterator = page.iterator;
      expect(page.done).toBe(iterator === null);
    } while (iterator);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toContain(createdId);
    const created = (await t.call(key, { method: 'GET', url: `${base}?status=created&tipoDte=33` })).json().data;
    expect(created.every((d: { status: string; tipoDte: number }) => d.status === 'created' && d.tipoDte === 33)).toBe(true);
    expect(created.map((d: { id: string }) => d.id)).toContain(createdId);
    expect(created.map((d: { id: string }) => d.id)).not.toContain(sentId);
  });
});
