import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildLibroCompraVenta, buildLibroGuia, libroCompraVentaTotals } from '../../../dte/index.ts';
import { caseOptions, issuedForCase } from '../../../../test/support/certification-documents.ts';
import { runCheckSiiXml } from '../../../../test/support/dte/check-sii-xml.ts';
import { createTestCertificate } from '../../../../test/support/dte/test-certificate.ts';
import { caseRequests } from '../set/case-request.ts';
import { parseSet } from '../set/set.parse.ts';
import { guideBookEntries } from './guide-book.ts';
import { purchaseBookInput } from './purchase-book.ts';
import { salesBookEntries } from './sales-book.ts';

/**
 * The set's books from the set (docs/certification.md, "Books"): the purchase book of sets 01 and
 * 02, and the sales and guía books of set 01 from documents the engine computes for its cases
 * (case-request.ts + prepareDte), each amount checked by hand and each book through the checker.
 */
const read = (n: string) =>
  parseSet(readFileSync(new URL(`../../../../test/fixtures/certification/SIISetDePruebas-${n}.txt`, import.meta.url)));
const cert = createTestCertificate();
const fecha = '2026-11-28';
const opts = caseOptions(fecha);
const header = (folioNotificacion: number) => ({
  rutEmisor: '76192083-9',
  periodo: '2026-11',
  fechaResolucion: '2014-08-22',
  numeroResolucion: 0,
  folioNotificacion,
  signer: cert.signer,
  now: new Date('2026-11-28T15:00:00Z'),
});
const check = (name: string, xml: Buffer) => {
  const r = runCheckSiiXml([{ name, bytes: xml }]);
  expect(r.failures, r.output).toEqual([]);
};
const summary = (totals: { tipoDoc: number; documentos: number; exento: number; neto: number; iva: number; total: number }[]) =>
  Object.fromEntries(totals.map((x) => [x.tipoDoc, [x.documentos, x.exento, x.neto, x.iva, x.total]]));

describe('purchase book from the set', () => {
  it('set 01: IVA 19 % half up, uso común credited at 0.6, the gift not recoverable, the factura de compra withheld', () => {
    const input = purchaseBookInput(read('01'), { fecha: '2026-11-10', proveedor: { rut: '77777777-7', razonSocial: 'Proveedor Ltda' } })!;
    expect(input.folioNotificacion).toBe(4244620);
    expect(input.factorProporcionalidad).toBe(0.6);
    expect(input.entries.map((e) => [e.tipoDoc, e.folio, e.ivaTreatment?.kind, e.ivaRetenidoTotal ?? 0])).toEqual([
      [30, 234, 'recuperable', 0],
      [33, 32, 'recuperable', 0],
      [30, 781, 'uso_comun', 0],
      [60, 451, 'recuperable', 0],
      [33, 67, 'no_recuperable', 0],
      [46, 9, 'recuperable', 1_818],
      [60, 211, 'recuperable', 0],
    ]);
    const book = buildLibroCompraVenta({ ...header(input.folioNotificacion), operacion: 'COMPRA', ...input });
    // 21,081 → 4,005.39 → 4,005; 29,783 → 5,658.77 → 5,659 (uso común); 6,494 → 1,233.86 → 1,234;
    // 10,011 → 1,902.09 → 1,902 (not recoverable); 9,567 → 1,817.73 → 1,818; 2,717 → 516.23 → 516; 4,434 → 842.46 → 842.
    expect(summary(book.totals)).toEqual({
      30: [2, 0, 50_864, 4_005, 21_081 + 4_005 + 29_783 + 5_659],
      33: [2, 8_832, 16_505, 1_234, 8_832 + 6_494 + 1_234 + 10_011 + 1_902],
      46: [1, 0, 9_567, 1_818, 9_567],
      60: [2, 0, 7_151, 1_358, 7_151 + 1_358],
    });
    expect(book.totals.find((t) => t.tipoDoc === 30)!.ivaUsoComun).toEqual({ operaciones: 1, monto: 5_659, factor: 0.6, credito: 3_395 });
    check('compras-01.xml', book.xml);
  });

  it('set 02: the same list with other amounts (0.6 × 5,643 = 3,385.8 → 3,386)', () => {
    const input = purchaseBookInput(read('02'), { fecha: '2026-11-10', proveedor: { rut: '77777777-7', razonSocial: 'Proveedor Ltda' } })!;
    expect(input.folioNotificacion).toBe(4267219);
    const { totals } = libroCompraVentaTotals({ operacion: 'COMPRA', ...input });
    // 14,254 → 2,708.26 → 2,708; 29,700 → 5,643; 5,437 → 1,033.03 → 1,033; 9,561 → 1,816.59 → 1,817;
    // 9,342 → 1,774.98 → 1,775; 2,673 → 507.87 → 508; 3,454 → 656.26 → 656.
    expect(summary(totals)).toEqual({
      30: [2, 0, 43_954, 2_708, 14_254 + 2_708 + 29_700 + 5_643],
      33: [2, 8_450, 14_998, 1_033, 8_450 + 5_437 + 1_033 + 9_561 + 1_817],
      46: [1, 0, 9_342, 1_775, 9_342],
      60: [2, 0, 6_127, 1_164, 6_127 + 1_164],
    });
    expect(totals.find((t) => t.tipoDoc === 30)!.ivaUsoComun!.credito).toBe(3_386);
    const book = buildLibroCompraVenta({ ...header(input.folioNotificacion), operacion: 'COMPRA', ...input });
    check('compras-02.xml', book.xml);
  });
});

describe('sales and guía books of set 01 from the documents of its cases', () => {
  const set = read('01');
  const reqs = caseRequests(set, opts);
  const basico = reqs.filter((r) => r.caseId.startsWith('4244618-'));

  it('sales: four facturas, three credit notes, one debit note, as the engine computed them', () => {
    const entries = salesBookEntries(basico.map((r) => issuedForCase(r)));
    const book = buildLibroCompraVenta({ ...header(4244619), operacion: 'VENTA', entries });
    // Facturas (case-request.test.ts by hand): 427,452 + 81,216; 2,018,250 + 383,468;
    // case 3: 32 × 3,767 + 179 × 3,251 = 702,473, IVA 133,469.87 → 133,470, exempt 34,908;
    // case 4: 794,147 + 150,888, exempt 13,580.
    // Credit notes: 5 corrects a text (0); 6 returns 153 × 3,293 − 6 % (473,599) and 236 × 2,352 − 11 %
    // (494,014) = 967,613, IVA 183,846.47 → 183,846; 7 cancels case 3 (its amounts). Debit note 8 cancels note 5: 0.
    expect(summary(book.totals)).toEqual({
      33: [4, 48_488, 3_942_322, 749_042, 4_739_852],
      56: [1, 0, 0, 0, 0],
      61: [3, 34_908, 1_670_086, 317_316, 2_022_310],
    });
    expect(book.xml.toString('latin1')).toContain('<TpoDocRef>33</TpoDocRef>\n<FolioDocRef>2</FolioDocRef>');
    check('ventas-01.xml', book.xml);
  });

  it('guías: the invoiced one names its factura, the cancelled one is Anulado 2, the internal move is a transfer', () => {
    const guias = reqs.filter((r) => r.caseId.startsWith('4244621-')).map((r) => ({ caseId: r.caseId, dte: issuedForCase(r) }));
    const instructions = set.sections.find((s) => s.kind === 'libro_guias')!.guideBook!.instructions;
    const entries = guideBookEntries(guias, instructions, { tipoDoc: 33, folio: 12, fecha });
    const book = buildLibroGuia({ ...header(4244622), entries });
    // Case 2: 60 × 1,797 + 103 × 908 = 201,344; IVA 38,255.36 → 38,255; total 239,599.
    expect(book.totals).toEqual({
      foliosAnulados: 0,
      guiasAnuladas: 1,
      guiasVenta: 1,
      montoGuiasVenta: 239_599,
      traslados: [{ tpoTraslado: 5, cantidad: 1, monto: 0 }],
    });
    const xml = book.xml.toString('latin1');
    expect(xml).toContain('<Folio>3</Folio>\n<Anulado>2</Anulado>');
    expect(xml).toContain('<TpoDocRef>33</TpoDocRef>\n<FolioDocRef>12</FolioDocRef>');
    check('guias-01.xml', book.xml);
  });
});
