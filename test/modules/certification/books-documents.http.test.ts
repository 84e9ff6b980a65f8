import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { siiDate } from '../../../src/dte/index.ts';
import { describeEachDb } from '../../support/db.ts';
import { runCheckSiiXml } from '../../support/dte/check-sii-xml.ts';
import { readyTenant, requestFolios, startIssuingApp, type IssuingApp } from '../../support/issuing.ts';

/**
 * The sales and guía books of set 01 from the documents the documents step made through the real
 * app (docs/certification.md, "Books"): totals as computed by hand in
 * src/modules/certification/books/books.test.ts, each signed book through the project's checker.
 */
const set01 = readFileSync(new URL('../../fixtures/certification/SIISetDePruebas-01.txt', import.meta.url));
const FECHA = siiDate(new Date());

describeEachDb('certification books from the set documents', (backend) => {
  let t: IssuingApp;
  let key: string;

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
  });
  afterAll(() => t?.close());

  it('set 01: ventas from the básico documents, guías from the guías section, both signed and checked', async () => {
    const tenantId = await readyTenant(t, key, { ambiente: 'certificacion' });
    for (const [tipo, n] of Object.entries({ 33: 5, 34: 5, 52: 5, 56: 5, 61: 10 })) await requestFolios(t, key, tenantId, Number(tipo), n);
    const up = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/certification/sets`,
      payload: set01,
      headers: { 'content-type': 'text/plain' },
    });
    expect(up.statusCode, up.body).toBe(201);
    const setId = up.json().id as string;
    const books = (path: string) =>
      t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/certification/sets/${setId}/books/${path}` });
    expect((await books('ventas/xml')).json().error.code).toBe('certification_documents_missing');

    const made = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/certification/sets/${setId}/documents`,
      payload: { fechaEmision: FECHA },
    });
    expect(made.statusCode, made.body).toBe(201);

    const ventas = await books('ventas');
    expect(ventas.statusCode, ventas.body).toBe(200);
    expect(ventas.json()).toMatchObject({ ready: true, missingCases: [], periodo: FECHA.slice(0, 7), folioNotificacion: 4244619 });
    const totals = Object.fromEntries(
      ventas
        .json()
        .totals.map((x: { tipoDoc: number; documentos: number; exento: number; neto: number; iva: number; total: number }) => [
          x.tipoDoc,
          [x.documentos, x.exento, x.neto, x.iva, x.total],
        ]),
    );
    expect(totals).toEqual({
      33: [4, 48_488, 3_942_322, 749_042, 4_739_852],
      56: [1, 0, 0, 0, 0],
      61: [3, 34_908, 1_670_086, 317_316, 2_022_310],
    });
    const guias = await books('guias?facturaFolio=1');
    expect(guias.json().totals).toMatchObject({ guiasVenta: 1, guiasAnuladas: 1, montoGuiasVenta: 239_599 });

    const files = [];
    for (const kind of ['ventas', 'guias?facturaFolio=1', 'compras']) {
      const r = await books(kind.replace(/^(\w+)/, '$1/xml'));
      expect(r.statusCode, r.body).toBe(200);
      files.push({ name: `${kind.slice(0, 6)}.xml`, bytes: r.rawPayload });
    }
    const c = runCheckSiiXml(files);
    expect(c.failures, c.output).toEqual([]);
    expect(c.lines.filter((l) => /ok +.*book signature/.test(l))).toHaveLength(3);
  });
});
