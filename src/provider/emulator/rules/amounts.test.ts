import { describe, expect, it } from 'vitest';
import { amountFindings } from './amounts.ts';
import { codes, dte, el, impto, type DteParts } from './dte.test-support.ts';

type Line = NonNullable<DteParts['detalle']>[number];
const doc = (tipo: number, detalle: Line[], totales: DteParts['totales'], extra: Partial<DteParts> = {}) =>
  dte({ tipo, detalle, totales, ...extra });
const judged = (tipo: number, detalle: Line[], totales: DteParts['totales'], extra: Partial<DteParts> = {}) =>
  amountFindings(doc(tipo, detalle, totales, extra), tipo);

/** IVA at 19 % of a neto, rounded half up (docs/dte.md "Amounts"). */
const iva = (neto: number): number => Math.round((neto * 19) / 100);

/**
 * Four documents with additional taxes or retentions, their figures worked out here:
 *  - pisco (33, ILA code 24 at 31.5 %): neto 1 × 1000 = 1000; IVA 19 % = 190; ILA 31.5 % of 1000 =
 *    315; total 1000 + 190 + 315 = 1505;
 *  - harina (33, IVA anticipado code 19 at 12 %): neto 2.5 TON × 280000 = 700000; IVA 133000;
 *    anticipado 12 % of 700000 = 84000; total 700000 + 133000 + 84000 = 917000;
 *  - retención total (46, code 15: the buyer keeps all the IVA): neto 100000; IVA 19000; retained
 *    19000; total 100000 + 19000 − 19000 = 100000;
 *  - trigo (46, code 34 at 4 %): neto 2 × 5000 = 10000; IVA 1900; retained 4 % of 10000 = 400;
 *    IVANoRet 1900 − 400 = 1500; total 10000 + 1900 − 400 = 11500.
 */
const samples = {
  pisco: (t = { MntNeto: 1000, TasaIVA: 19, IVA: iva(1000), MntTotal: 1000 + iva(1000) + 315 }, monto = 315, montoItem = 1000) =>
    doc(33, [{ NmbItem: 'Pisco', QtyItem: 1, PrcItem: 1000, MontoItem: montoItem, codes: ['24'] }], t, {
      totalesExtra: impto(['24', 31.5, monto]),
    }),
  harina: (t = { MntNeto: 700000, TasaIVA: 19, IVA: iva(700000), MntTotal: 700000 + iva(700000) + 84000 }, monto = 84000, tasa = 12) =>
    doc(33, [{ NmbItem: 'Harina', QtyItem: 2.5, UnmdItem: 'TON', PrcItem: 280000, MontoItem: 2.5 * 280000, codes: ['19'] }], t, {
      totalesExtra: impto(['19', tasa, monto]),
    }),
  retenidoTotal: (t = { MntNeto: 100000, TasaIVA: 19, IVA: iva(100000), MntTotal: 100000 + iva(100000) - 19000 }, monto = 19000) =>
    doc(46, [{ NmbItem: 'P1', QtyItem: 1, PrcItem: 100000, MontoItem: 100000, codes: ['15'] }], t, {
      totalesExtra: impto(['15', 19, monto]),
    }),
  trigo: (
    t = { MntNeto: 10000, TasaIVA: 19, IVA: iva(10000), MntTotal: 10000 + iva(10000) - 400 },
    monto = 400,
    ivaNoRet = iva(10000) - 400,
  ) =>
    doc(46, [{ NmbItem: 'Trigo', QtyItem: 2, UnmdItem: 'Kg', PrcItem: 5000, MontoItem: 2 * 5000, codes: ['34'] }], t, {
      totalesExtra: impto(['34', 4, monto]) + el('IVANoRet', ivaNoRet),
    }),
};

describe('the four documents, figures worked out above, have no finding', () => {
  it.each(Object.entries(samples))('%s', (_, make) => {
    expect(amountFindings(make(), Number(/<TipoDTE>(\d+)/.exec(make())![1]))).toEqual([]);
  });
});

describe('each sample off by one peso', () => {
  it('pisco (24, 31.5 %): MntTotal → HED-2-260 with the SII detail; MontoImp → HED-2-307; MontoItem → DET-2-100', () => {
    expect(amountFindings(samples.pisco({ MntNeto: 1000, TasaIVA: 19, IVA: 190, MntTotal: 1506 }), 33)).toEqual([
      {
        codigo: 'HED-2-260',
        descripcion: 'REPARO- Monto Total No Cuadra con Parciales',
        detalle: 'Total -> [1506] <> [1505] <- suma de parciales',
      },
    ]);
    const imp = amountFindings(samples.pisco(undefined, 316), 33);
    expect(imp[0]).toEqual(
      expect.objectContaining({ codigo: 'HED-2-307', detalle: 'TipoImp 24: MontoImp 316, esperado 315 (31.5 % de 1000)' }),
    );
    expect(codes(imp)).toEqual(['HED-2-307', 'HED-2-260']);
    expect(codes(amountFindings(samples.pisco(undefined, 315, 1001), 33))).toContain('DET-2-100');
  });

  it('harina (19, 12 %): IVA → HED-2-302; MntNeto → HED-2-303; TasaImp → HED-2-306', () => {
    expect(codes(amountFindings(samples.harina({ MntNeto: 700000, TasaIVA: 19, IVA: 133001, MntTotal: 917001 }), 33))).toEqual([
      'HED-2-302',
    ]);
    expect(codes(amountFindings(samples.harina({ MntNeto: 700001, TasaIVA: 19, IVA: 133000, MntTotal: 917001 }), 33))).toEqual([
      'HED-2-303',
    ]);
    expect(codes(amountFindings(samples.harina(undefined, 84000, 11), 33))).toEqual(['HED-2-306']);
  });

  it('IVA retenido total (15): MontoImp → HED-2-307, MntTotal → HED-2-260', () => {
    expect(codes(amountFindings(samples.retenidoTotal(undefined, 19001), 46))).toEqual(['HED-2-307', 'HED-2-260']);
    expect(codes(amountFindings(samples.retenidoTotal({ MntNeto: 100000, TasaIVA: 19, IVA: 19000, MntTotal: 100001 }), 46))).toEqual([
      'HED-2-260',
    ]);
  });

  it('trigo (34, 4 %): IVANoRet → HED-2-308; MontoImp at the declared usual rate → HED-2-307', () => {
    expect(amountFindings(samples.trigo(undefined, 400, 1501), 46)).toEqual([
      expect.objectContaining({ codigo: 'HED-2-308', detalle: 'IVANoRet 1501, esperado 1500 (IVA 1900 − retenido 400)' }),
    ]);
    expect(codes(amountFindings(samples.trigo(undefined, 401, 1499), 46))).toEqual(['HED-2-307', 'HED-2-260']);
  });
});

describe('lines', () => {
  it('MontoItem = round(QtyItem × PrcItem) − DescuentoMonto + RecargoMonto, half up', () => {
    // 1 × 104097 − 10000 = 94097; IVA 19 % = 17878.43 → 17878; total 94097 + 17878 = 111975.
    const line = { NmbItem: 'Cert', QtyItem: 1, PrcItem: 104097, DescuentoMonto: 10000, MontoItem: 94097 };
    const t = { MntNeto: 94097, TasaIVA: 19, IVA: iva(94097), MntTotal: 94097 + iva(94097) };
    expect(judged(33, [line], t)).toEqual([]);
    expect(
      judged(33, [{ NmbItem: 'A', QtyItem: 1.5, PrcItem: 12990.5, RecargoMonto: 5, MontoItem: 19491 }], {
        MntNeto: 19491,
        TasaIVA: 19,
        IVA: 3703,
        MntTotal: 23194,
      }),
    ).toEqual([]);
    expect(judged(33, [{ ...line, MontoItem: 94098 }], t)[0]).toEqual(
      expect.objectContaining({ codigo: 'DET-2-100', detalle: 'línea 1: MontoItem 94098, esperado 94097' }),
    );
  });

  it('a line without quantity or price keeps its MontoItem; DescuentoPct is informative', () => {
    // 104090 − 10 % (10409) = 93681; IVA 19 % = 17799.39 → 17799; total 93681 + 17799 = 111480.
    expect(judged(33, [{ NmbItem: 'Cert', MontoItem: 93681 }], { MntNeto: 93681, TasaIVA: 19, IVA: 17799, MntTotal: 111480 })).toEqual([]);
    const pct = { NmbItem: 'Cert', QtyItem: 1, PrcItem: 104090, DescuentoPct: 10, DescuentoMonto: 10409, MontoItem: 93681 };
    expect(judged(33, [pct], { MntNeto: 93681, TasaIVA: 19, IVA: 17799, MntTotal: 111480 })).toEqual([]);
  });

  it('IndExe: 1 exempt, 2 and 6 MontoNF outside MntTotal, 3 GrntDep inside it, 4 zero', () => {
    const lines = [
      { NmbItem: 'A', MontoItem: 1000 },
      { NmbItem: 'E', IndExe: 1, MontoItem: 500 },
      { NmbItem: 'NF', IndExe: 2, MontoItem: 300 },
      { NmbItem: 'NF-', IndExe: 6, MontoItem: 100 },
      { NmbItem: 'Envase', IndExe: 3, MontoItem: 50 },
      { NmbItem: 'Regalo', IndExe: 4, QtyItem: 1, PrcItem: 999, MontoItem: 0 },
    ];
    const t = { MntNeto: 1000, MntExe: 500, TasaIVA: 19, IVA: 190, GrntDep: 50, MntTotal: 1740, MontoNF: 200 };
    expect(judged(33, lines, t)).toEqual([]);
    expect(codes(judged(33, lines, { ...t, MontoNF: 300 }))).toEqual(['HED-2-303']);
    expect(codes(judged(33, lines, { ...t, MntTotal: 1940 }))).toEqual(['HED-2-260']);
    expect(codes(judged(33, [...lines.slice(0, 5), { NmbItem: 'Regalo', IndExe: 4, MontoItem: 1 }], t))).toEqual(['DET-2-100']);
  });

  it('a guía that is not a sale may carry zero amounts (MntTotal 0)', () => {
    const traslado = { IndTraslado: 5 };
    expect(judged(52, [{ NmbItem: 'Impresora', QtyItem: 1, MontoItem: 0 }], { MntTotal: 0 }, { idDoc: traslado })).toEqual([]);
    expect(judged(52, [{ NmbItem: 'Impresora', QtyItem: 1, PrcItem: 100000, MontoItem: 0 }], { MntTotal: 0 }, { idDoc: traslado })).toEqual(
      [],
    );
    const venta = judged(
      52,
      [{ NmbItem: 'Impresora', QtyItem: 1, PrcItem: 100000, MontoItem: 0 }],
      { MntTotal: 0 },
      { idDoc: { IndTraslado: 1 } },
    );
    expect(codes(venta)).toEqual(['DET-2-100']);
  });
});

describe('DscRcgGlobal', () => {
  const cert = [{ NmbItem: 'Cert', QtyItem: 1, PrcItem: 104090, MontoItem: 104090 }];
  it('% of the taxed lines, D subtracts', () => {
    // 104090 − 10 % (10409) = 93681; IVA 19 % = 17799.39 → 17799; total 93681 + 17799 = 111480.
    const t = { MntNeto: 93681, TasaIVA: 19, IVA: iva(93681), MntTotal: 93681 + iva(93681) };
    expect(judged(33, cert, t, { globales: [{ TpoMov: 'D', TpoValor: '%', ValorDR: 10 }] })).toEqual([]);
    expect(
      codes(judged(33, cert, { ...t, MntNeto: 93682, MntTotal: 111481 }, { globales: [{ TpoMov: 'D', TpoValor: '%', ValorDR: 10 }] })),
    ).toContain('HED-2-303');
  });

  it('$ adds as is; IndExeDR 1 goes to the exempt sum', () => {
    const lines = [...cert, { NmbItem: 'Curso', IndExe: 1, MontoItem: 20000 }];
    const globales = [
      { TpoMov: 'R', TpoValor: '$', ValorDR: 910 },
      { TpoMov: 'D', TpoValor: '%', ValorDR: 5, IndExeDR: 1 },
    ];
    expect(judged(33, lines, { MntNeto: 105000, MntExe: 19000, TasaIVA: 19, IVA: 19950, MntTotal: 143950 }, { globales })).toEqual([]);
    expect(codes(judged(33, lines, { MntNeto: 105000, MntExe: 20000, TasaIVA: 19, IVA: 19950, MntTotal: 144950 }, { globales }))).toEqual([
      'HED-2-303',
    ]);
  });
});

describe('MntBruto', () => {
  it('gross lines: neto = round(gross / 1.19), IVA = gross − neto (or neto × 19 %, as field 112 says)', () => {
    const bruto = { idDoc: { MntBruto: 1 } };
    const lines = [{ NmbItem: 'A', QtyItem: 1, PrcItem: 86710, MontoItem: 86710 }];
    expect(judged(33, lines, { MntNeto: 72866, TasaIVA: 19, IVA: 13844, MntTotal: 86710 }, bruto)).toEqual([]);
    expect(judged(33, lines, { MntNeto: 72866, TasaIVA: 19, IVA: 13845, MntTotal: 86711 }, bruto)).toEqual([]);
    expect(judged(33, lines, { MntNeto: 72866, TasaIVA: 19, IVA: 13846, MntTotal: 86712 }, bruto)).toEqual([
      expect.objectContaining({ codigo: 'HED-2-302', detalle: 'IVA 13846, esperado 13844 (bruto − neto) o 13845 (19 %)' }),
    ]);
    expect(codes(judged(33, lines, { MntNeto: 72866, TasaIVA: 19, IVA: 13844, MntTotal: 86711 }, bruto))).toEqual(['HED-2-260']);
    expect(codes(judged(33, lines, { MntNeto: 72867, TasaIVA: 19, IVA: 13843, MntTotal: 86710 }, bruto))).toEqual(['HED-2-303']);
  });
});

describe('what cannot be judged gives no finding', () => {
  it('an unknown or specific tax: no total, no MontoImp', () => {
    const lines = [{ NmbItem: 'Diario', QtyItem: 1, PrcItem: 1000, MontoItem: 1000, codes: ['53'] }];
    expect(judged(33, lines, { MntNeto: 1000, TasaIVA: 19, IVA: 190, MntTotal: 1185 }, { totalesExtra: impto(['53', 0.5, 5]) })).toEqual(
      [],
    );
    const diesel = [{ NmbItem: 'Diesel', QtyItem: 1000, PrcItem: 800, MontoItem: 800000, codes: ['28'] }];
    expect(
      judged(
        33,
        diesel,
        { MntNeto: 800000, TasaIVA: 19, IVA: 152000, MntTotal: 1012345 },
        { totalesExtra: impto(['28', undefined, 60345]) },
      ),
    ).toEqual([]);
  });

  it('a taxed global discount with additional taxes: MontoImp not judged, the total still is', () => {
    const lines = [{ NmbItem: 'Pisco', QtyItem: 1, PrcItem: 1000, MontoItem: 1000, codes: ['24'] }];
    const globales = [{ TpoMov: 'D', TpoValor: '%', ValorDR: 10 }];
    const t = { MntNeto: 900, TasaIVA: 19, IVA: 171, MntTotal: 1355 };
    expect(judged(33, lines, t, { globales, totalesExtra: impto(['24', 31.5, 284]) })).toEqual([]);
    expect(codes(judged(33, lines, { ...t, MntTotal: 1356 }, { globales, totalesExtra: impto(['24', 31.5, 284]) }))).toEqual(['HED-2-260']);
  });

  it('a line with a rated code and no ImptoReten is a missing tax', () => {
    const lines = [{ NmbItem: 'Pisco', QtyItem: 1, PrcItem: 1000, MontoItem: 1000, codes: ['24'] }];
    expect(judged(33, lines, { MntNeto: 1000, TasaIVA: 19, IVA: 190, MntTotal: 1190 })).toEqual([
      expect.objectContaining({ codigo: 'HED-2-307', detalle: 'TipoImp 24 ausente, esperado 315' }),
    ]);
  });
});

describe('notes', () => {
  it('amounts of a note that corrects text are left to REF-3-761; an annulment is judged like a factura', () => {
    const corrige = [{ TpoDocRef: 33, FolioRef: 1, FchRef: '2026-03-01', CodRef: 2 }];
    expect(
      judged(61, [{ NmbItem: 'Corrige', QtyItem: 1, PrcItem: 1000, MontoItem: 0 }], { MntTotal: 0 }, { referencias: corrige }),
    ).toEqual([]);
    const anula = [{ TpoDocRef: 33, FolioRef: 1, FchRef: '2026-03-01', CodRef: 1 }];
    const conectores = [{ NmbItem: 'Conectores RJ45', QtyItem: 450, PrcItem: 70, MontoItem: 31500 }];
    expect(judged(61, conectores, { MntNeto: 31500, TasaIVA: 19, IVA: 5985, MntTotal: 37485 }, { referencias: anula })).toEqual([]);
  });
});

describe('liquidación-factura 43 (Liquidacion)', () => {
  const lines = [
    { TpoDocLiq: 33, NmbItem: 'Venta por cuenta de terceros', QtyItem: 10, PrcItem: 35000, MontoItem: 350000 },
    { TpoDocLiq: 34, IndExe: 1, NmbItem: 'Venta exenta', MontoItem: 20000 },
  ];
  const comisiones = [{ TipoMovim: 'C', Glosa: 'Comisión 5 %', TasaComision: 5, ValComNeto: 17500, ValComExe: 0, ValComIVA: 3325 }];
  const header = (neto: number, exe: number, iva: number) =>
    `<Comisiones>${el('ValComNeto', neto)}${el('ValComExe', exe)}${el('ValComIVA', iva)}</Comisiones>`;
  const t = { MntNeto: 350000, MntExe: 20000, TasaIVA: 19, IVA: 66500 };

  it('MntTotal = neto + exento + IVA − ValComNeto − ValComExe − ValComIVA', () => {
    expect(judged(43, lines, { ...t, MntTotal: 415675 }, { comisiones, totalesExtra: header(17500, 0, 3325) })).toEqual([]);
    expect(codes(judged(43, lines, { ...t, MntTotal: 436500 }, { comisiones, totalesExtra: header(17500, 0, 3325) }))).toEqual([
      'HED-2-260',
    ]);
  });

  it('HED-2-309: header sums and each commission’s IVA', () => {
    const f = judged(43, lines, { ...t, MntTotal: 415674 }, { comisiones, totalesExtra: header(17500, 0, 3326) });
    expect(f).toEqual([expect.objectContaining({ codigo: 'HED-2-309', detalle: 'ValComIVA 3326, suma de comisiones 3325' })]);
    const line = judged(
      43,
      lines,
      { ...t, MntTotal: 415674 },
      { comisiones: [{ ...comisiones[0], ValComIVA: 3326 }], totalesExtra: header(17500, 0, 3326) },
    );
    expect(line).toEqual([expect.objectContaining({ codigo: 'HED-2-309', detalle: 'comisión 1: ValComIVA 3326, esperado 3325' })]);
  });

  it('negative amounts round half away from zero', () => {
    const neg = [{ TpoDocLiq: 61, NmbItem: 'Nota de crédito liquidada', MontoItem: -1005 }];
    expect(judged(43, neg, { MntNeto: -1005, TasaIVA: 19, IVA: -191, MntTotal: -1196 })).toEqual([]);
    expect(codes(judged(43, neg, { MntNeto: -1005, TasaIVA: 19, IVA: -190, MntTotal: -1195 }))).toEqual(['HED-2-302']);
  });
});
