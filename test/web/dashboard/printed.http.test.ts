import { PNG } from 'pngjs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../support/db.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, type IssuingApp } from '../../support/issuing.ts';
import { pdfImages, pdfText } from '../../support/pdf.ts';
import { PageClient } from '../../support/page-client.ts';
import { DashboardClient, textOf } from './client.ts';

/**
 * The dashboard's side of the printed document: the document page links to its PDFs (the cedible
 * copy only for types that have one), and the company page takes, shows and removes the logo.
 */
function logoPng(): Buffer {
  const p = new PNG({ width: 120, height: 60 });
  p.data.fill(0x80);
  return PNG.sync.write(p);
}

describeEachDb('dashboard: printed documents and the logo', (backend) => {
  let t: IssuingApp;
  let c: DashboardClient;
  let tenantId: string;
  let facturaId: string;
  let boletaId: string;
  let exportId: string;

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    c = new DashboardClient(t.app);
    await c.signUp('Imprenta Digital');
    const accountId = (await t.tdb.db.query<{ id: string }>(`select id from accounts where name = 'Imprenta Digital'`)).rows[0]!.id;
    const { key } = await t.ctx.services.apiKeys.create(accountId, { name: 'tests' });
    tenantId = await readyTenant(t, key);
    for (const tipo of [33, 39, 110]) await requestFolios(t, key, tenantId, tipo, 2);
    const create = async (tipo: 33 | 39 | 110) =>
      (await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(tipo) })).json().id as string;
    facturaId = await create(33);
    boletaId = await create(39);
    exportId = await create(110);
  });
  afterAll(() => t?.close());

  const docs = () => `/tenants/${tenantId}/documents`;

  it('offers the PDF in both formats, and the cedible copy only where it exists', async () => {
    const factura = await c.get(`${docs()}/${facturaId}`);
    expect(factura.statusCode).toBe(200);
    for (const q of ['', '?formato=80mm', '?cedible=true']) expect(factura.body).toContain(`href="${docs()}/${facturaId}/pdf${q}"`);
    expect(textOf(factura.body)).toContain('PDF cedible');
    const boleta = await c.get(`${docs()}/${boletaId}`);
    expect(boleta.body).toContain(`href="${docs()}/${boletaId}/pdf?formato=80mm"`);
    expect(boleta.body).not.toContain('cedible=true');

    const pdf = await c.get(`${docs()}/${facturaId}/pdf?cedible=true`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe('attachment; filename="DTE-T33-F1-cedible.pdf"');
    expect(pdfText(pdf.rawPayload)).toContain('ACUSE DE RECIBO');
    expect((await c.get(`${docs()}/${boletaId}/pdf?cedible=true`)).statusCode).toBe(422);
    expect((await c.get(`${docs()}/${facturaId}/pdf?formato=a4`)).statusCode).toBe(400);
  });

  it("names a boleta's receptor 'Consumidor final', and shows an export's amounts in its currency", async () => {
    const list = textOf((await c.get(docs())).body);
    expect(list).toContain('Consumidor final');
    expect(list).not.toContain('66666666-6');
    expect(list).toContain('DOLAR USA 1302,4999'.replace('1302', '1.302'));
    const boleta = textOf((await c.get(`${docs()}/${boletaId}`)).body);
    expect(boleta).toContain('66666666-6 (Consumidor final)');
    const exportacion = textOf((await c.get(`${docs()}/${exportId}`)).body);
    expect(exportacion).toContain('DOLAR USA 1.302,4999');
    expect(exportacion).toContain('DOLAR USA 120,25'); // a unit price in its currency
    expect(exportacion).not.toMatch(/\$\s?1\.302/);
  });

  it('takes a logo from the company page, shows it, prints it, and removes it', async () => {
    const page = await c.get(`/tenants/${tenantId}`);
    expect(page.body).toContain('enctype="multipart/form-data"');
    expect(textOf(page.body)).toContain('Sin logo');
    // The form is multipart: post it as a browser would, with the page's session and CSRF token.
    const browser = new PageClient(t.app, c.ip);
    browser.cookies = new Map(c.cookies);
    await browser.get(`/tenants/${tenantId}`);
    const bad = await browser.postMultipart(
      `/tenants/${tenantId}/logo`,
      { _csrf: browser.csrf() },
      { name: 'logo', filename: 'logo.png', data: Buffer.from('not an image') },
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('aria-invalid="true"');
    const ok = await browser.postMultipart(
      `/tenants/${tenantId}/logo`,
      { _csrf: browser.csrf() },
      { name: 'logo', filename: 'logo.png', data: logoPng() },
    );
    expect(ok.statusCode, ok.body.slice(0, 300)).toBe(303);
    expect(ok.headers.location).toBe(`/tenants/${tenantId}?done=logo#logo`);
    const noCsrf = await browser.postMultipart(`/tenants/${tenantId}/logo`, {}, { name: 'logo', filename: 'logo.png', data: logoPng() });
    expect(noCsrf.statusCode).toBe(403);

    const shown = await c.get(`/tenants/${tenantId}?done=logo`);
    expect(textOf(shown.body)).toContain('Logo actualizado');
    const src = /<img class="logo-preview" src="([^"]+)"/.exec(shown.body)![1]!;
    const img = await c.get(src.replace(/&amp;/g, '&'));
    expect(img.headers['content-type']).toBe('image/png');
    expect(PNG.sync.read(img.rawPayload).width).toBe(120);
    const pdf = await c.get(`${docs()}/${facturaId}/pdf`);
    expect(pdfImages(pdf.rawPayload).some((l) => /\b120\s+60\b/.test(l))).toBe(true);

    // Removing goes through a confirmation page (a GET that removes nothing).
    expect(shown.body).toContain(`href="/tenants/${tenantId}/logo/delete"`);
    expect(shown.body).not.toContain(`action="/tenants/${tenantId}/logo/delete"`);
    const confirm = await c.get(`/tenants/${tenantId}/logo/delete`);
    expect(confirm.body).toContain(`action="/tenants/${tenantId}/logo/delete"`);
    expect(textOf(confirm.body)).toContain('no llevarán logo');
    expect((await c.get(`/tenants/${tenantId}/logo`)).statusCode).toBe(200);
    const removed = await c.post(`/tenants/${tenantId}/logo/delete`);
    expect(removed.statusCode).toBe(303);
    expect((await c.get(`/tenants/${tenantId}/logo`)).statusCode).toBe(404);
  });
});
