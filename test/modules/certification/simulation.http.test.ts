import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../support/db.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, waitFinal, type IssuingApp } from '../../support/issuing.ts';

/**
 * The certification's simulation through the real app on the embedded default provider
 * (docs/certification.md, "The simulation"): the tenant's own documents made in order, sent,
 * accepted by the emulator and followed on the run; all or nothing when one cannot be made or a
 * folio is short; the set's reference refused; a tenant outside certification; another account.
 */
interface Run {
  id: string;
  documents: { dteId: string; tipoDte: number; folio: number; status: string }[];
  statuses: Record<string, number>;
  done: boolean;
}

describeEachDb('certification: the simulation', (backend) => {
  let t: IssuingApp;
  let key: string;
  let tenantId: string;

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
    tenantId = await readyTenant(t, key, { ambiente: 'certificacion' });
    await requestFolios(t, key, tenantId, 33, 3);
    await requestFolios(t, key, tenantId, 34, 1);
  });
  afterAll(() => t?.close());

  const simulate = (documents: unknown[], k = key, tenant = tenantId) =>
    t.call(k, { method: 'POST', url: `/api/v1/tenants/${tenant}/certification/simulation`, payload: { documents } });
  const dteCount = async () =>
    Number((await t.ctx.db.query<{ n: string }>('select count(*)::text as n from dtes where tenant_id = $1', [tenantId])).rows[0]!.n);

  it('makes the documents in order, sends them, and shows each accepted', async () => {
    const r = await simulate([dteBody(33), dteBody(34), dteBody(33)]);
    expect(r.statusCode, r.body).toBe(201);
    const run: Run = r.json();
    expect(run.documents.map((d) => [d.tipoDte, d.folio, d.status])).toEqual([
      [33, 1, 'created'],
      [34, 1, 'created'],
      [33, 2, 'created'],
    ]);
    expect(run).toMatchObject({ object: 'certification_simulation', tenantId, done: false });
    expect(run.statuses.created).toBe(3);
    // Ordinary documents, without the test set's reference.
    const first = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${run.documents[0]!.dteId}` })).json();
    expect(first.referencias).toEqual([]);

    const sent = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/certification/simulation/${run.id}/send` });
    expect(sent.statusCode, sent.body).toBe(202);
    expect(
      sent
        .json()
        .envios.flatMap((e: { dteIds: string[] }) => e.dteIds)
        .sort(),
    ).toEqual(run.documents.map((d) => d.dteId).sort());
    for (const d of run.documents) expect((await waitFinal(t, key, d.dteId)).status).toBe('accepted');

    const shown: Run = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/certification/simulation/${run.id}` })).json();
    expect(shown.documents.map((d) => d.status)).toEqual(['accepted', 'accepted', 'accepted']);
    expect(shown.statuses).toMatchObject({ accepted: 3, created: 0, rejected: 0 });
    expect(shown.done).toBe(true);
    // Sent once: again, nothing.
    const again = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/certification/simulation/${run.id}/send` });
    expect(again.json()).toEqual({ envios: [] });
  });

  it('all or nothing: a document that cannot be made, the set reference, folios short', async () => {
    const before = await dteCount();
    // A credit note that names no document: 422, as POST …/dte answers.
    const bad = await simulate([dteBody(33), { ...dteBody(61), referencias: undefined }]);
    expect(bad.statusCode, bad.body).toBe(422);
    expect(bad.json().error.code).toBe('certification_simulation_unbuildable');
    expect(bad.json().error.details.documents.map((d: { index: number; code: string }) => [d.index, d.code])).toEqual([
      [1, 'references_required'],
    ]);

    const setRef = dteBody(33, { referencias: [{ tipoDocRef: 'SET', folioRef: 1, fechaRef: '2026-11-28', razonRef: 'CASO 1-1' }] });
    const withSet = await simulate([setRef]);
    expect(withSet.statusCode, withSet.body).toBe(422);
    expect(withSet.json().error).toMatchObject({
      code: 'certification_simulation_unbuildable',
      param: 'documents[0].referencias[0].tipoDocRef',
    });
    expect(withSet.json().error.details.documents[0].code).toBe('certification_simulation_set_reference');

    // One folio of 33 left: two asked.
    const short = await simulate([dteBody(33), dteBody(33)]);
    expect(short.statusCode, short.body).toBe(409);
    expect(short.json().error).toMatchObject({ code: 'certification_folios_missing', param: 'documents' });
    expect(short.json().error.details.missing).toEqual([{ tipoDte: 33, needed: 2, available: 1 }]);
    expect(await dteCount()).toBe(before);
  });

  it('a tenant in produccion: 409; empty or too long a list: 400; unknown or foreign run: 404', async () => {
    const prod = await readyTenant(t, key, { ambiente: 'produccion' });
    const r = await simulate([dteBody(33)], key, prod);
    expect(r.statusCode).toBe(409);
    expect(r.json().error.code).toBe('certification_tenant_not_in_certification');

    expect((await simulate([])).statusCode).toBe(400);
    expect((await simulate(Array.from({ length: 101 }, () => dteBody(33)))).statusCode).toBe(400);

    const unknown = await t.call(key, {
      method: 'GET',
      url: `/api/v1/tenants/${tenantId}/certification/simulation/5b1b6c1e-0000-4000-8000-000000000000`,
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('certification_simulation_not_found');
    const ok = await simulate([dteBody(33)]);
    expect(ok.statusCode, ok.body).toBe(201);
    const { key: otherKey } = await t.account();
    const foreign = await t.call(otherKey, {
      method: 'GET',
      url: `/api/v1/tenants/${tenantId}/certification/simulation/${ok.json().id}`,
    });
    expect(foreign.statusCode).toBe(404);
  });
});
