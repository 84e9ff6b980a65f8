import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkAmounts, computeLineAmount, computeTotals } from './amounts.ts';
import type { AmountLine } from './amounts.ts';
import type { TipoDte } from './types.ts';
import { siiSharedDir } from '../../test/support/dte/check-sii-xml.ts';

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

describe('montos_esperados.json (LibreDTE vectors within the API rules)', () => {
  const dir = path.join(siiSharedDir(), 'samples', 'json-inputs');
  const expected = JSON.parse(readFileSync(path.join(dir, 'montos_esperados.json'), 'utf8')) as Record<string, Record<string, number>>;
  // Cases with discounts, additional taxes or retentions are outside the API's amount rules.
  const cases = [
    '33_001_simple',
    '33_002_factura_guia',
    '33_007_contado_observacion',
    '34_001_simple',
    '39_001_simple',
    '41_001_simple',
    '46_001_afecta',
    '46_002_exenta',
    '52_001_constituye_venta',
    '56_001_anula_nota_credito',
    '61_001_anula_factura',
    '61_003_corrige_monto_factura',
  ];

  it.each(cases)('%s', (name) => {
    const tipo = Number(name.split('_')[0]) as TipoDte;
    const doc = JSON.parse(readFileSync(path.join(dir, String(tipo), `${name}.json`), 'utf8')) as { Detalle: unknown };
    const detalle = (Array.isArray(doc.Detalle) ? doc.Detalle : [doc.Detalle]) as { QtyItem?: number; PrcItem: number; IndExe?: number }[];
    const lines: AmountLine[] = detalle.map((d) => ({ cantidad: d.QtyItem ?? 1, precioUnitario: d.PrcItem, exento: d.IndExe === 1 }));
    const t = computeTotals(tipo, lines);
    const want = expected[name] ?? {};
    if (want.MntNeto !== undefined) expect(t.montoNeto).toBe(want.MntNeto);
    if (want.IVA !== undefined) expect(t.iva).toBe(want.IVA);
    if (want.MntExe !== undefined) expect(t.montoExento).toBe(want.MntExe);
    expect(t.montoTotal).toBe(want.MntTotal);
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
