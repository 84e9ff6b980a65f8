import { describe, expect, it } from 'vitest';
import { runCheckSiiXml } from '../../../test/support/dte/check-sii-xml.ts';
import { testBookHeader } from '../../../test/support/dte/book-header.ts';
import { expectOneElementPerLine } from '../../../test/support/dte/lines.ts';
import { longestLine, MAX_XML_LINE } from '../xml-lines.ts';
import { buildLibroCompraVenta, buildLibroGuia, creditoUsoComun, type BookEntry } from '../index.ts';

/**
 * The books (docs/certification.md, "Books"): amounts computed by hand here (IVA 19 %, half up),
 * each built book judged by scripts/check-sii-xml.ts (schema, signature in place, line limit).
 */
const header = testBookHeader();
const text = (b: Buffer) => b.toString('latin1');
const check = (name: string, xml: Buffer) => {
  const r = runCheckSiiXml([{ name, bytes: xml }]);
  expect(r.failures, r.output).toEqual([]);
  expect(
    r.lines.some((l) => /ok +.*book signature/.test(l)),
    r.output,
  ).toBe(true);
};
const tag = (xml: string, name: string) => [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1]);

describe('sales book (VENTA)', () => {
  const rut = '77777777-7';
  const fecha = '2026-11-28';
  // Factura: neto 100,000 → IVA 19,000, total 119,000. Exenta: 50,000. Credit note on the
  // factura: neto 10,000 → IVA 1,900, total 11,900. Debit note on the note: neto 10,000 too.
  const entries: BookEntry[] = [
    { tipoDoc: 33, folio: 1, fecha, rut, exento: 0, neto: 100_000, iva: 19_000, total: 119_000 },
    { tipoDoc: 33, folio: 2, fecha, rut, exento: 3_000, neto: 1_001, iva: 190, total: 4_191 },
    { tipoDoc: 34, folio: 1, fecha, rut, exento: 50_000, neto: 0, iva: 0, total: 50_000 },
    { tipoDoc: 61, folio: 1, fecha, rut, exento: 0, neto: 10_000, iva: 1_900, total: 11_900, referencia: { tipoDoc: 33, folio: 1 } },
    { tipoDoc: 56, folio: 1, fecha, rut, exento: 0, neto: 10_000, iva: 1_900, referencia: { tipoDoc: 61, folio: 1 } },
  ];
  const book = buildLibroCompraVenta({ ...header, operacion: 'VENTA', entries });

  it('sums each type: two facturas, one exenta, one credit note, one debit note', () => {
    expect(book.totals.map((t) => [t.tipoDoc, t.documentos, t.exento, t.neto, t.iva, t.total])).toEqual([
      [33, 2, 3_000, 101_001, 19_190, 123_191],
      [34, 1, 50_000, 0, 0, 50_000],
      [56, 1, 0, 10_000, 1_900, 11_900],
      [61, 1, 0, 10_000, 1_900, 11_900],
    ]);
    const xml = text(book.xml);
    expect(tag(xml, 'TipoOperacion')).toEqual(['VENTA']);
    expect(tag(xml, 'TipoLibro')).toEqual(['ESPECIAL']);
    expect(tag(xml, 'TipoEnvio')).toEqual(['TOTAL']);
    expect(tag(xml, 'FolioNotificacion')).toEqual(['4244619']);
    expect(tag(xml, 'FolioDocRef')).toEqual(['1', '1']);
  });

  it('passes the checker, one element per line', () => {
    expectOneElementPerLine(book.xml);
    expect(longestLine(book.xml)).toBeLessThanOrEqual(MAX_XML_LINE);
    check('libro-ventas.xml', book.xml);
  });

  it('refuses a total that is not the sum, and an empty book', () => {
    expect(() => buildLibroCompraVenta({ ...header, operacion: 'VENTA', entries: [{ ...entries[0]!, total: 119_001 }] })).toThrow(
      expect.objectContaining({ code: 'book_amount_mismatch' }),
    );
    expect(() => buildLibroCompraVenta({ ...header, operacion: 'VENTA', entries: [] })).toThrow(
      expect.objectContaining({ code: 'required_field' }),
    );
    // IECV validation 35: a sales book holds the documents of its month only.
    expect(() => buildLibroCompraVenta({ ...header, operacion: 'VENTA', entries: [{ ...entries[0]!, fecha: '2026-10-31' }] })).toThrow(
      expect.objectContaining({ code: 'book_period_mismatch', param: 'entries[0].fecha' }),
    );
  });

  it('a tampered book fails the signature check', () => {
    const bad = Buffer.from(text(book.xml).replace('<MntNeto>100000</MntNeto>', '<MntNeto>100001</MntNeto>'), 'latin1');
    const r = runCheckSiiXml([{ name: 'bad.xml', bytes: bad }]);
    expect(
      r.failures.some((l) => /signature/.test(l)),
      r.output,
    ).toBe(true);
  });
});

describe('purchase book (COMPRA)', () => {
  it('IVA de uso común credited by the factor, gifts as IVA no recuperable, a factura de compra withheld', () => {
    const fecha = '2026-11-10';
    const rut = '77777777-7';
    const book = buildLibroCompraVenta({
      ...header,
      operacion: 'COMPRA',
      factorProporcionalidad: 0.6,
      entries: [
        // neto 29,783 → IVA 5,658.77 → 5,659, all of it uso común.
        {
          tipoDoc: 30,
          folio: 781,
          fecha,
          rut,
          razonSocial: 'Proveedor Ltda',
          exento: 0,
          neto: 29_783,
          iva: 5_659,
          ivaTreatment: { kind: 'uso_comun' },
        },
        // neto 10,011 → IVA 1,902.09 → 1,902, not recoverable (code 4, gifts).
        { tipoDoc: 33, folio: 67, fecha, rut, exento: 0, neto: 10_011, iva: 1_902, ivaTreatment: { kind: 'no_recuperable', codigo: 4 } },
        // neto 9,567 → IVA 1,817.73 → 1,818 withheld in full: total 9,567.
        { tipoDoc: 46, folio: 9, fecha, rut, exento: 0, neto: 9_567, iva: 1_818, ivaRetenidoTotal: 1_818 },
      ],
    });
    const xml = text(book.xml);
    // The detail: MntIVA 0 for uso común and gifts (casos especiales I.1, I.2).
    expect(tag(xml, 'MntIVA')).toEqual(['0', '0', '1818']);
    expect(tag(xml, 'IVAUsoComun')).toEqual(['5659']);
    expect(tag(xml, 'MntIVANoRec')).toEqual(['1902']);
    expect(tag(xml, 'MntTotal')).toEqual(['35442', '11913', '9567']);
    // 0.6 × 5,659 = 3,395.4 → 3,395.
    expect(tag(xml, 'FctProp')).toEqual(['0.6']);
    expect(tag(xml, 'TotCredIVAUsoComun')).toEqual(['3395']);
    expect(tag(xml, 'CodImp')).toEqual(['15', '15']);
    check('libro-compras.xml', book.xml);
  });

  it("rounds the credit half up, as the manual's example (0.6 × 22,876 = 13,725.6 → 13,726)", () => {
    expect(creditoUsoComun(22_876, 0.6)).toBe(13_726);
    expect(creditoUsoComun(5_659, 0.6)).toBe(3_395);
  });

  it('uso común without a factor is refused', () => {
    expect(() =>
      buildLibroCompraVenta({
        ...header,
        operacion: 'COMPRA',
        entries: [
          {
            tipoDoc: 30,
            folio: 1,
            fecha: '2026-11-01',
            rut: '77777777-7',
            exento: 0,
            neto: 100,
            iva: 19,
            ivaTreatment: { kind: 'uso_comun' },
          },
        ],
      }),
    ).toThrow(expect.objectContaining({ code: 'required_field', param: 'factorProporcionalidad' }));
  });
});

describe('guía book', () => {
  it('an invoiced guía with its factura, a cancelled one, an internal transfer', () => {
    const fecha = '2026-11-28';
    const book = buildLibroGuia({
      ...header,
      folioNotificacion: 4244622,
      entries: [
        { folio: 1, tpoOper: 5, fecha, rut: '76192083-9', razonSocial: 'Nosotros SpA' },
        // 60 × 1,797 + 103 × 908 = 107,820 + 93,524 = 201,344; IVA 38,255.36 → 38,255; total 239,599.
        {
          folio: 2,
          tpoOper: 1,
          fecha,
          rut: '77777777-7',
          neto: 201_344,
          iva: 38_255,
          total: 239_599,
          factura: { tipoDoc: 33, folio: 12, fecha },
        },
        // 81 × 1,068 + 86 × 1,464 = 86,508 + 125,904 = 212,412; IVA 40,358.28 → 40,358; total 252,770.
        { folio: 3, tpoOper: 1, anulado: 'guia', fecha, rut: '77777777-7', neto: 212_412, iva: 40_358, total: 252_770 },
      ],
    });
    expect(book.totals).toEqual({
      foliosAnulados: 0,
      guiasAnuladas: 1,
      guiasVenta: 1,
      montoGuiasVenta: 239_599,
      traslados: [{ tpoTraslado: 5, cantidad: 1, monto: 0 }],
    });
    const xml = text(book.xml);
    expect(tag(xml, 'Anulado')).toEqual(['2']);
    expect(tag(xml, 'FolioDocRef')).toEqual(['12']);
    expectOneElementPerLine(book.xml);
    check('libro-guias.xml', book.xml);
  });
});
