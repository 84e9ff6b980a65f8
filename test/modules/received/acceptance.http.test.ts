import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatRutDotted } from '../../../src/dte/index.ts';
import type { manualClock } from '../../../src/lib/clock.ts';
import { ProviderError, type AcceptanceRegistration, type Provider } from '../../../src/provider/port.ts';
import { collectPeriodics } from '../../../src/worker.ts';
import { checkRespuesta } from '../../support/dte/check-respuesta.ts';
import { describeEachDb } from '../../support/db.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, waitFinal, type IssuingApp } from '../../support/issuing.ts';
import { supplierEnvelope, uploadReceived } from '../../support/received.ts';
import { flatXml } from '../../support/dte/lines.ts';

/**
 * POST …/received/{id}/acceptance (docs/received.md, "Accepting or claiming"): the rules of the
 * SII's registro (docs/…aceptacion-reclamo-dte-v1.2) with an injected clock, the signed answers for
 * the supplier (validated with xmllint, signatures verified with xmlsec1), and the registration at
 * the SII through the provider: with a provider whose registro answers as the test says (outages,
 * rate limits, refusals), then through the emulator's SimpleAPI face end to end.
 */
const DAY = 86_400_000;

type Registro = Provider['registerAcceptance'];

/** Supplier → buyer: documents issued by the supplier (optionally sent to the SII first), received by the buyer. */
async function supplierSends(
  t: IssuingApp,
  tipos: readonly (33 | 61)[],
  opts: { sendToSii?: readonly boolean[] } = {},
): Promise<{ buyerKey: string; tenantB: string; received: string[] }> {
  const supplier = await t.account('Supplier');
  const buyer = await t.account('Buyer');
  const tenantS = await readyTenant(t, supplier.key);
  const tenantB = await readyTenant(t, buyer.key);
  const rutOf = async (key: string, id: string) =>
    ((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${id}` })).json().rutEmpresa as string).replace(/\./g, '');
  const rutS = await rutOf(supplier.key, tenantS);
  const rutB = await rutOf(buyer.key, tenantB);
  for (const tipo of new Set(tipos)) await requestFolios(t, supplier.key, tenantS, tipo, 10);
  const xmls: Buffer[] = [];
  const ids: string[] = [];
  for (const tipo of tipos) {
    const body = dteBody(tipo, { receptor: { ...(dteBody(33).receptor as object), rut: formatRutDotted(rutB) } }, t.clock.now());
    const c = await t.call(supplier.key, { method: 'POST', url: `/api/v1/tenants/${tenantS}/dte`, payload: body });
    expect(c.statusCode, c.body).toBe(201);
    ids.push(c.json().id);
    xmls.push((await t.call(supplier.key, { method: 'GET', url: `/api/v1/tenants/${tenantS}/dte/${c.json().id}/xml` })).rawPayload);
  }
  const toSend = ids.filter((_, i) => opts.sendToSii?.[i]);
  if (toSend.length > 0) {
    const s = await t.call(supplier.key, { method: 'POST', url: `/api/v1/tenants/${tenantS}/dte/send`, payload: { dteIds: toSend } });
    expect(s.statusCode, s.body).toBe(202);
    for (const id of toSend) expect((await waitFinal(t, supplier.key, id)).status).toBe('accepted');
  }
  const envelope = supplierEnvelope(t, { dtes: xmls, rutEmisor: rutS, rutReceptor: rutB });
  const r = await uploadReceived(t, buyer.key, tenantB, envelope);
  expect(r.statusCode, r.body).toBe(201);
  return { buyerKey: buyer.key, tenantB, received: r.json().envio.documents.map((d: { receivedDteId: string }) => d.receivedDteId) };
}

describeEachDb('POST …/received/{id}/acceptance: rules, window, signed answers, registration states', (backend) => {
  let t: IssuingApp;
  let clock: ReturnType<typeof manualClock>;
  let buyerKey: string;
  let tenantB: string;
  let received: string[] = [];
  // The SII's registro as this test wants it to answer (the rest of the provider is the emulator).
  let registro: Registro = async () => ({ outcome: 'registered', codigo: 0, descripcion: 'Accion Completada OK' });
  const asked: Parameters<Registro>[1][] = [];

  beforeAll(async () => {
    t = await startIssuingApp(backend, {
      manualClock: true,
      provider: {
        registerAcceptance: (creds, req) => {
          asked.push(req);
          return registro(creds, req);
        },
      },
    });
    clock = t.clock as ReturnType<typeof manualClock>;
    ({ buyerKey, tenantB, received } = await supplierSends(t, [33, 33, 33, 33, 33, 33, 61]));
  });
  afterAll(() => t?.close());

  const answer = (id: string, body: Record<string, unknown>) =>
    t.call(buyerKey, { method: 'POST', url: `/api/v1/tenants/${tenantB}/received/${id}/acceptance`, payload: body });
  const get = async (id: string) => (await t.call(buyerKey, { method: 'GET', url: `/api/v1/tenants/${tenantB}/received/${id}` })).json();
  const xml = (id: string, n: number) =>
    t.call(buyerKey, { method: 'GET', url: `/api/v1/tenants/${tenantB}/received/${id}/acceptance/${n}/xml` });

  it('records, registers at the SII and answers by the registro rules within the eight days', async () => {
    clock.advance(8 * DAY - 60_000); // a minute before the deadline
    const ok = await answer(received[0]!, { accion: 'ACD' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({
      status: 'accepted',
      acciones: [
        {
          n: 1,
          accion: 'ACD',
          glosa: null,
          at: clock.now().toISOString(),
          registeredAtSii: true,
          sii: {
            state: 'registered',
            codigo: 0,
            descripcion: 'Accion Completada OK',
            registeredAt: clock.now().toISOString(),
            attempts: 1,
          },
          respuesta: { tipo: 'RespuestaDTE', path: `/api/v1/tenants/${tenantB}/received/${received[0]}/acceptance/1/xml` },
        },
      ],
    });
    const doc = await get(received[0]!);
    expect(asked.at(-1)).toEqual({ rutEmisor: doc.emisor.rut, tipoDte: 33, folio: doc.folio, accion: 'ACD', ambiente: 'produccion' });
    // The same action again is recorded once and not asked again; ERM goes with ACD; a claim after them is refused.
    const before = asked.length;
    expect((await answer(received[0]!, { accion: 'ACD' })).json()).toEqual(ok.json());
    expect(asked.length).toBe(before);
    const erm = await answer(received[0]!, { accion: 'ERM', recinto: 'Bodega 3, Av. Matta 123' });
    expect(erm.statusCode).toBe(200);
    expect(erm.json().acciones.map((a: { accion: string; respuesta: { tipo: string } }) => [a.accion, a.respuesta.tipo])).toEqual([
      ['ACD', 'RespuestaDTE'],
      ['ERM', 'EnvioRecibos'],
    ]);
    const claimAfter = await answer(received[0]!, { accion: 'RCD' });
    expect([claimAfter.statusCode, claimAfter.json().error.code]).toEqual([409, 'document_already_accepted']);
    expect(claimAfter.json().error.details).toEqual({ acciones: ['ACD', 'ERM'], status: 'accepted' });

    // Claims: different ones go together; an acceptance after one is refused.
    const claim = await answer(received[1]!, { accion: 'RFT', glosa: 'No llegó la mercadería' });
    expect(claim.json()).toMatchObject({
      status: 'claimed',
      acciones: [{ accion: 'RFT', glosa: 'No llegó la mercadería', registeredAtSii: true }],
    });
    expect((await answer(received[1]!, { accion: 'RCD' })).json().acciones).toHaveLength(2);
    const acceptAfter = await answer(received[1]!, { accion: 'ERM' });
    expect([acceptAfter.statusCode, acceptAfter.json().error.code]).toEqual([409, 'document_already_claimed']);

    const list = await t.call(buyerKey, { method: 'GET', url: `/api/v1/tenants/${tenantB}/received?status=claimed` });
    expect(list.json().data.map((d: { id: string }) => d.id)).toEqual([received[1]]);
  });

  it('gives the supplier signed answers: a ResultadoDTE per acceptance or claim, an EnvioRecibos for ERM', async () => {
    const doc = await get(received[0]!);
    const acd = await xml(received[0]!, 1);
    expect(acd.statusCode).toBe(200);
    expect(acd.headers['content-type']).toBe('application/xml; charset=ISO-8859-1');
    const acdText = flatXml(acd.rawPayload);
    expect(acdText).toContain(`<RutResponde>${doc.receptor.rut}</RutResponde><RutRecibe>${doc.emisor.rut}</RutRecibe>`);
    expect(acdText).toContain(`<ResultadoDTE><TipoDTE>33</TipoDTE><Folio>${doc.folio}</Folio>`);
    expect(acdText).toContain('<EstadoDTE>0</EstadoDTE><EstadoDTEGlosa>Acepta contenido del documento (ACD)</EstadoDTEGlosa>');
    let check = checkRespuesta(acd.rawPayload);
    expect(check.ok, check.output).toBe(true);

    const erm = await xml(received[0]!, 2);
    const ermText = flatXml(erm.rawPayload);
    expect(ermText).toMatch(/^<\?xml version="1\.0" encoding="ISO-8859-1"\?>\n<EnvioRecibos /);
    expect(ermText).toContain('<Recinto>Bodega 3, Av. Matta 123</Recinto><RutFirma>12345678-5</RutFirma><Declaracion>El acuse de recibo');
    check = checkRespuesta(erm.rawPayload);
    expect(check.ok, check.output).toBe(true);

    const rft = await xml(received[1]!, 1);
    expect(flatXml(rft.rawPayload)).toContain(
      '<EstadoDTE>2</EstadoDTE><EstadoDTEGlosa>Reclamo por falta total de mercaderias (RFT): No lleg&#xF3; la mercader&#xED;a</EstadoDTEGlosa>',
    );
    check = checkRespuesta(rft.rawPayload);
    expect(check.ok, check.output).toBe(true);

    for (const [id, n] of [
      [received[0]!, 3],
      [received[2]!, 1],
      ['not-an-id', 1],
    ] as const) {
      const missing = await xml(id, n);
      expect([missing.statusCode, missing.json().error.code]).toEqual([404, 'received_acceptance_not_found']);
    }
  });

  it('keeps the answer when the SII cannot be asked now (202 pending), and registers it later', async () => {
    registro = async () => {
      throw new ProviderError('unavailable', 'The billing provider is unreachable.');
    };
    const r = await answer(received[2]!, { accion: 'ACD' });
    expect(r.statusCode, r.body).toBe(202);
    const a = r.json().acciones[0];
    expect(r.json().status).toBe('accepted');
    expect(a).toMatchObject({
      registeredAtSii: false,
      sii: { state: 'pending', codigo: null, attempts: 1, nextAttemptAt: new Date(clock.now().getTime() + 60_000).toISOString() },
    });
    expect(a.sii.lastError).toMatch(/^provider_unavailable: /);
    // The rate limit is a reason to wait: its Retry-After decides the next attempt.
    registro = async () => {
      throw new ProviderError('rate_limited', 'quota', 429, { retryAfterMs: 5_000 });
    };
    const again = await answer(received[2]!, { accion: 'ACD' });
    expect(again.statusCode).toBe(202);
    expect(again.json().acciones[0].sii).toMatchObject({
      state: 'pending',
      attempts: 2,
      nextAttemptAt: new Date(clock.now().getTime() + 5_000).toISOString(),
    });
    expect(again.json().acciones[0].sii.lastError).toMatch(/^provider_rate_limited: /);
    // Not due yet: the worker leaves it; once due, it registers it.
    registro = async () => ({ outcome: 'registered', codigo: 0, descripcion: 'Accion Completada OK' });
    expect(await t.ctx.services.received.registerDueAcceptances()).toEqual({ registered: 0, refused: 0, pending: 0 });
    clock.advance(5_000);
    expect(await t.ctx.services.received.registerDueAcceptances()).toEqual({ registered: 1, refused: 0, pending: 0 });
    expect((await get(received[2]!)).acciones[0]).toMatchObject({
      registeredAtSii: true,
      sii: { state: 'registered', attempts: 3, lastError: null, nextAttemptAt: null },
    });
  });

  it('answers 422 acceptance_refused_by_sii when the SII refuses; the refused answer stays in the history and does not count', async () => {
    registro = async (): Promise<AcceptanceRegistration> => ({
      outcome: 'refused',
      codigo: 9,
      descripcion: 'No existen registros de acuerdo a los parametros ingresados',
    });
    const r = await answer(received[3]!, { accion: 'RCD', glosa: 'Precio' });
    expect([r.statusCode, r.json().error.code]).toEqual([422, 'acceptance_refused_by_sii']);
    expect(r.json().error.details).toEqual({
      accion: 'RCD',
      n: 1,
      siiCodigo: 9,
      siiDescripcion: 'No existen registros de acuerdo a los parametros ingresados',
    });
    const doc = await get(received[3]!);
    expect(doc.status).toBe('received');
    expect(doc.acciones).toMatchObject([{ n: 1, accion: 'RCD', registeredAtSii: false, sii: { state: 'refused', codigo: 9 } }]);
    // A refused answer does not block another one; asked again later, it is a new answer.
    registro = async () => ({ outcome: 'registered', codigo: 0, descripcion: 'Accion Completada OK' });
    const acd = await answer(received[3]!, { accion: 'ACD' });
    expect(acd.statusCode).toBe(200);
    expect(acd.json()).toMatchObject({
      status: 'accepted',
      acciones: [
        { n: 1, sii: { state: 'refused' } },
        { n: 2, accion: 'ACD', registeredAtSii: true },
      ],
    });
  });

  it('takes an answer at exactly the deadline (day 8) and refuses it a millisecond later with 409 acceptance_window_closed', async () => {
    const doc = await get(received[4]!);
    clock.set(doc.acceptanceDeadline);
    const atDeadline = await answer(received[4]!, { accion: 'ERM' });
    expect(atDeadline.statusCode, atDeadline.body).toBe(200);
    clock.advance(1);
    const late = await answer(received[5]!, { accion: 'ACD' });
    expect([late.statusCode, late.json().error.code]).toEqual([409, 'acceptance_window_closed']);
    expect(late.json().error.details).toEqual({ acceptanceDeadline: (await get(received[5]!)).acceptanceDeadline });
    expect(await get(received[5]!)).toMatchObject({ status: 'received', acciones: [] });
    // An action recorded in time is still answered as recorded.
    expect((await answer(received[4]!, { accion: 'ERM' })).statusCode).toBe(200);
  });

  it('records an action asked twice at the same moment once, and registers it once', async () => {
    clock.set(new Date((await get(received[5]!)).receivedAt));
    const before = asked.length;
    const both = await Promise.all([answer(received[5]!, { accion: 'RFP' }), answer(received[5]!, { accion: 'RFP' })]);
    // The second finds the first's answer: registered (200), or still being registered (202).
    expect(both.map((r) => r.statusCode).sort()).toEqual(expect.arrayContaining([200]));
    expect(both.every((r) => r.statusCode === 200 || r.statusCode === 202)).toBe(true);
    expect((await get(received[5]!)).acciones).toMatchObject([{ n: 1, accion: 'RFP', registeredAtSii: true }]);
    expect(asked.length - before).toBe(1);
  });

  it('is retried by the worker: its periodic scan is registered', async () => {
    expect(collectPeriodics(t.ctx).find((p) => p.name === 'received.register-acceptances')).toMatchObject({ everyMs: 30_000 });
  });

  it('validates the body, the id and the type', async () => {
    for (const [body, code] of [
      [{ accion: 'OK' }, 'invalid_field'],
      [{}, 'invalid_field'],
      [{ accion: 'ACD', glosa: 'x'.repeat(257) }, 'invalid_field'],
      [{ accion: 'ERM', recinto: 'x'.repeat(81) }, 'invalid_field'],
      [{ accion: 'ACD', extra: 1 }, 'invalid_field'],
    ] as const) {
      const r = await answer(received[5]!, body);
      expect([r.statusCode, r.json().error.code], JSON.stringify(body)).toEqual([400, code]);
    }
    const nota = await answer(received[6]!, { accion: 'ACD' });
    expect([nota.statusCode, nota.json().error.code]).toEqual([422, 'acceptance_not_applicable']);
    const missing = await answer('5b1b6c1e-0000-4000-8000-000000000000', { accion: 'ACD' });
    expect([missing.statusCode, missing.json().error.code]).toEqual([404, 'received_dte_not_found']);
  });
});

describe('POST …/received/{id}/acceptance through the emulator (SimpleAPI compras/aceptacionreclamo)', () => {
  let t: IssuingApp;
  let buyerKey: string;
  let tenantB: string;
  let received: string[] = [];

  beforeAll(async () => {
    t = await startIssuingApp('pglite');
    // The first two are sent to the SII by the supplier; the third never is.
    ({ buyerKey, tenantB, received } = await supplierSends(t, [33, 33, 33], { sendToSii: [true, true, false] }));
  });
  afterAll(() => t?.close());

  const answer = (id: string, body: Record<string, unknown>) =>
    t.call(buyerKey, { method: 'POST', url: `/api/v1/tenants/${tenantB}/received/${id}/acceptance`, payload: body });

  it('registers at the SII what the SII has, and reports its refusal of what it does not', async () => {
    const acd = await answer(received[0]!, { accion: 'ACD' });
    expect(acd.statusCode, acd.body).toBe(200);
    expect(acd.json().acciones[0]).toMatchObject({
      registeredAtSii: true,
      sii: { state: 'registered', codigo: 0, descripcion: 'Accion Completada OK' },
    });
    const erm = await answer(received[0]!, { accion: 'ERM' });
    expect(erm.json().acciones[1]).toMatchObject({ accion: 'ERM', registeredAtSii: true });
    const claims = [await answer(received[1]!, { accion: 'RFP' }), await answer(received[1]!, { accion: 'RCD' })];
    expect(claims.map((c) => c.statusCode)).toEqual([200, 200]);
    const unknown = await answer(received[2]!, { accion: 'ACD' });
    expect([unknown.statusCode, unknown.json().error.code, unknown.json().error.details.siiCodigo]).toEqual([
      422,
      'acceptance_refused_by_sii',
      9,
    ]);
    const emu = t.ctx.provider as unknown as { stats(): { routes: Record<string, { total: number; '2xx': number }> } };
    expect(emu.stats().routes.acceptance).toMatchObject({ total: 5, '2xx': 5 });
  });
});
