import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../support/db.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, type IssuingApp } from '../../support/issuing.ts';

/** Folio requests (201 / 202 / provider failures), the inventory, thresholds and folio.low. */
describeEachDb('folios over HTTP', (backend) => {
  let t: IssuingApp;
  let key: string;

  beforeAll(async () => {
    t = await startIssuingApp(backend, { env: { EMULATOR_SLOW: '1500ms' } });
    ({ key } = await t.account());
  });
  afterAll(() => t?.close());

  const lowEvents = async (tenantId: string) =>
    (
      await t.ctx.db.query<{ payload: string }>(`select payload from outbox_events where event_type = 'folio.low' order by created_at, id`)
    ).rows
      .map((r) => JSON.parse(r.payload).data)
      .filter((d) => d.tenantId === tenantId);

  it('answers 201 with the range, stores the CAF key encrypted, and shows it in the inventory', async () => {
    const tenantId = await readyTenant(t, key);
    const r = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/folios/request`,
      payload: { tipoDte: 33, cantidad: 25 },
    });
    expect(r.statusCode, r.body).toBe(201);
    const body = r.json();
    expect(body).toMatchObject({ tenantId, tipoDte: 33, cantidad: 25, status: 'completed', error: null, rango: { desde: 1, hasta: 25 } });
    expect(body.rango.vencimiento).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios/requests/${body.id}` })).json()).toEqual(body);

    const row = (
      await t.ctx.db.query<{ caf_block: string; private_key_enc: Buffer }>(
        'select caf_block, private_key_enc from folio_ranges where tenant_id = $1',
        [tenantId],
      )
    ).rows[0]!;
    expect(row.caf_block).toMatch(/^<CAF version="1.0">/);
    expect(row.caf_block).not.toContain('RSASK');
    expect(row.private_key_enc.toString('latin1')).not.toContain('PRIVATE KEY');

    const second = await requestFolios(t, key, tenantId, 33, 5);
    expect(second.rango).toMatchObject({ desde: 26, hasta: 30 });
    await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(33) });
    const inv = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` })).json();
    expect(inv.data).toHaveLength(1);
    expect(inv.data[0]).toMatchObject({
      tipoDte: 33,
      total: 30,
      usados: 1,
      disponibles: 29,
      porcentaje: 96.7,
      siguienteFolio: 2,
      lowThreshold: 10,
    });
    expect(inv.data[0].rangos.map((g: { desde: number; disponibles: number }) => [g.desde, g.disponibles])).toEqual([
      [1, 24],
      [26, 5],
    ]);
  });

  it('answers 202 with the pending request when the provider is slow, and the request completes later', async () => {
    const t2 = await startIssuingApp(backend, { env: { EMULATOR_SLOW: '1500ms', FOLIO_REQUEST_WAIT: '200ms' } });
    try {
      const k = (await t2.account()).key;
      const tenantId = await readyTenant(t2, k, {}, 'sandbox-slow-key-01');
      const r = await t2.call(k, {
        method: 'POST',
        url: `/api/v1/tenants/${tenantId}/folios/request`,
        payload: { tipoDte: 34, cantidad: 3 },
      });
      expect(r.statusCode, r.body).toBe(202);
      expect(r.json()).toMatchObject({ status: 'pending', rango: null, completedAt: null });
      const deadline = Date.now() + 15_000;
      let req;
      do {
        await new Promise((x) => setTimeout(x, 100));
        req = (await t2.call(k, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios/requests/${r.json().id}` })).json();
      } while (req.status === 'pending' && Date.now() < deadline);
      expect(req).toMatchObject({ status: 'completed', rango: { desde: 1, hasta: 3 } });
    } finally {
      await t2.close();
    }
  });

  it('maps provider refusals to their codes and records the failed request', async () => {
    const tenantId = await readyTenant(t, key, {}, 'sandbox-quota-key-01');
    const r = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/folios/request`,
      payload: { tipoDte: 33, cantidad: 5 },
    });
    expect(r.statusCode).toBe(422);
    const err = r.json().error;
    expect(err.code).toBe('provider_quota_exhausted');
    const req = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios/requests/${err.details.requestId}` })).json();
    expect(req).toMatchObject({ status: 'failed', error: { code: 'provider_quota_exhausted' }, rango: null });
  });

  it('fires folio.low once when stock falls below the threshold, and again only after a refill', async () => {
    const tenantId = await readyTenant(t, key);
    await requestFolios(t, key, tenantId, 39, 5);
    const patch = await t.call(key, { method: 'PATCH', url: `/api/v1/tenants/${tenantId}/folios/39`, payload: { lowThreshold: 3 } });
    expect(patch.statusCode, patch.body).toBe(200);
    expect(patch.json()).toMatchObject({ tipoDte: 39, lowThreshold: 3, disponibles: 5 });
    const issue = async () =>
      expect((await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(39) })).statusCode).toBe(201);
    await issue(); // 4 left
    await issue(); // 3 left: not below 3
    expect(await lowEvents(tenantId)).toEqual([]);
    await issue(); // 2 left: below → fires
    await issue(); // 1 left: already fired
    expect(await lowEvents(tenantId)).toEqual([{ tenantId, tipoDte: 39, disponibles: 2, lowThreshold: 3 }]);
    await requestFolios(t, key, tenantId, 39, 10); // 11 left: re-armed
    for (let i = 0; i < 9; i++) await issue(); // 2 left: fires again
    expect((await lowEvents(tenantId)).map((e) => e.disponibles)).toEqual([2, 2]);
    // Raising the threshold above the stock is a fall below it too, once.
    const up = await t.call(key, { method: 'PATCH', url: `/api/v1/tenants/${tenantId}/folios/39`, payload: { lowThreshold: 50 } });
    expect(up.json()).toMatchObject({ lowThreshold: 50, disponibles: 2 });
    expect((await lowEvents(tenantId)).length).toBe(2);
  });

  it('hands out 50 concurrent creates in one process as 50 distinct consecutive folios', async () => {
    const tenantId = await readyTenant(t, key);
    await requestFolios(t, key, tenantId, 33, 100);
    const all = await Promise.all(
      Array.from({ length: 50 }, () => t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(33) })),
    );
    expect(all.map((r) => r.statusCode)).toEqual(Array(50).fill(201));
    const folios = all.map((r) => r.json().folio as number).sort((a, b) => a - b);
    expect(folios).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const inv = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` })).json().data[0];
    expect(inv).toMatchObject({ usados: 50, disponibles: 50, siguienteFolio: 51 });
  });

  it('an Idempotency-Key replay of a create returns the same DTE and takes no second folio', async () => {
    const tenantId = await readyTenant(t, key);
    await requestFolios(t, key, tenantId, 34, 5);
    const send = () =>
      t.call(key, {
        method: 'POST',
        url: `/api/v1/tenants/${tenantId}/dte`,
        payload: dteBody(34),
        headers: { 'idempotency-key': 'factura-0001' },
      });
    const a = await send();
    const b = await send();
    expect(a.statusCode).toBe(201);
    expect(b.statusCode).toBe(201);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.json().id).toBe(a.json().id);
    const inv = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` })).json().data[0];
    expect(inv).toMatchObject({ usados: 1, siguienteFolio: a.json().folio + 1 });
  });

  it("numbers documents only from CAFs of the tenant's current SII environment", async () => {
    const tenantId = await readyTenant(t, key, { ambiente: 'certificacion' });
    await requestFolios(t, key, tenantId, 33, 5);
    const create = () => t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(33) });
    const inventory = async () => (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` })).json().data;
    expect((await create()).json().folio).toBe(1);
    const setAmbiente = async (ambiente: string) =>
      expect((await t.call(key, { method: 'PATCH', url: `/api/v1/tenants/${tenantId}`, payload: { ambiente } })).statusCode).toBe(200);

    // In production, the certification CAF is neither stock nor a source of folios.
    await setAmbiente('produccion');
    const refused = await create();
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('folios_exhausted');
    expect(await inventory()).toEqual([expect.objectContaining({ tipoDte: 33, total: 0, disponibles: 0, rangos: [] })]);
    const prod = await requestFolios(t, key, tenantId, 33, 3);
    expect((await create()).json().folio).toBe(prod.rango.desde);

    // Back in certification, its own range continues where it stopped.
    await setAmbiente('certificacion');
    expect((await create()).json().folio).toBe(2);
    expect((await inventory())[0]).toMatchObject({ total: 5, disponibles: 3 });
  });

  it('skips expired CAFs when allocating and answers folios_exhausted when none is left', async () => {
    const tenantId = await readyTenant(t, key);
    await requestFolios(t, key, tenantId, 33, 2);
    await requestFolios(t, key, tenantId, 33, 2);
    // The older range expired (its vencimiento is in the past): the newer one is used.
    await t.ctx.db.query(`update folio_ranges set vencimiento = '2020-01-01' where tenant_id = $1 and desde = 1`, [tenantId]);
    const a = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(33) });
    expect(a.json().folio).toBe(3);
    await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(33) });
    const none = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(33) });
    expect(none.statusCode).toBe(409);
    expect(none.json().error).toMatchObject({ code: 'folios_exhausted', param: 'tipoDte' });
    const inv = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` })).json().data[0];
    expect(inv).toMatchObject({ tipoDte: 33, total: 0, disponibles: 0, porcentaje: 0, siguienteFolio: null, rangos: [] });
  });
});
