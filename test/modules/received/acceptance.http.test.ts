import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildEnvelope, formatRutDotted } from '../../../src/dte/index.ts';
import type { manualClock } from '../../../src/lib/clock.ts';
import { describeEachDb } from '../../support/db.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, testCertificate, type IssuingApp } from '../../support/issuing.ts';

/**
 * POST …/received/{id}/acceptance with an injected clock (docs/received.md, "Accepting or
 * claiming"): within the eight days of Ley 19.983 answers are recorded by the rules of the SII's
 * registro (docs/…aceptacion-reclamo-dte-v1.2); a minute after the deadline, 409
 * acceptance_window_closed; only facturas.
 */
const DAY = 86_400_000;

describeEachDb('POST …/received/{id}/acceptance: the eight-day window', (backend) => {
  let t: IssuingApp;
  let clock: ReturnType<typeof manualClock>;
  let buyer: { key: string };
  let tenantB: string;
  const received: string[] = [];

  beforeAll(async () => {
    t = await startIssuingApp(backend, { manualClock: true });
    clock = t.clock as ReturnType<typeof manualClock>;
    const supplier = await t.account('Supplier');
    buyer = await t.account('Buyer');
    const tenantS = await readyTenant(t, supplier.key);
    tenantB = await readyTenant(t, buyer.key);
    const rutOf = async (key: string, id: string) =>
      ((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${id}` })).json().rutEmpresa as string).replace(/\./g, '');
    const rutS = await rutOf(supplier.key, tenantS);
    const rutB = await rutOf(buyer.key, tenantB);
    await requestFolios(t, supplier.key, tenantS, 33, 5);
    await requestFolios(t, supplier.key, tenantS, 61, 5);
    const xmls: Buffer[] = [];
    for (const tipo of [33, 33, 33, 33, 61] as const) {
      const body = dteBody(tipo, { receptor: { ...(dteBody(33).receptor as object), rut: formatRutDotted(rutB) } }, clock.now());
      const c = await t.call(supplier.key, { method: 'POST', url: `/api/v1/tenants/${tenantS}/dte`, payload: body });
      expect(c.statusCode, c.body).toBe(201);
      xmls.push((await t.call(supplier.key, { method: 'GET', url: `/api/v1/tenants/${tenantS}/dte/${c.json().id}/xml` })).rawPayload);
    }
    const envelope = buildEnvelope({
      dtes: xmls,
      rutEmisor: rutS,
      rutReceptor: rutB,
      fechaResolucion: '2014-08-22',
      numeroResolucion: 80,
      signer: testCertificate().cert.signer,
      now: clock.now(),
    }).xml;
    const r = await t.call(buyer.key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantB}/received`,
      payload: envelope,
      headers: { 'content-type': 'application/xml' },
    });
    expect(r.statusCode, r.body).toBe(201);
    for (const d of r.json().envio.documents) received.push(d.receivedDteId);
  });
  afterAll(() => t?.close());

  const answer = (id: string, body: Record<string, unknown>) =>
    t.call(buyer.key, { method: 'POST', url: `/api/v1/tenants/${tenantB}/received/${id}/acceptance`, payload: body });

  it('records acceptances and claims within the eight days, by the SII registro rules', async () => {
    clock.advance(8 * DAY - 60_000); // a minute before the deadline
    const ok = await answer(received[0]!, { accion: 'ACD' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({
      status: 'accepted',
      acciones: [{ accion: 'ACD', glosa: null, at: clock.now().toISOString(), registeredAtSii: false }],
    });
    // The same action again is recorded once; ERM goes with ACD; a claim after them is refused.
    expect((await answer(received[0]!, { accion: 'ACD' })).json()).toEqual(ok.json());
    const erm = await answer(received[0]!, { accion: 'ERM' });
    expect(erm.json().acciones.map((a: { accion: string }) => a.accion)).toEqual(['ACD', 'ERM']);
    const claimAfter = await answer(received[0]!, { accion: 'RCD' });
    expect([claimAfter.statusCode, claimAfter.json().error.code]).toEqual([409, 'document_already_accepted']);
    expect(claimAfter.json().error.details).toEqual({ acciones: ['ACD', 'ERM'], status: 'accepted' });

    // Claims: different ones go together; an acceptance after one is refused.
    const claim = await answer(received[1]!, { accion: 'RFT', glosa: 'No llegó la mercadería' });
    expect(claim.json()).toMatchObject({ status: 'claimed', acciones: [{ accion: 'RFT', glosa: 'No llegó la mercadería' }] });
    expect((await answer(received[1]!, { accion: 'RCD' })).json().acciones).toHaveLength(2);
    const acceptAfter = await answer(received[1]!, { accion: 'ERM' });
    expect([acceptAfter.statusCode, acceptAfter.json().error.code]).toEqual([409, 'document_already_claimed']);

    const list = await t.call(buyer.key, { method: 'GET', url: `/api/v1/tenants/${tenantB}/received?status=claimed` });
    expect(list.json().data.map((d: { id: string }) => d.id)).toEqual([received[1]]);
  });

  it('refuses after the deadline with 409 acceptance_window_closed', async () => {
    clock.advance(2 * 60_000); // a minute after the deadline
    const late = await answer(received[3]!, { accion: 'ACD' });
    expect([late.statusCode, late.json().error.code]).toEqual([409, 'acceptance_window_closed']);
    const doc = (await t.call(buyer.key, { method: 'GET', url: `/api/v1/tenants/${tenantB}/received/${received[3]}` })).json();
    expect(late.json().error.details).toEqual({ acceptanceDeadline: doc.acceptanceDeadline });
    expect(doc).toMatchObject({ status: 'received', acciones: [] });
    // An action recorded in time is still answered as recorded.
    expect((await answer(received[0]!, { accion: 'ACD' })).statusCode).toBe(200);
  });

  it('validates the body, the id and the type', async () => {
    for (const [body, code] of [
      [{ accion: 'OK' }, 'invalid_field'],
      [{}, 'invalid_field'],
      [{ accion: 'ACD', glosa: 'x'.repeat(257) }, 'invalid_field'],
      [{ accion: 'ACD', extra: 1 }, 'invalid_field'],
    ] as const) {
      const r = await answer(received[3]!, body);
      expect([r.statusCode, r.json().error.code], JSON.stringify(body)).toEqual([400, code]);
    }
    const nota = await answer(received[4]!, { accion: 'ACD' });
    expect([nota.statusCode, nota.json().error.code]).toEqual([422, 'acceptance_not_applicable']);
    const missing = await answer('5b1b6c1e-0000-4000-8000-000000000000', { accion: 'ACD' });
    expect([missing.statusCode, missing.json().error.code]).toEqual([404, 'received_dte_not_found']);
  });
});
