import { describe, expect, it } from 'vitest';
import { amountFindings } from './amounts.ts';
import { codes, dte, type DteParts } from './dte.test-support.ts';

const hotel = { IndExe: 1, NmbItem: 'Alojamiento 5 noches', QtyItem: 1, PrcItem: 50, MontoItem: 50 };
const exported = (tipo: number, detalle: NonNullable<DteParts['detalle']>, totales: DteParts['totales'], extra: Partial<DteParts> = {}) =>
  amountFindings(dte({ tipo, idDoc: { IndServicio: 4 }, detalle, totales, ...extra }), tipo);

describe('exports: amounts in the document’s currency', () => {
  it.each([110, 111, 112])('%i: MntExe = MntTotal = Σ lines (50 DOLAR USA)', (tipo) => {
    expect(exported(tipo, [hotel], { TpoMoneda: 'DOLAR USA', MntExe: 50, MntTotal: 50 })).toEqual([]);
    expect(codes(exported(tipo, [hotel], { TpoMoneda: 'DOLAR USA', MntExe: 50, MntTotal: 51 }))).toEqual(['HED-2-260']);
    expect(codes(exported(tipo, [hotel], { TpoMoneda: 'DOLAR USA', MntExe: 51, MntTotal: 51 }))).toEqual(['HED-2-303']);
  });

  it('4 decimals, half up; whole pesos in PESO CL', () => {
    const lines = [
      { IndExe: 1, NmbItem: 'Consultoría', QtyItem: 10, PrcItem: 120.25, MontoItem: 1202.5 },
      { IndExe: 1, NmbItem: 'Licencia', QtyItem: 3, PrcItem: 33.33335, MontoItem: 100.0001 },
    ];
    expect(exported(110, lines, { TpoMoneda: 'DOLAR USA', MntExe: 1302.5001, MntTotal: 1302.5001 })).toEqual([]);
    const off = [lines[0]!, { ...lines[1]!, MontoItem: 100 }];
    expect(exported(110, off, { TpoMoneda: 'DOLAR USA', MntExe: 1302.5, MntTotal: 1302.5 })).toEqual([
      expect.objectContaining({ codigo: 'DET-2-100', detalle: 'línea 2: MontoItem 100, esperado 100.0001' }),
    ]);
    const pesos = [{ IndExe: 1, NmbItem: 'Vino', QtyItem: 3, PrcItem: 3333.5, MontoItem: 10001 }];
    expect(exported(110, pesos, { TpoMoneda: 'PESO CL', MntExe: 10001, MntTotal: 10001 })).toEqual([]);
    expect(
      codes(exported(110, [{ ...pesos[0]!, MontoItem: 10000.5 }], { TpoMoneda: 'PESO CL', MntExe: 10000.5, MntTotal: 10000.5 })),
    ).toEqual(['DET-2-100']);
  });

  it('a global discount on an export applies to the exempt sum', () => {
    const globales = [{ TpoMov: 'D', TpoValor: '%', ValorDR: 10 }];
    expect(exported(110, [hotel], { TpoMoneda: 'EURO', MntExe: 45, MntTotal: 45 }, { globales })).toEqual([]);
  });

  it('FmaPagExp 21 (sin pago): MntTotal 0', () => {
    const sinPago = { idDoc: { IndServicio: 4, FmaPagExp: 21 } };
    expect(exported(110, [hotel], { TpoMoneda: 'DOLAR USA', MntExe: 50, MntTotal: 0 }, sinPago)).toEqual([]);
    expect(codes(exported(110, [hotel], { TpoMoneda: 'DOLAR USA', MntExe: 50, MntTotal: 50 }, sinPago))).toEqual(['HED-2-260']);
  });
});

describe('OtraMoneda in pesos (110_002: 50 DOLAR USA at 500)', () => {
  const totales = { TpoMoneda: 'DOLAR USA', MntExe: 50, MntTotal: 50 };
  const otra = (total: number | string, exe?: number | string) => ({
    otraMoneda: { TpoMoneda: 'PESO CL', TpoCambio: 500, MntExeOtrMnda: exe, MntTotOtrMnda: total },
  });

  it('MntTotOtrMnda = MntTotal × TpoCambio; off by one peso is HED-2-320', () => {
    expect(exported(110, [hotel], totales, otra(25000, 25000))).toEqual([]);
    expect(exported(110, [hotel], totales, otra(25001))).toEqual([
      expect.objectContaining({ codigo: 'HED-2-320', detalle: 'MntTotOtrMnda 25001, esperado 25000 (50 × 500)' }),
    ]);
    expect(codes(exported(110, [hotel], totales, otra(25000, 24999)))).toEqual(['HED-2-320']);
  });

  it('whole pesos or the field’s 4 decimals', () => {
    const cents = { TpoMoneda: 'DOLAR USA', MntExe: 1302.4999, MntTotal: 1302.4999 };
    const line = [{ ...hotel, PrcItem: 1302.4999, MontoItem: 1302.4999 }];
    const at = (v: string) => ({ otraMoneda: { TpoMoneda: 'PESO CL', TpoCambio: 950.25, MntTotOtrMnda: v } });
    expect(exported(110, line, cents, at('1237701'))).toEqual([]);
    expect(exported(110, line, cents, at('1237700.53'))).toEqual([]);
    expect(codes(exported(110, line, cents, at('1237700')))).toEqual(['HED-2-320']);
  });

  it('another currency has no conversion rule: not judged', () => {
    expect(exported(110, [hotel], totales, { otraMoneda: { TpoMoneda: 'EURO', TpoCambio: 0.9, MntTotOtrMnda: 99 } })).toEqual([]);
  });
});
