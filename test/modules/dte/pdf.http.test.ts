import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../support/db.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, type IssuingApp } from '../../support/issuing.ts';
import { pdfPages, pdfText, readPdf417 } from '../../support/pdf.ts';
import { flatXml } from '../../support/dte/lines.ts';

/**
 * GET …/dte/{dteId}/pdf through the real app: the printed document from creation on, in both
 * formats and the cedible copy; its timbre read back equals the TED of GET …/xml; and the errors:
 * not cedible, unknown or foreign documents, bad parameters.
 */
describeEachDb('GET …/dte/{dteId}/pdf', (backend) => {
  let t: IssuingApp;
  let key: string;
  let otherKey: string;
  let tenantId: string;
  let rutEmpresa: string;
  let sameAccountOtherTenant: string;
  let facturaId: string;
  let boletaId: string;
  let guiaId: string;
  const pdfUrl = (dteId: string, query = '', tenant = tenantId) => `/api/v1/tenants/${tenant}/dte/${dteId}/pdf${query}`;

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
    ({ key: otherKey } = await t.account('Other'));
    tenantId = await readyTenant(t, key);
    rutEmpresa = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}` })).json().rutEmpresa;
    sameAccountOtherTenant = await readyTenant(t, key);
    await readyTenant(t, otherKey);
    for (const tipo of [33, 39, 52]) await requestFolios(t, key, tenantId, tipo, 5);
    const create = async (tipo: 33 | 39 | 52) => {
      const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(tipo) });
      expect(r.statusCode, r.body).toBe(201);
      return r.json().id as string;
    };
    facturaId = await create(33);
    boletaId = await create(39);
    guiaId = await create(52);
  });
  afterAll(() => t?.close());

  const get = (url: string, k = key) => t.call(k, { method: 'GET', url });

  it('answers application/pdf from creation on, and its timbre is the TED of the signed XML', async () => {
    const r = await get(pdfUrl(facturaId));
    expect(r.statusCode, r.body).toBe(200);
    expect(r.headers['content-type']).toBe('application/pdf');
    expect(r.headers['content-disposition']).toBe('inline; filename="DTE-T33-F1.pdf"');
    const pdf = r.rawPayload;
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const dte = (await get(`/api/v1/tenants/${tenantId}/dte/${facturaId}`)).json();
    expect(dte.status).toBe('created');

    const xml = (await get(`/api/v1/tenants/${tenantId}/dte/${facturaId}/xml`)).rawPayload;
    // The TED as the SII reads it: flattened (the document carries it one element per line).
    const ted = flatXml(xml.subarray(xml.indexOf('<TED version="1.0">'), xml.indexOf('</TED>') + '</TED>'.length));
    const [symbol] = await readPdf417(pdfPages(pdf, 200)[0]!);
    expect(symbol!.bytes.toString('latin1')).toBe(ted);

    const text = pdfText(pdf);
    expect(text).toContain('FACTURA ELECTRÓNICA');
    expect(text).toContain('Nº 1');
    expect(text).toContain(`R.U.T.: ${rutEmpresa}`);
    expect(text).toContain('77.777.777-7');
    expect(text).toContain(`$ ${dte.montoTotal.toLocaleString('de-DE')}`);
    expect(text).toContain('S.I.I. - SANTIAGO'); // the tenant has no SII unit: its city
    expect(text).toContain('Res. 80 de 2014'); // the tenant's resolution
    expect(text).not.toContain('CEDIBLE');
  });

  it('gives the 80 mm roll and the cedible copy', async () => {
    const roll = await get(pdfUrl(boletaId, '?formato=80mm'));
    expect(roll.statusCode, roll.body).toBe(200);
    expect(roll.headers['content-disposition']).toBe('inline; filename="DTE-T39-F1-80mm.pdf"');
    expect(pdfText(roll.rawPayload)).toContain('BOLETA ELECTRÓNICA');

    const cedible = await get(pdfUrl(facturaId, '?cedible=true'));
    expect(cedible.statusCode, cedible.body).toBe(200);
    expect(cedible.headers['content-disposition']).toBe('inline; filename="DTE-T33-F1-cedible.pdf"');
    const text = pdfText(cedible.rawPayload);
    expect(text).toContain('ACUSE DE RECIBO');
    expect(text).toMatch(/CEDIBLE\s*$/m);

    const guia = await get(pdfUrl(guiaId, '?formato=80mm&cedible=true'));
    expect(guia.statusCode, guia.body).toBe(200);
    expect(pdfText(guia.rawPayload)).toContain('CEDIBLE CON SU FACTURA');

    const explicit = await get(pdfUrl(facturaId, '?formato=carta&cedible=false'));
    expect(explicit.statusCode).toBe(200);
  });

  it('refuses a cedible copy of a boleta: 422 not_cedible', async () => {
    const r = await get(pdfUrl(boletaId, '?cedible=true'));
    expect(r.statusCode).toBe(422);
    expect(r.json().error).toMatchObject({ code: 'not_cedible', param: 'cedible' });
    expect(r.json().error.message).toMatch(/33, 34, 43, 46, 52/);
  });

  it('answers 404 for an unknown document, one of another tenant, and one of another account', async () => {
    for (const id of ['5b1b6c1e-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const r = await get(pdfUrl(id));
      expect(r.statusCode, id).toBe(404);
      expect(r.json().error.code).toBe('dte_not_found');
    }
    const otherTenant = await get(pdfUrl(facturaId, '', sameAccountOtherTenant));
    expect(otherTenant.statusCode).toBe(404);
    expect(otherTenant.json().error.code).toBe('dte_not_found');
    const otherAccount = await get(pdfUrl(facturaId), otherKey);
    expect(otherAccount.statusCode).toBe(404);
    expect(otherAccount.json().error.code).toBe('tenant_not_found');
    // The unknown id wins over the cedible rule: nothing is said about a document that is not there.
    const unknownCedible = await get(pdfUrl('5b1b6c1e-0000-4000-8000-000000000000', '?cedible=true'));
    expect(unknownCedible.statusCode).toBe(404);
  });

  it('refuses bad parameters with a 400 naming them', async () => {
    for (const [query, param] of [
      ['?formato=a4', 'formato'],
      ['?formato=', 'formato'],
      ['?cedible=quizas', 'cedible'],
      ['?color=rojo', 'color'],
    ] as const) {
      const r = await get(pdfUrl(facturaId, query));
      expect(r.statusCode, query).toBe(400);
      expect(r.json().error, query).toMatchObject({ code: 'invalid_parameter', param });
    }
    expect((await t.call(undefined, { method: 'GET', url: pdfUrl(facturaId) })).statusCode).toBe(401);
  });
});
