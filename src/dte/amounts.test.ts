import { describe, expect, it } from 'vitest';
import { checkAmounts, computeLineAmount, computeTotals } from './amounts.ts';
import type { AmountLine } from './amounts.ts';
import type { TipoDte } from './types.ts';

describe('line amounts', () => {
  it('rounds half up on the exact decimal product', () => {
    expect(computeLineAmount(3, 0.1)).toBe(0); // 0.3
    expect(computeLineAmount(0.5, 1)).toBe(1); // 0.5 → 1 (half up)
    expect(computeLineAmount(1.5, 1)).toBe(2);
    expect(computeLineAmount(2.5, 1)).toBe(3); // banker's rounding would give 2
    expect(computeLineAmount(1.005, 1000)).toBe(1005); // float: 1.005*1000 = 1004.9999999999999
    expect(computeLineAmount(0.285, 100)).toBe(29); // float: 28.499999999999996
    expect(computeLineAmount(1.15, 10)).toBe(12); // 11.5 → 12; float gives 11.499999999999998
    expect(computeLineAmount(4.35, 100)).toBe(435); // float: 434.99999999999994
    expect(computeLineAmount(1e-6, 500000)).toBe(1); // 0.5 → 1, exponent notation input
    expect(computeLineAmount(20, 4500)).toBe(90000);
  });

  it('IndExe 4 and 5: montoItem 0 whatever the price (format document §B field 38), in no total', () => {
    const t = computeTotals(33, [
      { cantidad: 1, precioUnitario: 1000 },
      { cantidad: 1, precioUnitario: 45000, indExe: 4 },
      { cantidad: 20, precioUnitario: 150, indExe: 5 },
    ]);
    expect(t.lineas).toEqual([1000, 0, 0]);
    expect(t.montoTotal).toBe(1190);
  });

  it('rejects negative and non-finite numbers', () => {
    expect(() => computeLineAmount(-1, 10)).toThrow(/must not be negative/);
    expect(() => computeLineAmount(Number.NaN, 10)).toThrow(/finite/);
  });
});

describe('totals', () => {
  it('factura: neto, exento, IVA = round(neto × 0.19), total', () => {
    const t = computeTotals(33, [
      { cantidad: 1, precioUnitario: 1000 },
      { cantidad: 1, precioUnitario: 5, exento: true },
      { cantidad: 1, precioUnitario: 50 },
    ]);
    expect(t).toMatchObject({ montoNeto: 1050, montoExento: 5, iva: 200, montoTotal: 1255, tasaIva: 19 }); // 199.5 → 200
  });

  it('boleta: gross lines, neto = round(gross / 1.19), IVA = gross − neto', () => {
    expect(computeTotals(39, [{ cantidad: 1, precioUnitario: 680 }])).toMatchObject({ montoNeto: 571, iva: 109, montoTotal: 680 });
    expect(computeTotals(39, [{ cantidad: 1, precioUnitario: 86710 }])).toMatchObject({ montoNeto: 72866, iva: 13844, montoTotal: 86710 });
    expect(
      computeTotals(39, [
        { cantidad: 1, precioUnitario: 1190 },
        { cantidad: 1, precioUnitario: 100, exento: true },
      ]),
    ).toMatchObject({
      montoNeto: 1000,
      iva: 190,
      montoExento: 100,
      montoTotal: 1290,
    });
  });

  it('exempt types: every line exempt', () => {
    expect(computeTotals(34, [{ cantidad: 5, precioUnitario: 25000 }])).toMatchObject({
      montoExento: 125000,
      montoTotal: 125000,
      iva: 0,
      tasaIva: null,
    });
    expect(computeTotals(41, [{ cantidad: 1, precioUnitario: 1000, exento: false }])).toMatchObject({
      montoExento: 1000,
      montoTotal: 1000,
    });
  });
});

describe('one document of each type, figures worked out by hand (IVA 19 %, half up; docs/dte.md "Amounts")', () => {
  const cases: [string, TipoDte, AmountLine[], { montoNeto?: number; iva?: number; montoExento?: number; montoTotal: number }][] = [
    // 4 × 12350 = 49400, + 1 × 7990 → neto 57390; IVA 57390 × 0.19 = 10904.1 → 10904; total 68294.
    [
      'factura, two lines',
      33,
      [
        { cantidad: 4, precioUnitario: 12350 },
        { cantidad: 1, precioUnitario: 7990 },
      ],
      { montoNeto: 57390, iva: 10904, montoTotal: 68294 },
    ],
    // neto 2 × 15000 = 30000; exento 4200; IVA 5700; total 30000 + 4200 + 5700 = 39900.
    [
      'factura with an exempt line',
      33,
      [
        { cantidad: 2, precioUnitario: 15000 },
        { cantidad: 1, precioUnitario: 4200, exento: true },
      ],
      { montoNeto: 30000, iva: 5700, montoExento: 4200, montoTotal: 39900 },
    ],
    // 2.75 × 1990 = 5472.5 → 5473; IVA 5473 × 0.19 = 1039.87 → 1040; total 6513.
    ['factura, fractional quantity', 33, [{ cantidad: 2.75, precioUnitario: 1990 }], { montoNeto: 5473, iva: 1040, montoTotal: 6513 }],
    // Everything exempt: 3 × 45000 = 135000.
    ['factura exenta', 34, [{ cantidad: 3, precioUnitario: 45000 }], { montoExento: 135000, montoTotal: 135000 }],
    // Gross prices: 2 × 2500 + 990 = 5990; neto 5990 / 1.19 = 5033.61 → 5034; IVA 5990 − 5034 = 956.
    [
      'boleta',
      39,
      [
        { cantidad: 2, precioUnitario: 2500 },
        { cantidad: 1, precioUnitario: 990 },
      ],
      { montoNeto: 5034, iva: 956, montoTotal: 5990 },
    ],
    ['boleta exenta', 41, [{ cantidad: 1, precioUnitario: 12000 }], { montoExento: 12000, montoTotal: 12000 }],
    // 10 × 3200 = 32000; IVA 6080; total 38080.
    ['factura de compra', 46, [{ cantidad: 10, precioUnitario: 3200 }], { montoNeto: 32000, iva: 6080, montoTotal: 38080 }],
    // 5 × 7000 = 35000; IVA 6650; total 41650.
    ['guía de despacho', 52, [{ cantidad: 5, precioUnitario: 7000 }], { montoNeto: 35000, iva: 6650, montoTotal: 41650 }],
    // 18000; IVA 3420; total 21420.
    ['nota de débito', 56, [{ cantidad: 1, precioUnitario: 18000 }], { montoNeto: 18000, iva: 3420, montoTotal: 21420 }],
    // 2 × 4450 = 8900; IVA 8900 × 0.19 = 1691; total 10591.
    ['nota de crédito', 61, [{ cantidad: 2, precioUnitario: 4450 }], { montoNeto: 8900, iva: 1691, montoTotal: 10591 }],
  ];

  it.each(cases)('%s (%i)', (_, tipo, lines, want) => {
    const t = computeTotals(tipo, lines);
    if (want.montoNeto !== undefined) expect(t.montoNeto).toBe(want.montoNeto);
    if (want.iva !== undefined) expect(t.iva).toBe(want.iva);
    if (want.montoExento !== undefined) expect(t.montoExento).toBe(want.montoExento);
    expect(t.montoTotal).toBe(want.montoTotal);
  });
});

describe('checkAmounts', () => {
  it('returns nothing when consistent', () => {
    expect(checkAmounts(33, [{ cantidad: 2, precioUnitario: 100, montoItem: 200 }], 238)).toEqual([]);
  });

  it('reports every mismatch with the expected value', () => {
    const r = checkAmounts(
      33,
      [
        { cantidad: 2, precioUnitario: 100, montoItem: 200 },
        { cantidad: 3, precioUnitario: 0.1, montoItem: 1 },
        { cantidad: 1.5, precioUnitario: 3, montoItem: 4 },
      ],
      999,
    );
    expect(r.map((m) => m.param)).toEqual(['detalle[1].montoItem', 'detalle[2].montoItem', 'montoTotal']);
    expect(r[0]).toMatchObject({ expected: 0, actual: 1 });
    expect(r[1]).toMatchObject({ expected: 5, actual: 4 }); // 4.5 → 5
    expect(r[2]).toMatchObject({ expected: 244, actual: 999 }); // neto 205, IVA 39 (38.95)
    expect(r[2]?.message).toContain('244');
  });

  it('boleta total is the gross sum', () => {
    expect(checkAmounts(39, [{ cantidad: 1, precioUnitario: 1190, montoItem: 1190 }], 1000)).toMatchObject([
      { param: 'montoTotal', expected: 1190 },
    ]);
  });
});

describe('liquidación-factura 43: lines that give their amount, below zero too', () => {
  const lines: AmountLine[] = [
    { cantidad: 1, montoItem: 56736 },
    { cantidad: 1, montoItem: -59379 },
    { cantidad: 1, montoItem: 26718, exento: true },
    { cantidad: 1, montoItem: -19668, exento: true },
  ];
  it('takes each given montoItem; IVA of the sum rounds half away from zero', () => {
    // neto 56 736 − 59 379 = −2 643; IVA −2 643 × 0.19 = −502.17 → −502; exento 26 718 − 19 668 = 7 050.
    const t = computeTotals(43 as TipoDte, lines);
    expect(t.lineas).toEqual([56736, -59379, 26718, -19668]);
    expect(t).toMatchObject({ montoNeto: -2643, iva: -502, montoExento: 7050, montoTotal: 3905 });
  });
  it('commissions below zero: their IVA rounds half away from zero (−8 452 × 0.19 = −1 605.88 → −1 606)', () => {
    const t = computeTotals(43 as TipoDte, [{ cantidad: 1, montoItem: 100000 }], {
      comisiones: [{ montoNeto: 2583 }, { montoNeto: -8452 }],
    });
    // 100 000 + 19 000 − (2 583 − 8 452) − (491 − 1 606) = 119 000 + 5 869 + 1 115.
    expect(t).toMatchObject({ comisiones: { neto: -5869, exento: 0, iva: -1115 }, montoTotal: 125984 });
  });
  it('elsewhere a line without a price is not an amount the client may give', () => {
    // On a 33 the given montoItem is not the line's amount: the line is 0 (and checkAmounts says so).
    expect(computeTotals(33 as TipoDte, [{ cantidad: 1, montoItem: -5 }]).lineas).toEqual([0]);
    expect(checkAmounts(33 as TipoDte, [{ cantidad: 1, precioUnitario: 10, montoItem: -10 }], -12)[0]).toMatchObject({
      param: 'detalle[0].montoItem',
      expected: 10,
    });
  });
});

describe('line discounts and surcharges are whole amounts (MntImpType), also on exports in a foreign currency', () => {
  it('a percentage rounds to a whole amount: 10 % of 62 FRANCO SZ is 6, the line 68', () => {
    const t = computeTotals(110 as TipoDte, [{ cantidad: 1, precioUnitario: 62, recargoPct: 10 }], { moneda: 'FRANCO SZ' });
    expect(t.lineAmounts[0]).toMatchObject({ montoItem: 68, recargoMonto: 6 });
    expect(t.montoTotal).toBe(68);
  });
  it('the unit price keeps its decimals; a given amount with decimals is refused', () => {
    const t = computeTotals(110 as TipoDte, [{ cantidad: 3, precioUnitario: 10.5, descuentoPct: 5 }], { moneda: 'DOLAR USA' });
    // 31.5 − round(1.575) = 31.5 − 2 = 29.5.
    expect(t.lineAmounts[0]).toMatchObject({ montoItem: 29.5, descuentoMonto: 2 });
    expect(() => computeTotals(110 as TipoDte, [{ cantidad: 1, precioUnitario: 62, recargoMonto: 6.2 }], { moneda: 'FRANCO SZ' })).toThrow(
      /whole amount/,
    );
  });
});
