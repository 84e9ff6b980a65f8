import { afterAll, beforeAll, expect, it } from 'vitest';
import { manualClock } from '../../../src/lib/clock.ts';
import { describeEachDb } from '../../support/db.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, waitFinal, type IssuingApp } from '../../support/issuing.ts';

/**
 * Rejections are the SII's (the emulator's) verdicts on real documents, surfaced in the DTE's
 * status: an altered signature, a reused folio, an expired CAF, with the SII's code for boletas
 * (whose envelope answer lists them); for facturas the SII answers counts only, and the service
 * finds which documents were rejected by asking about each (docs/dte.md, "How a verdict is read").
 * Plus the sandbox triggers, and an upload that fails (send_failed, then sent again).
 */
const DAY = 86_400_000;

describeEachDb('rejections surfaced in the DTE status', (backend) => {
  let t: IssuingApp;
  let key: string;
  const clock = manualClock(new Date());

  beforeAll(async () => {
    t = await startIssuingApp(backend, { clock });
    ({ key } = await t.account());
  });
  afterAll(() => t?.close());

  const create = async (tenantId: string, tipo: 33 | 34 | 39 = 33, over: Record<string, unknown> = {}) => {
    const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(tipo, over, clock.now()) });
    expect(r.statusCode, r.body).toBe(201);
    return r.json() as { id: string; folio: number };
  };
  const send = async (tenantId: string, ids: string[]) => {
    const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte/send`, payload: { dteIds: ids } });
    expect(r.statusCode, r.body).toBe(202);
    return r.json();
  };

  it('a DTE whose signed bytes were altered after signing is rejected: DTE-3-505', async () => {
    const tenantId = await readyTenant(t, key);
    await requestFolios(t, key, tenantId, 39, 5);
    const d = await create(tenantId, 39);
    // Storage corruption: one letter of a signed field changes, nothing else.
    const { rows } = await t.ctx.db.query<{ xml: Buffer }>('select xml from dtes where id = $1', [d.id]);
    const altered = Buffer.from(rows[0]!.xml.toString('latin1').replace('Medialuna', 'Medialona'), 'latin1');
    expect(altered.equals(rows[0]!.xml)).toBe(false);
    await t.ctx.db.query('update dtes set xml = $2 where id = $1', [d.id, altered]);
    await send(tenantId, [d.id]);
    const s = await waitFinal(t, key, d.id);
    expect(s).toMatchObject({ status: 'rejected', sii: { estado: 'RCH' } });
    expect(s.sii.glosa).toContain('DTE-3-505 Firma DTE Incorrecta');
  });

  it('a folio issued twice (a database restored from an old backup) is rejected: DTE-3-101', async () => {
    const tenantId = await readyTenant(t, key);
    await requestFolios(t, key, tenantId, 39, 5);
    const first = await create(tenantId, 39);
    await send(tenantId, [first.id]);
    expect((await waitFinal(t, key, first.id)).status).toBe('accepted');
    // The restore brings back the state from before `first` was created.
    await t.ctx.db.query('delete from dtes where id = $1', [first.id]);
    await t.ctx.db.query('delete from folio_allocations where tenant_id = $1 and folio = $2', [tenantId, first.folio]);
    await t.ctx.db.query('update folio_ranges set next_folio = $2 where tenant_id = $1 and tipo_dte = 39', [tenantId, first.folio]);
    const second = await create(tenantId, 39, { receptor: { rut: '76.354.771-K', razonSocial: 'Otro Cliente SpA' } });
    expect(second.folio).toBe(first.folio);
    await send(tenantId, [second.id]);
    const s = await waitFinal(t, key, second.id);
    expect(s).toMatchObject({ status: 'rejected', sii: { estado: 'RCH' } });
    expect(s.sii.glosa).toMatch(/^DTE-3-101 Folio para este Tipo de documento ya fue recibido en el SII/);
  });

  it('a factura stamped on the last day of its CAF but received after it expired is rejected (CAF-3-517 at the SII)', async () => {
    const start = clock.now();
    const tenantId = await readyTenant(t, key);
    await requestFolios(t, key, tenantId, 33, 5);
    clock.advance(179 * DAY);
    const d = await create(tenantId);
    clock.advance(2 * DAY);
    await send(tenantId, [d.id]);
    const s = await waitFinal(t, key, d.id);
    expect(s).toMatchObject({ status: 'rejected', sii: { estado: 'RCH' } });
    // A factura's envelope answer is counts only (boleta CAFs do not expire): the reason is in the SII's e-mail.
    expect(s.sii.glosa).toContain('1 de 1 documentos tipo 33');
    // And the service itself no longer issues with that CAF.
    const again = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(33, {}, clock.now()) });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('folios_exhausted');
    clock.set(start);
  });

  it('sandbox on boletas: RECHAZO rejects and REPARO gives accepted_with_objections, with their codes', async () => {
    const tenantId = await readyTenant(t, key);
    await requestFolios(t, key, tenantId, 39, 5);
    const rej = await create(tenantId, 39, { receptor: { rut: '77.777.777-7', razonSocial: 'Cliente RECHAZO SpA' } });
    const rep = await create(tenantId, 39, { receptor: { rut: '77.777.777-7', razonSocial: 'Cliente REPARO SpA' } });
    const ok = await create(tenantId, 39);
    await send(tenantId, [rej.id, rep.id, ok.id]);
    expect(await waitFinal(t, key, rej.id)).toMatchObject({
      status: 'rejected',
      sii: { estado: 'RCH', glosa: expect.stringMatching(/^SBX-3-001 Rechazo de prueba/) },
    });
    expect(await waitFinal(t, key, rep.id)).toMatchObject({
      status: 'accepted_with_objections',
      sii: { estado: 'RPR', glosa: expect.stringMatching(/^SBX-2-001 Reparo de prueba/) },
    });
    expect((await waitFinal(t, key, ok.id)).status).toBe('accepted');
  });

  it('facturas: counts only, so the rejected one is found by asking about each; a type of reparos only is accepted with objections', async () => {
    const tenantId = await readyTenant(t, key);
    await requestFolios(t, key, tenantId, 33, 5);
    const rej = await create(tenantId, 33, {
      receptor: {
        rut: '77.777.777-7',
        razonSocial: 'Cliente RECHAZO SpA',
        giro: 'Comercio',
        direccion: 'Calle Uno 123',
        comuna: 'Santiago',
      },
    });
    const ok1 = await create(tenantId, 33);
    const ok2 = await create(tenantId, 33);
    await send(tenantId, [rej.id, ok1.id, ok2.id]);
    const a = await waitFinal(t, key, rej.id);
    expect(a).toMatchObject({ status: 'rejected', sii: { estado: 'RCH' } });
    expect(a.sii.glosa).toContain('1 de 3 documentos tipo 33');
    expect(a.sii.glosa).toContain('correo de validación');
    expect(await waitFinal(t, key, ok1.id)).toMatchObject({ status: 'accepted', sii: { estado: 'DOK' } });
    expect((await waitFinal(t, key, ok2.id)).status).toBe('accepted');
    const rep = await create(tenantId, 33, {
      receptor: {
        rut: '77.777.777-7',
        razonSocial: 'Cliente REPARO SpA',
        giro: 'Comercio',
        direccion: 'Calle Uno 123',
        comuna: 'Santiago',
      },
    });
    await send(tenantId, [rep.id]);
    expect(await waitFinal(t, key, rep.id)).toMatchObject({ status: 'accepted_with_objections', sii: { estado: 'RPR' } });
  });

  it('an upload that cannot happen leaves the DTEs send_failed; they can be sent again', async () => {
    const tenantId = await readyTenant(t, key);
    await requestFolios(t, key, tenantId, 39, 5);
    const d = await create(tenantId, 39);
    // The only certificate is removed before the upload runs.
    const certs = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/credentials/status` })).json().certificates;
    await t.call(key, { method: 'DELETE', url: `/api/v1/tenants/${tenantId}/credentials/certificates/${certs[0].id}` });
    const s1 = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte/send`, payload: { dteIds: [d.id] } });
    // Without a certificate the tenant is not ready: nothing is queued.
    expect(s1.statusCode).toBe(409);
    expect(s1.json().error.code).toBe('tenant_not_ready');
    // Ready again; the send goes through and its upload is refused by the provider (a certificate
    // that does not open for SimpleAPI would do the same) → send_failed.
    const tenant2 = await readyTenant(t, key);
    const rut2 = (await t.ctx.db.query<{ rut_empresa: string }>('select rut_empresa from tenants where id = $1', [tenant2])).rows[0]!
      .rut_empresa;
    await requestFolios(t, key, tenant2, 39, 5);
    const d2 = await create(tenant2, 39);
    await t.ctx.db.query(`update tenants set rut_empresa = '96.790.240-3' where id = $1`, [tenant2]);
    await send(tenant2, [d2.id]);
    const failed = await waitFinal(t, key, d2.id);
    expect(failed.status).toBe('send_failed');
    expect(failed.sii.glosa).toMatch(/^envelope_rut_mismatch/);
    await t.ctx.db.query(`update tenants set rut_empresa = $2 where id = $1`, [tenant2, rut2]);
    const again = await send(tenant2, [d2.id]);
    expect(again.envios[0].trackId).toMatch(/^\d+$/);
    expect((await waitFinal(t, key, d2.id)).status).toBe('accepted');
    const hist = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenant2}/dte/${d2.id}/history` })).json().data;
    expect(hist.map((h: { status: string }) => h.status)).toEqual(['created', 'sending', 'send_failed', 'sending', 'sent', 'accepted']);
  });
});
