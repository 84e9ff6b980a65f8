import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { prepareDte, type DocumentInput } from '../../../dte/index.ts';
import { caseRequests, type CaseRequest } from './case-request.ts';
import { parseSet } from './set.parse.ts';

/**
 * Each case of the set as the body of POST …/dte. The amounts of three cases of set 01 are
 * computed by hand below (IVA 19 %, rounded half up to whole pesos) and the engine's `prepareDte`
 * must agree with the body built for them.
 */
const read = (n: string) =>
  parseSet(readFileSync(new URL(`../../../../test/fixtures/certification/SIISetDePruebas-${n}.txt`, import.meta.url)));
const emisor = {
  rut: '76.192.083-9',
  razonSocial: 'Servicios Ejemplo SpA',
  giro: 'Desarrollo de software',
  acteco: [620200],
  direccion: 'Av. Providencia 1234',
  comuna: 'Providencia',
  ciudad: 'Santiago',
};
const opts = {
  fecha: '2026-11-28',
  receptor: {
    rut: '77.777.777-7',
    razonSocial: 'Cliente SpA',
    giro: 'Comercio',
    direccion: 'Calle 1',
    comuna: 'Santiago',
    ciudad: 'Santiago',
  },
  emisor: {
    rut: emisor.rut,
    razonSocial: emisor.razonSocial,
    giro: emisor.giro,
    direccion: emisor.direccion,
    comuna: emisor.comuna,
    ciudad: emisor.ciudad,
  },
  receptorExtranjero: { rut: '55.555.555-5', razonSocial: 'Globex', giro: 'Import', direccion: '1 Main St', ciudad: 'Bremen' },
};
/** The engine's view of a body: pending references get a stand-in folio, as they will get a real one. */
const prepare = (r: CaseRequest) =>
  prepareDte({
    ...(r.body as unknown as DocumentInput),
    emisor,
    referencias: r.body.referencias.map((x) => ({ ...x, folioRef: x.folioRef || 1 })),
  } as DocumentInput);

describe('set 01 cases as document requests', () => {
  const reqs = caseRequests(read('01'), opts);
  const byId = (id: string) => reqs.find((r) => r.caseId === id)!;

  it('one request per document case (básico, guías, exenta), none for the books', () => {
    expect(reqs.map((r) => r.caseId)).toEqual([
      ...[1, 2, 3, 4, 5, 6, 7, 8].map((k) => `4244618-${k}`),
      ...[1, 2, 3].map((k) => `4244621-${k}`),
      ...[1, 2, 3, 4, 5, 6, 7, 8].map((k) => `4244623-${k}`),
    ]);
  });

  it('CASO 4244618-1 by hand: 139 × 1812 + 59 × 2976', () => {
    // 139 × 1812 = 251 868; 59 × 2976 = 175 584; neto 427 452;
    // IVA 427 452 × 0.19 = 81 215.88 → 81 216; total 427 452 + 81 216 = 508 668.
    const r = byId('4244618-1');
    expect(r.body.detalle.map((l) => [l.nombre, l.cantidad, l.precioUnitario, l.montoItem])).toEqual([
      ['Cajón AFECTO', 139, 1812, 251868],
      ['Relleno AFECTO', 59, 2976, 175584],
    ]);
    expect(r.body.montoTotal).toBe(508668);
    expect(prepare(r).totals).toMatchObject({ montoNeto: 427452, iva: 81216, montoExento: 0, montoTotal: 508668 });
    expect(r.body.referencias).toEqual([{ tipoDocRef: 'SET', folioRef: 0, fechaRef: '2026-11-28', razonRef: 'CASO 4244618-1' }]);
    expect([r.pending, r.limits, r.unbuildable]).toEqual([[], [], []]);
  });

  it('CASO 4244618-2 by hand: line discounts of 6 % and 11 %', () => {
    // 416 × 3293 = 1 369 888; 6 % = 82 193.28 → 82 193; line 1 369 888 − 82 193 = 1 287 695.
    // 349 × 2352 = 820 848; 11 % = 90 293.28 → 90 293; line 820 848 − 90 293 = 730 555.
    // neto 2 018 250; IVA × 0.19 = 383 467.5 → 383 468 (half up); total 2 401 718.
    const r = byId('4244618-2');
    expect(r.body.detalle.map((l) => [l.descuentoPct, l.montoItem])).toEqual([
      [6, 1287695],
      [11, 730555],
    ]);
    expect(prepare(r).totals).toMatchObject({ montoNeto: 2018250, iva: 383468, montoExento: 0, montoTotal: 2401718 });
  });

  it('CASO 4244618-4 by hand: a 12 % global discount on the taxed lines, an exempt line untouched', () => {
    // taxed: 196 × 3142 = 615 832; 84 × 3412 = 286 608; Σ 902 440; 12 % = 108 292.8 → 108 293;
    // neto 902 440 − 108 293 = 794 147; IVA × 0.19 = 150 887.93 → 150 888;
    // exempt 2 × 6790 = 13 580; total 794 147 + 150 888 + 13 580 = 958 615.
    const r = byId('4244618-4');
    expect(r.body.detalle[2]).toMatchObject({ nombre: 'ITEM 3 SERVICIO EXENTO', exento: true, montoItem: 13580 });
    expect(r.body.descuentosGlobales).toEqual([{ tipo: 'descuento', valor: 12, unidad: '%' }]);
    expect(prepare(r).totals).toMatchObject({ montoNeto: 794147, iva: 150888, montoExento: 13580, montoTotal: 958615 });
  });

  it("notes: SET first, then the note's own reference to the case it modifies, pending its folio", () => {
    const nc = byId('4244618-6');
    expect(nc.body.referencias).toEqual([
      { tipoDocRef: 'SET', folioRef: 0, fechaRef: '2026-11-28', razonRef: 'CASO 4244618-6' },
      { tipoDocRef: 33, folioRef: 0, fechaRef: '2026-11-28', codRef: 3, razonRef: 'DEVOLUCION DE MERCADERIAS' },
    ]);
    expect(nc.pending).toEqual([{ index: 1, caseId: '4244618-2' }]);
    // Returned goods at the invoice's price and discount: 153 × 3293 − 6 %, 236 × 2352 − 11 %.
    expect(nc.body.detalle.map((l) => [l.cantidad, l.precioUnitario, l.descuentoPct])).toEqual([
      [153, 3293, 6],
      [236, 2352, 11],
    ]);
    expect(byId('4244618-5').body.referencias[1]).toMatchObject({ codRef: 2, razonRef: 'CORRIGE GIRO DEL RECEPTOR' });
    expect(byId('4244618-5').body.montoTotal).toBe(0);
    // Cancelling case 3 repeats its lines; the debit note cancelling note 5 names a 61.
    expect(byId('4244618-7').body.montoTotal).toBe(byId('4244618-3').body.montoTotal);
    expect(byId('4244618-8').body.referencias[1]).toMatchObject({ tipoDocRef: 61, codRef: 1 });
    expect(byId('4244618-8').pending).toEqual([{ index: 1, caseId: '4244618-5' }]);
  });

  it('exempt notes: a price difference over every unit of the item (9 h × 699), exempt', () => {
    const r = byId('4244623-2');
    expect(r.body.detalle).toEqual([{ nombre: 'HORAS PROGRAMADOR', cantidad: 9, precioUnitario: 699, exento: true, montoItem: 6291 }]);
    expect(prepare(r).totals).toMatchObject({ montoNeto: 0, montoExento: 6291, montoTotal: 6291 });
  });

  it('guías: IndTraslado and TipoDespacho; a move between premises names the issuer, its lines priceless', () => {
    const move = byId('4244621-1');
    expect(move.body).toMatchObject({ indTraslado: 5, receptor: { rut: emisor.rut }, montoTotal: 0 });
    // A move without a sale leaves out precioUnitario and montoItem (docs/decisions.md §11).
    expect(move.body.detalle.length).toBeGreaterThan(0);
    for (const l of move.body.detalle) expect([l.precioUnitario, l.montoItem, typeof l.cantidad]).toEqual([undefined, undefined, 'number']);
    expect([move.limits, move.unbuildable]).toEqual([[], []]);
    expect(prepare(move).totals).toMatchObject({ montoNeto: 0, iva: 0, montoTotal: 0 });
    expect(byId('4244621-2').body).toMatchObject({ indTraslado: 1, tipoDespacho: 2, montoTotal: 239599 });
    expect(byId('4244621-3').body).toMatchObject({ indTraslado: 1, tipoDespacho: 1 });
  });

  it('every request the engine can take is accepted by it', () => {
    for (const r of reqs) expect(() => prepare(r), r.caseId).not.toThrow();
  });
});

describe('set 02: exports, liquidaciones, factura de compra', () => {
  const reqs = caseRequests(read('02'), opts);
  const byId = (id: string) => reqs.find((r) => r.caseId === id)!;

  it('export 1: customs codes, freight and insurance as two global surcharges, the MIC as a reference', () => {
    const r = byId('4267223-1');
    expect(r.body.exportacion).toMatchObject({
      moneda: 'DOLAR USA',
      formaPago: 11,
      aduana: {
        modalidadVenta: 1,
        clausulaVenta: 5,
        viaTransporte: 4,
        puertoEmbarque: 903,
        puertoDesembarque: 591,
        bultos: [{ tipo: 76, cantidad: 16 }],
      },
    });
    expect(r.body.descuentosGlobales).toEqual([
      { tipo: 'recargo', valor: 23.11, unidad: '$', glosa: 'FLETE' },
      { tipo: 'recargo', valor: 1.43, unidad: '$', glosa: 'SEGURO' },
    ]);
    expect(r.body.referencias[1]).toMatchObject({ tipoDocRef: '810', razonRef: 'MIC (MANIFIESTO INTERNACIONAL)' });
    // 162 × 106 = 17 172; + 23.11 + 1.43 = 17 196.54 dollars.
    expect(prepare(r).totals).toMatchObject({ montoExento: 17196.54, montoTotal: 17196.54 });
    // The credit note returns 54 at the invoice's 106 and carries the invoice's export data.
    expect(byId('4267223-2').body).toMatchObject({ montoTotal: 5724, exportacion: { moneda: 'DOLAR USA' } });
  });

  it('the factura de compra withholds the whole IVA (code 15)', () => {
    const r = byId('4267226-1');
    expect(r.body.detalle.every((l) => l.impuestoAdicional === 15)).toBe(true);
    expect(prepare(r).totals).toMatchObject({ montoNeto: 4029209, iva: 765550, ivaRetenido: 765550, montoTotal: 4029209 });
  });

  it('liquidaciones: each line gives its total (below zero for a credit note or a liquidación liquidated), commissions optional', () => {
    const liq = (id: string) => byId(id).body;
    // 4267225-1, no commissions: neto 807 984 + 129 698 = 937 682; exento 201 516 + 121 718 = 323 234;
    // IVA round(937 682 × 0.19 = 178 159.58) = 178 160; total 1 439 076.
    expect(liq('4267225-1')).toMatchObject({ montoTotal: 1439076, comisiones: [] });
    expect(liq('4267225-1').detalle.map((l) => [l.tipoDocLiquidado, l.cantidad, l.montoItem, l.precioUnitario])).toEqual([
      [30, 13, 807984, undefined],
      [32, 9, 201516, undefined],
      [33, 61, 129698, undefined],
      [34, 45, 121718, undefined],
    ]);
    // 4267225-2: neto 56 736 + 751 958 − 59 379 + 7 521 087 (BOLETAS, paper: 35) = 8 270 402;
    // exento 26 718 + 439 220 − 19 668 = 446 270; IVA round(1 571 376.38) = 1 571 376; total 10 288 048.
    expect(prepare(byId('4267225-2')).totals).toMatchObject({
      montoNeto: 8270402,
      montoExento: 446270,
      iva: 1571376,
      montoTotal: 10288048,
    });
    expect(liq('4267225-2').detalle.find((l) => l.montoItem === -59379)).toMatchObject({ tipoDocLiquidado: 60, cantidad: 1 });
    // 4267225-3: neto 625 630, exento 136 978, IVA 118 870; commissions 3 691 + 8 837 = 12 528 with
    // IVA round(701.29) + round(1 679.03) = 2 380, subtracted: total 866 570.
    expect(prepare(byId('4267225-3')).totals).toMatchObject({
      montoNeto: 625630,
      iva: 118870,
      comisiones: { neto: 12528, exento: 0, iva: 2380 },
      montoTotal: 866570,
    });
    // 4267225-4: ANTICIPO is TpoDocLiq 99; neto 550 000 + 425 352 + 126 357 − 109 758 − 169 039 = 822 912;
    // exento 208 950 + 1 847 283 − 170 403 = 1 885 830; IVA round(156 353.28) = 156 353; commissions
    // 2 583 − 8 452 = −5 869, IVA round(490.77) + round(−1 605.88) = 491 − 1 606 = −1 115 (half away
    // from zero); total 822 912 + 1 885 830 + 156 353 + 5 869 + 1 115 = 2 872 079.
    expect(liq('4267225-4').detalle[0]).toMatchObject({ tipoDocLiquidado: 99, cantidad: 361, montoItem: 550000 });
    expect(prepare(byId('4267225-4')).totals).toMatchObject({
      montoNeto: 822912,
      montoExento: 1885830,
      iva: 156353,
      comisiones: { neto: -5869, exento: 0, iva: -1115 },
      montoTotal: 2872079,
    });
  });

  it('every case of set 02 can be built, and the engine accepts each', () => {
    expect(reqs.filter((r) => r.unbuildable.length > 0).map((r) => [r.caseId, r.unbuildable])).toEqual([]);
    for (const r of reqs) expect(r.limits).toEqual(expect.arrayContaining(r.unbuildable));
    for (const r of reqs) expect(() => prepare(r), r.caseId).not.toThrow();
  });
});
