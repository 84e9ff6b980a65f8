import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../support/db.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, type IssuingApp } from '../../support/issuing.ts';
import { pdfText } from '../../support/pdf.ts';

/**
 * docs/decisions.md §11: the tenant's issuer data (telefono, correo, sucursal, codigoSucursal, vendedor,
 * unidadSii) is written on each of its documents; a document's own `emisor` overrides it key by
 * key; PATCH merges, null clears. What is signed is read back from the XML, what is printed from
 * the PDF (pdftotext).
 */
describeEachDb('issuer data per tenant, overridable per document', (backend) => {
  let t: IssuingApp;
  let key: string;
  let tenantId: string;
  const emisor = {
    telefono: '+56 2 2345 6789',
    correo: 'facturacion@empresa.cl',
    sucursal: 'Casa Matriz',
    codigoSucursal: 81234567,
    vendedor: 'V-12',
    unidadSii: 'Santiago Centro',
  };

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
    tenantId = await readyTenant(t, key, { emisor });
    await requestFolios(t, key, tenantId, 33, 5);
  });
  afterAll(() => t?.close());

  const create = async (over: Record<string, unknown> = {}) => {
    const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(33, over) });
    expect(r.statusCode, r.body).toBe(201);
    const dte = r.json();
    const xml = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${dte.id}/xml` })).rawPayload.toString('latin1');
    const pdf = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${dte.id}/pdf` })).rawPayload;
    return { dte, xml, text: pdfText(pdf) };
  };

  it('the tenant shows its issuer data, and every document carries it', async () => {
    expect((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}` })).json().emisor).toEqual(emisor);
    const { dte, xml, text } = await create();
    expect(dte.emisor).toEqual(emisor);
    for (const el of [
      '<Telefono>+56 2 2345 6789</Telefono>',
      '<CorreoEmisor>facturacion@empresa.cl</CorreoEmisor>',
      '<Sucursal>Casa Matriz</Sucursal>',
      '<CdgSIISucur>81234567</CdgSIISucur>',
      '<CdgVendedor>V-12</CdgVendedor>',
    ])
      expect(xml).toContain(el);
    expect(xml).not.toContain('Santiago Centro'); // printed, never signed
    expect(text).toContain('S.I.I. - SANTIAGO CENTRO');
  });

  it("a document's emisor overrides key by key", async () => {
    const { dte, xml, text } = await create({ emisor: { sucursal: 'Sucursal Maipú', unidadSii: 'Maipú' } });
    expect(dte.emisor).toEqual({ ...emisor, sucursal: 'Sucursal Maipú', unidadSii: 'Maipú' });
    expect(xml).toContain('<Sucursal>Sucursal Maipú</Sucursal>');
    expect(xml).toContain('<Telefono>+56 2 2345 6789</Telefono>');
    expect(text).toContain('S.I.I. - MAIPÚ');
  });

  it('PATCH merges the keys it names and null clears one; documents keep what they were issued with', async () => {
    const before = await create();
    const p = await t.call(key, {
      method: 'PATCH',
      url: `/api/v1/tenants/${tenantId}`,
      payload: { emisor: { telefono: null, vendedor: 'V-99' } },
    });
    expect(p.statusCode, p.body).toBe(200);
    expect(p.json().emisor).toEqual({ ...emisor, telefono: null, vendedor: 'V-99' });
    const { dte, xml } = await create();
    expect(xml).not.toContain('<Telefono>');
    expect(dte.emisor).toMatchObject({ telefono: null, vendedor: 'V-99' });
    const again = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${before.dte.id}` })).json();
    expect(again.emisor).toEqual(emisor);
  });

  it('refuses a blank value, an unknown key and an over-long one with the field named', async () => {
    for (const [emisorPatch, param] of [
      [{ telefono: '   ' }, 'emisor.telefono'],
      [{ fax: '123' }, 'emisor'],
      [{ unidadSii: 'x'.repeat(41) }, 'emisor.unidadSii'],
    ] as const) {
      const r = await t.call(key, { method: 'PATCH', url: `/api/v1/tenants/${tenantId}`, payload: { emisor: emisorPatch } });
      expect(r.statusCode, r.body).toBe(400);
      expect(r.json().error.param, JSON.stringify(emisorPatch)).toContain(param);
    }
  });
});
