import { describe, expect, it } from 'vitest';
import { amountFindings } from './amounts.ts';
import { codes, dte, type DteParts } from './dte.test-support.ts';

const anon = { RUTRecep: '66666666-6' };
const boleta = (tipo: 39 | 41, detalle: NonNullable<DteParts['detalle']>, totales: Record<string, number>, extra: Partial<DteParts> = {}) =>
  amountFindings(dte({ tipo, receptor: anon, detalle, totales, ...extra }), tipo);

describe('boletas: gross lines', () => {
  it('39_001 (PrcItem 1190) → 1000 / 190 / 1190', () => {
    expect(boleta(39, [{ NmbItem: 'P', QtyItem: 1, PrcItem: 1190, MontoItem: 1190 }], { MntNeto: 1000, IVA: 190, MntTotal: 1190 })).toEqual(
      [],
    );
  });

  it('39_002 (10 % global discount) → 900 / 171 / 1071; MntTotal off by one is the SII’s recorded HED-2-260', () => {
    const globales = [{ TpoMov: 'D', TpoValor: '%', ValorDR: 10 }];
    const line = [{ NmbItem: 'P', QtyItem: 1, PrcItem: 1190, MontoItem: 1190 }];
    expect(boleta(39, line, { MntNeto: 900, IVA: 171, MntTotal: 1071 }, { globales })).toEqual([]);
    expect(boleta(39, line, { MntNeto: 900, IVA: 171, MntTotal: 1072 }, { globales })).toEqual([
      {
        codigo: 'HED-2-260',
        descripcion: 'REPARO- Monto Total No Cuadra con Parciales',
        detalle: 'Total -> [1072] <> [1071] <- suma de detalles',
      },
    ]);
  });

  it('IVA = gross − neto, not neto × 19 % [REF §7]; neto and IVA only when present', () => {
    const line = [{ NmbItem: 'P', QtyItem: 1, PrcItem: 680, MontoItem: 680 }];
    expect(boleta(39, line, { MntNeto: 571, IVA: 109, MntTotal: 680 })).toEqual([]);
    expect(codes(boleta(39, line, { MntNeto: 571, IVA: 108, MntTotal: 680 }))).toEqual(['HED-2-302']);
    expect(codes(boleta(39, line, { MntNeto: 572, IVA: 108, MntTotal: 680 }))).toEqual(['HED-2-303']);
    expect(boleta(39, line, { MntTotal: 680 })).toEqual([]);
  });

  it('exempt lines in MntExe, inside the total; MontoNF outside', () => {
    const lines = [
      { NmbItem: 'Café', QtyItem: 2, PrcItem: 2490, MontoItem: 4980 },
      { NmbItem: 'Diario', IndExe: 1, QtyItem: 1, PrcItem: 1200, MontoItem: 1200 },
      { NmbItem: 'Propina', IndExe: 2, MontoItem: 500 },
    ];
    expect(boleta(39, lines, { MntNeto: 4185, MntExe: 1200, IVA: 795, MntTotal: 6180, MontoNF: 500 })).toEqual([]);
    expect(codes(boleta(39, lines, { MntNeto: 4185, IVA: 795, MntTotal: 6180, MontoNF: 500 }))).toEqual(['HED-2-303']);
    expect(codes(boleta(39, lines, { MntNeto: 4185, MntExe: 1200, IVA: 795, MntTotal: 6680, MontoNF: 500 }))).toEqual(['HED-2-260']);
  });

  it('IndMntNeto 2: net lines, IVA = neto × 19 %', () => {
    const line = [{ NmbItem: 'P', QtyItem: 1, PrcItem: 1000, MontoItem: 1000 }];
    const neto = { idDoc: { IndMntNeto: 2 } };
    expect(boleta(39, line, { MntNeto: 1000, IVA: 190, MntTotal: 1190 }, neto)).toEqual([]);
    expect(codes(boleta(39, line, { MntNeto: 1000, IVA: 191, MntTotal: 1191 }, neto))).toEqual(['HED-2-302']);
  });
});

describe('boletas exentas', () => {
  it('41_001 → 1000; 41_002 (IndExeDR 1, 10 %) → 900', () => {
    const line = [{ IndExe: 1, NmbItem: 'P', QtyItem: 1, PrcItem: 1000, MontoItem: 1000 }];
    expect(boleta(41, line, { MntExe: 1000, MntTotal: 1000 })).toEqual([]);
    const globales = [{ TpoMov: 'D', TpoValor: '%', ValorDR: 10, IndExeDR: 1 }];
    expect(boleta(41, line, { MntExe: 900, MntTotal: 900 }, { globales })).toEqual([]);
    expect(codes(boleta(41, line, { MntExe: 900, MntTotal: 901 }, { globales }))).toEqual(['HED-2-260']);
  });
});
