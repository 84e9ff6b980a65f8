import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { siiDate } from '../../../src/dte/index.ts';
import { describeEachDb } from '../../support/db.ts';
import { flatXml } from '../../support/dte/lines.ts';
import { readyTenant, requestFolios, startIssuingApp, type IssuingApp } from '../../support/issuing.ts';
import { pdfInfo, pdfPages, pdfText, readPdf417 } from '../../support/pdf.ts';
import { readZip } from '../../support/zip.ts';

/**
 * GET …/certification/sets/{setId}/printed-samples through the real app (docs/certification.md,
 * "Printed samples"): 409 before the documents exist; then one ZIP of set 01's documents named by
 * case, the cedible copy where the SII's printed-samples manual asks for one, each PDF one page,
 * read back with pdftotext and its timbre with the PDF417 reader (test/support/pdf.ts).
 */
const fixture = readFileSync(new URL('../../fixtures/certification/SIISetDePruebas-01.txt', import.meta.url));
const FECHA = siiDate(new Date());

describeEachDb('certification: printed samples', (backend) => {
  let t: IssuingApp;
  let key: string;
  let tenantId: string;
  let setId: string;

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
    tenantId = await readyTenant(t, key, { ambiente: 'certificacion' });
    for (const [tipo, n] of Object.entries({ 33: 5, 34: 5, 52: 5, 56: 5, 61: 10 })) await requestFolios(t, key, tenantId, Number(tipo), n);
    const up = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/certification/sets`,
      payload: fixture,
      headers: { 'content-type': 'text/plain' },
    });
    expect(up.statusCode, up.body).toBe(201);
    setId = up.json().id;
  });
  afterAll(() => t?.close());

  const samples = (k = key, tenant = tenantId, set = setId) =>
    t.call(k, { method: 'GET', url: `/api/v1/tenants/${tenant}/certification/sets/${set}/printed-samples` });

  it('before the documents are made: 409 certification_documents_missing naming every case', async () => {
    const r = await samples();
    expect(r.statusCode, r.body).toBe(409);
    expect(r.json().error).toMatchObject({ code: 'certification_documents_missing', param: 'setId' });
    expect(r.json().error.details.missingCases).toHaveLength(19);
    expect(r.json().error.details.missingCases[0]).toBe('4244618-1');
  });

  it('set 01: every document named by case, cedible copies as the manual asks, one page each, read back', async () => {
    const made = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/certification/sets/${setId}/documents`,
      payload: { fechaEmision: FECHA },
    });
    expect(made.statusCode, made.body).toBe(201);
    const cases: { id: string; dteId: string }[] = made.json().cases;

    const r = await samples();
    expect(r.statusCode, r.body).toBe(200);
    expect(r.headers['content-type']).toBe('application/zip');
    expect(r.headers['content-disposition']).toBe('attachment; filename="muestras-impresas-4244618.zip"');
    const files = readZip(r.rawPayload);
    const names = files.map((f) => f.name);
    // Facturas (33) and exempt facturas (34) with their cedible copy; notes (56, 61) without; of the
    // guías, the two sales (IndTraslado 1) with "CEDIBLE CON SU FACTURA", the move between the
    // company's premises (IndTraslado 5) without (manual v4.0 §1.4).
    const cedible = ['4244618-1', '4244618-2', '4244618-3', '4244618-4', '4244621-2', '4244621-3', '4244623-1', '4244623-3', '4244623-6'];
    expect(names).toEqual(cases.flatMap((c) => [`CASO-${c.id}.pdf`, ...(cedible.includes(c.id) ? [`CASO-${c.id}-CEDIBLE.pdf`] : [])]));
    expect(names).toHaveLength(19 + 9);

    const file = (n: string) => files.find((f) => f.name === n)!.data;
    for (const f of files) {
      expect(f.data.subarray(0, 5).toString('latin1'), f.name).toBe('%PDF-');
      // The manual: every document within one page of its PDF.
      expect(pdfInfo(f.data).Pages, f.name).toBe('1');
      const text = pdfText(f.data);
      if (f.name.endsWith('-CEDIBLE.pdf')) {
        expect(text, f.name).toContain('ACUSE DE RECIBO');
        expect(text, f.name).toMatch(f.name.startsWith('CASO-4244621-') ? /CEDIBLE CON SU FACTURA/ : /CEDIBLE\s*$/m);
      } else {
        // No acuse de recibo on a tax copy (manual v4.0 §1.1).
        expect(text, f.name).not.toContain('ACUSE DE RECIBO');
        expect(text, f.name).not.toContain('CEDIBLE');
      }
    }
    const dteOf = async (caseId: string) =>
      (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${cases.find((c) => c.id === caseId)!.dteId}` })).json();
    const factura = await dteOf('4244618-1');
    const tax = pdfText(file('CASO-4244618-1.pdf'));
    expect(tax).toContain('FACTURA ELECTRÓNICA');
    expect(tax).toContain(`Nº ${factura.folio}`);
    expect(tax).toContain('CASO 4244618-1');
    expect(pdfText(file('CASO-4244623-1.pdf'), { raw: true })).toContain('FACTURA NO AFECTA O EXENTA ELECTRÓNICA');
    expect(pdfText(file('CASO-4244618-8.pdf'), { raw: true })).toContain('NOTA DE DÉBITO ELECTRÓNICA');

    // The timbre of both copies is the document's own TED, as signed (GET …/xml).
    for (const caseId of ['4244618-1', '4244621-2']) {
      const id = cases.find((c) => c.id === caseId)!.dteId;
      const xml = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${id}/xml` })).rawPayload;
      const ted = flatXml(xml.subarray(xml.indexOf('<TED version="1.0">'), xml.indexOf('</TED>') + '</TED>'.length));
      for (const name of [`CASO-${caseId}.pdf`, `CASO-${caseId}-CEDIBLE.pdf`]) {
        const [symbol] = await readPdf417(pdfPages(file(name), 200)[0]!);
        expect(symbol?.bytes.toString('latin1'), name).toBe(ted);
      }
    }
  });

  it("an unknown set, another account's set: 404", async () => {
    const unknown = await samples(key, tenantId, '5b1b6c1e-0000-4000-8000-000000000000');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('certification_set_not_found');
    const { key: otherKey } = await t.account();
    const other = await samples(otherKey);
    expect(other.statusCode).toBe(404);
  });
});
