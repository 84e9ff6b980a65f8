import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InProcessEmulator } from '../../../src/provider/emulator/inprocess.ts';
import { describeEachDb } from '../../support/db.ts';
import { runCheckSiiXml } from '../../support/dte/check-sii-xml.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, type IssuingApp } from '../../support/issuing.ts';

/**
 * Two shapes the SII's test set needs, through POST …/dte (docs/certification.md): a note whose
 * first reference is the set's (`TpoDocRef SET`) and whose own codRef reference follows; a guía
 * that moves goods without a sale, its lines without precioUnitario and montoItem
 * (docs/decisions.md §11). The note keeps every other rule, a priced line still states montoItem.
 */
describeEachDb('set shapes through POST /dte', (backend) => {
  let t: IssuingApp;
  let key: string;
  let tenantId: string;
  const post = (body: Record<string, unknown>) => t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: body });

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
    tenantId = await readyTenant(t, key);
    for (const tipo of [33, 52, 61]) await requestFolios(t, key, tenantId, tipo, 5);
  });
  afterAll(() => t?.close());

  it("a note with the set's reference first and its codRef one second: 201, in that order; without a codRef one: refused", async () => {
    const factura = await post(dteBody(33));
    expect(factura.statusCode, factura.body).toBe(201);
    const f = factura.json();
    const set = { tipoDocRef: 'SET', folioRef: 0, fechaRef: f.fechaEmision, razonRef: 'CASO 4244618-6' };
    const own = { tipoDocRef: 33, folioRef: f.folio, fechaRef: f.fechaEmision, codRef: 3, razonRef: 'DEVOLUCION DE MERCADERIAS' };
    const nc = await post(dteBody(61, { referencias: [set, own] }));
    expect(nc.statusCode, nc.body).toBe(201);
    expect(nc.json().referencias.map((r: { tipoDocRef: string; codRef: number | null }) => [r.tipoDocRef, r.codRef ?? null])).toEqual([
      ['SET', null],
      ['33', 3],
    ]);
    const xml = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${nc.json().id}/xml` })).rawPayload.toString(
      'latin1',
    );
    expect(xml.indexOf('<TpoDocRef>SET</TpoDocRef>')).toBeLessThan(xml.indexOf('<TpoDocRef>33</TpoDocRef>'));

    const setOnly = await post(dteBody(61, { referencias: [set] }));
    expect([setOnly.statusCode, setOnly.json().error.code], setOnly.body).toEqual([400, 'required_field']);
    const uncoded = await post(dteBody(61, { referencias: [set, { ...own, codRef: undefined }] }));
    expect([uncoded.statusCode, uncoded.json().error.param], uncoded.body).toEqual([400, 'referencias[1].codRef']);
    const twoCancel = await post(dteBody(61, { referencias: [set, { ...own, codRef: 1 }, { ...own, folioRef: f.folio + 1, codRef: 1 }] }));
    expect(twoCancel.json().error.code, twoCancel.body).toBe('reference_multiple_cancellations');
  });

  it('a guía moving goods without a sale: lines without precioUnitario and montoItem, amounts 0, MontoItem 0 in a valid XML', async () => {
    const detalle = [
      { nombre: 'ITEM 1', cantidad: 73 },
      { nombre: 'ITEM 2', cantidad: 29 },
    ];
    const r = await post({ ...dteBody(52), indTraslado: 5, detalle, montoTotal: 0 });
    expect(r.statusCode, r.body).toBe(201);
    const g = r.json();
    expect(g).toMatchObject({ montoNeto: 0, iva: 0, montoExento: 0, montoTotal: 0 });
    expect(
      g.detalle.map((l: { cantidad: number; precioUnitario: number | null; montoItem: number }) => [
        l.cantidad,
        l.precioUnitario,
        l.montoItem,
      ]),
    ).toEqual([
      [73, null, 0],
      [29, null, 0],
    ]);
    const xml = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${g.id}/xml` })).rawPayload;
    const text = xml.toString('latin1');
    expect(text).not.toContain('<PrcItem>');
    expect(text.match(/<MontoItem>0<\/MontoItem>/g)).toHaveLength(2);
    const check = runCheckSiiXml([{ name: 'guia.xml', bytes: xml }], {
      cafKeyPem: (t.ctx.provider as InProcessEmulator).siiKey.publicKeyPem,
    });
    expect(check.failures, check.output).toEqual([]);
    expect(check.exitCode).toBe(0);
  });

  it('a priced line still states montoItem; a sale guía or a factura still needs prices', async () => {
    const body = dteBody(33);
    const lines = body.detalle as Record<string, unknown>[];
    const noMonto = await post({ ...body, detalle: [{ ...lines[0], montoItem: undefined }, ...lines.slice(1)] });
    expect([noMonto.statusCode, noMonto.json().error], noMonto.body).toEqual([
      400,
      expect.objectContaining({ code: 'invalid_field', param: 'detalle[0].montoItem' }),
    ]);
    const sale = await post({ ...dteBody(52), indTraslado: 1, detalle: [{ nombre: 'ITEM 1', cantidad: 3 }], montoTotal: 0 });
    expect([sale.statusCode, sale.json().error?.code], sale.body).toEqual([400, 'required_field']);
    const factura = await post({ ...dteBody(33), detalle: [{ nombre: 'ITEM 1', cantidad: 3 }], montoTotal: 0 });
    expect(factura.json().error?.code, factura.body).toBe('required_field');
  });
});
