import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SetParseError } from './set.errors.ts';
import { parseSet } from './set.parse.ts';
import type { SetCase, SetItem } from './set.types.ts';

/**
 * The two real sets the SII issued (test/fixtures/certification, ISO-8859-1 with tabs; the second
 * mixes CRLF and LF). Every expectation below was written by hand from the files.
 */
const set01 = readFileSync(new URL('../../../../test/fixtures/certification/SIISetDePruebas-01.txt', import.meta.url));
const set02 = readFileSync(new URL('../../../../test/fixtures/certification/SIISetDePruebas-02.txt', import.meta.url));

const item = (line: number, name: string, o: Partial<SetItem> = {}): SetItem => ({
  line,
  name,
  exento: false,
  cantidad: null,
  unidad: null,
  precioUnitario: null,
  montoLinea: null,
  descuentoPct: null,
  recargoPct: null,
  ...o,
});
const caseOf = (cases: SetCase[], id: string) => {
  const c = cases.find((x) => x.id === id);
  if (!c) throw new Error(`no case ${id}`);
  return c;
};
function fails(text: string | Buffer): SetParseError {
  try {
    parseSet(text);
  } catch (e) {
    if (e instanceof SetParseError) return e;
    throw e;
  }
  throw new Error('parsed');
}

describe('set 01 (LF, ISO-8859-1): every case', () => {
  const { sections, cases } = parseSet(set01);

  it('has its six sections with their attention numbers, in order', () => {
    expect(sections.map((s) => [s.kind, s.attentionNumber, s.line, s.caseIds.length])).toEqual([
      ['basico', '4244618', 10, 8],
      ['libro_ventas', '4244619', 86, 0],
      ['libro_compras', '4244620', 93, 0],
      ['guias', '4244621', 134, 3],
      ['libro_guias', '4244622', 170, 0],
      ['exenta', '4244623', 178, 8],
    ]);
    expect(sections[3]!.title).toBe('SET GUIA DE DESPACHO - NUMERO DE ATENCIÓN: 4244621');
    expect(cases).toHaveLength(19);
  });

  it('básico 1–4: invoices with their lines, AFECTO/EXENTO names, line and global discounts', () => {
    const c1 = caseOf(cases, '4244618-1');
    expect([c1.documentType, c1.line, c1.reference]).toEqual([{ name: 'FACTURA ELECTRONICA', code: 33 }, 15, null]);
    expect(c1.items).toEqual([
      item(20, 'Cajón AFECTO', { cantidad: 139, precioUnitario: 1812 }),
      item(21, 'Relleno AFECTO', { cantidad: 59, precioUnitario: 2976 }),
    ]);
    expect(caseOf(cases, '4244618-2').items).toEqual([
      item(29, 'Pañuelo AFECTO', { cantidad: 416, precioUnitario: 3293, descuentoPct: 6 }),
      item(30, 'ITEM 2 AFECTO', { cantidad: 349, precioUnitario: 2352, descuentoPct: 11 }),
    ]);
    expect(caseOf(cases, '4244618-3').items).toEqual([
      item(38, 'Pintura B&W AFECTO', { cantidad: 32, precioUnitario: 3767 }),
      item(39, 'ITEM 2 AFECTO', { cantidad: 179, precioUnitario: 3251 }),
      item(40, 'ITEM 3 SERVICIO EXENTO', { exento: true, cantidad: 1, precioUnitario: 34908 }),
    ]);
    const c4 = caseOf(cases, '4244618-4');
    expect(c4.items).toEqual([
      item(48, 'ITEM 1 AFECTO', { cantidad: 196, precioUnitario: 3142 }),
      item(49, 'ITEM 2 AFECTO', { cantidad: 84, precioUnitario: 3412 }),
      item(50, 'ITEM 3 SERVICIO EXENTO', { exento: true, cantidad: 2, precioUnitario: 6790 }),
    ]);
    expect(c4.globalAdjustments).toEqual([
      { line: 52, tipo: 'descuento', valor: 12, unidad: '%', exento: false, text: 'DESCUENTO GLOBAL ITEMES AFECTOS\t\t     12%' },
    ]);
  });

  it('básico 5–8: notes referencing other cases, double space in the name collapsed, with their reasons', () => {
    const ref = (id: string) => caseOf(cases, id).reference;
    expect(caseOf(cases, '4244618-5').documentType).toEqual({ name: 'NOTA DE CREDITO ELECTRONICA', code: 61 });
    expect(ref('4244618-5')).toEqual({
      line: 58,
      documentName: 'FACTURA ELECTRONICA',
      caseId: '4244618-1',
      tipoDte: 33,
      reason: 'CORRIGE GIRO DEL RECEPTOR',
    });
    expect(ref('4244618-6')).toEqual({
      line: 65,
      documentName: 'FACTURA ELECTRONICA',
      caseId: '4244618-2',
      tipoDte: 33,
      reason: 'DEVOLUCION DE MERCADERIAS',
    });
    expect(caseOf(cases, '4244618-6').items).toEqual([
      item(69, 'Pañuelo AFECTO', { cantidad: 153 }),
      item(70, 'ITEM 2 AFECTO', { cantidad: 236 }),
    ]);
    expect(ref('4244618-7')).toMatchObject({ caseId: '4244618-3', tipoDte: 33, reason: 'ANULA FACTURA' });
    expect(caseOf(cases, '4244618-7').items).toEqual([]);
    expect(caseOf(cases, '4244618-8').documentType).toEqual({ name: 'NOTA DE DEBITO ELECTRONICA', code: 56 });
    expect(ref('4244618-8')).toEqual({
      line: 83,
      documentName: 'NOTA DE CREDITO ELECTRONICA',
      caseId: '4244618-5',
      tipoDte: 61,
      reason: 'ANULA NOTA DE CREDITO ELECTRONICA',
    });
  });

  it('the purchase book: seven entries, exempt and taxed amounts by column, the 0.60 factor', () => {
    const book = sections[2]!.purchaseBook!;
    expect(book.entries.map((e) => [e.line, e.documentType.code, e.folio, e.observation, e.montoExento, e.montoAfecto])).toEqual([
      [100, 30, 234, 'FACTURA DEL GIRO CON DERECHO A CREDITO', null, 21081],
      [104, 33, 32, 'FACTURA DEL GIRO CON DERECHO A CREDITO', 8832, 6494],
      [108, 30, 781, 'FACTURA CON IVA USO COMUN', null, 29783],
      [112, 60, 451, 'NOTA DE CREDITO POR DESCUENTO A FACTURA 234', null, 2717],
      [116, 33, 67, 'ENTREGA GRATUITA DEL PROVEEDOR', null, 10011],
      [120, 46, 9, 'COMPRA CON RETENCION TOTAL DEL IVA', null, 9567],
      [124, 60, 211, 'NOTA DE CREDITO POR DESCUENTO FACTURA ELECTRONICA 32', null, 4434],
    ]);
    expect(book.entries[1]!.documentType.name).toBe('FACTURA ELECTRONICA');
    expect(book.factorProporcionalidadIva).toBe(0.6);
    expect(book.observations).toEqual([
      'OBSERVACIONES GENERALES',
      'EN FACTURA CON IVA USO COMUN CONSIDERE QUE EL FACTOR DE PROPORCIONALIDAD',
      'DEL IVA ES DE 0.60',
    ]);
  });

  it('guías: the reason for the move and who carries, priceless lines in case 1', () => {
    const [g1, g2, g3] = ['4244621-1', '4244621-2', '4244621-3'].map((id) => caseOf(cases, id));
    expect(g1!.documentType).toEqual({ name: 'GUIA DE DESPACHO', code: 52 });
    expect(g1!.traslado).toEqual({
      motivo: 'TRASLADO DE MATERIALES ENTRE BODEGAS DE LA EMPRESA',
      indTraslado: 5,
      por: null,
      tipoDespacho: null,
    });
    expect(g1!.items).toEqual([
      item(144, 'ITEM 1', { cantidad: 54 }),
      item(145, 'ITEM 2', { cantidad: 52 }),
      item(146, 'ITEM 3', { cantidad: 20 }),
    ]);
    expect(g2!.traslado).toEqual({ motivo: 'VENTA', indTraslado: 1, por: 'EMISOR DEL DOCUMENTO AL LOCAL DEL CLIENTE', tipoDespacho: 2 });
    expect(g2!.items).toEqual([
      item(156, 'ITEM 1', { cantidad: 60, precioUnitario: 1797 }),
      item(157, 'ITEM 2', { cantidad: 103, precioUnitario: 908 }),
    ]);
    expect(g3!.traslado).toEqual({ motivo: 'VENTA', indTraslado: 1, por: 'CLIENTE', tipoDespacho: 1 });
    expect(g3!.items.map((i) => [i.cantidad, i.precioUnitario])).toEqual([
      [81, 1068],
      [86, 1464],
    ]);
  });

  it("the guía book: case 2 invoiced, case 3 cancelled, named as the guías section's cases", () => {
    expect(sections[4]!.guideBook).toEqual({
      instructions: [
        { line: 175, caseId: '4244621-2', status: 'facturada', text: '- EL CASO 2 CORRESPONDE A UNA GUIA QUE SE FACTURO EN EL PERIODO' },
        { line: 176, caseId: '4244621-3', status: 'anulada', text: '- EL CASO 3 CORRESPONDE A UNA GUIA ANULADA' },
      ],
    });
    expect(sections[1]!.notes[0]).toBe('CONSTRUYA EL LIBRO DE VENTAS CON LOS DOCUMENTOS CON QUE GENERO');
  });

  it('factura exenta: units, VALOR UNITARIO, notes without quantity, the Ñ of CIGÜEÑALES', () => {
    const e = (id: string) => caseOf(cases, `4244623-${id}`);
    expect(e('1').documentType).toEqual({ name: 'FACTURA NO AFECTA O EXENTA ELECTRONICA', code: 34 });
    expect(e('1').items).toEqual([item(184, 'HORAS PROGRAMADOR', { cantidad: 9, unidad: 'Hora', precioUnitario: 5590 })]);
    expect(e('2').reference).toMatchObject({ caseId: '4244623-1', tipoDte: 34, reason: 'MODIFICA MONTO' });
    expect(e('2').items).toEqual([item(191, 'HORAS PROGRAMADOR', { precioUnitario: 699 })]);
    expect(e('3').items).toEqual([
      item(196, 'SERV CONSULTORIA FACT ELECTRONICA', { cantidad: 1, precioUnitario: 303264 }),
      item(197, 'SERV CONSULTORIA GUIA DESPACHO ELECT', { cantidad: 1, precioUnitario: 241174 }),
    ]);
    expect(e('4').reference).toMatchObject({ caseId: '4244623-3', tipoDte: 34, reason: 'CORRIGE GIRO' });
    expect(e('5').reference).toMatchObject({ caseId: '4244623-4', tipoDte: 61, reason: 'ANULA NOTA DE CREDITO ELECTRONICA' });
    expect(e('6').items).toEqual([
      item(212, 'CAPACITACION USO CIGUEÑALES', { cantidad: 1, precioUnitario: 325922 }),
      item(213, "CAPACITACION USO PLC's CNC", { cantidad: 1, precioUnitario: 218101 }),
    ]);
    expect(e('7').items).toEqual([item(220, 'CAPACITACION USO CIGUEÑALES', { precioUnitario: 162961 })]);
    expect(e('8').documentType.code).toBe(56);
    expect(e('8').reference).toMatchObject({ caseId: '4244623-6', tipoDte: 34, reason: 'MODIFICA MONTO' });
    expect(e('8').items).toEqual([item(227, "CAPACITACION USO PLC's CNC", { precioUnitario: 43620 })]);
    expect(sections[5]!.notes[0]).toMatch(/^INDICACIÓN: No se debe señalar el monto IVA 19%/);
  });
});

describe('set 02 (CRLF and LF mixed): counts and a sample', () => {
  const { sections, cases } = parseSet(set02);

  it('has all ten sections and 32 cases', () => {
    expect(sections.map((s) => `${s.kind}:${s.attentionNumber}:${s.caseIds.length}`)).toEqual([
      'basico:4267217:8',
      'libro_ventas:4267218:0',
      'libro_compras:4267219:0',
      'guias:4267220:3',
      'libro_guias:4267221:0',
      'exenta:4267222:8',
      'exportacion_1:4267223:3',
      'exportacion_2:4267224:3',
      'liquidaciones:4267225:4',
      'factura_compra:4267226:3',
    ]);
    expect(cases).toHaveLength(32);
    expect(sections[2]!.purchaseBook!.entries.map((e) => e.montoAfecto)).toEqual([14254, 5437, 29700, 2673, 9561, 9342, 3454]);
  });

  it('export 1: the customs data translated with the Aduana tables', () => {
    const c = caseOf(cases, '4267223-1');
    expect(c.documentType).toEqual({ name: 'FACTURA DE EXPORTACION ELECTRONICA', code: 110 });
    expect(c.items).toEqual([item(236, 'CHATARRA DE ALUMINIO', { cantidad: 162, unidad: 'U', precioUnitario: 106 })]);
    expect(c.exportacion).toEqual({
      references: [{ name: 'MIC (MANIFIESTO INTERNACIONAL)', tipoDocRef: '810' }],
      moneda: { name: 'DOLAR USA', code: 13 },
      formaPago: { name: 'ACRED', code: 11 },
      modalidadVenta: { name: 'A FIRME', code: 1 },
      clausulaVenta: { name: 'FOB', code: 5 },
      totalClausulaVenta: 372.38,
      viaTransporte: { name: 'AEREO', code: 4 },
      puertoEmbarque: { name: 'ANTOFAGASTA', code: 903 },
      puertoDesembarque: { name: 'BREMEN', code: 591 },
      unidadTara: { name: 'U', code: 10 },
      unidadPesoBruto: { name: 'U', code: 10 },
      unidadPesoNeto: { name: 'U', code: 10 },
      tipoBulto: { name: 'CONTENEDOR REFRIGERADO', code: 76 },
      totalBultos: 16,
      flete: 23.11,
      seguro: 1.43,
      paisReceptor: { name: 'ALEMANIA', code: 563 },
      paisDestino: { name: 'ALEMANIA', code: 563 },
      nacionalidad: null,
    });
    const nc = caseOf(cases, '4267223-2');
    expect([nc.documentType.code, nc.reference?.caseId, nc.items[0]?.cantidad, nc.observations]).toEqual([
      112,
      '4267223-1',
      54,
      ['EL PRECIO UNITARIO DEL ITEM DEBE SER EL MISMO DE LA FACTURA'],
    ]);
    // "NOTA DE CREDITO CORRESPONDIENTE A CASO …-2": the type is the referenced case's, 112.
    expect(caseOf(cases, '4267223-3').reference).toMatchObject({
      documentName: 'NOTA DE CREDITO',
      tipoDte: 112,
      reason: 'ANULA NOTA DE CREDITO',
    });
  });

  it('export 2: line value, line surcharge and discount, global surcharge over the clause, nationality', () => {
    const c1 = caseOf(cases, '4267224-1');
    expect(c1.items).toEqual([item(287, 'ASESORIAS Y PROYECTOS PROFESIONALES', { montoLinea: 62, recargoPct: 10 })]);
    expect(c1.exportacion).toMatchObject({
      references: [{ name: 'RESOLUCION SNA', tipoDocRef: '812' }],
      moneda: { name: 'FRANCO SZ', code: 82 },
      formaPago: { name: 'ANTICIPO', code: 32 },
      clausulaVenta: { name: 'S/CL', code: 6 },
      viaTransporte: { name: 'FERROVIARIO', code: 6 },
      paisReceptor: { name: 'ITALIA', code: 504 },
    });
    const c2 = caseOf(cases, '4267224-2');
    expect(c2.items.map((i) => [i.name, i.cantidad, i.unidad, i.precioUnitario, i.descuentoPct])).toEqual([
      ['CAJAS CIRUELAS TIERNIZADAS SIN CAROZO CALIBRE 60/70', 718, 'KN', 162, 5],
      ['CAJAS DE PASAS DE UVA FLAME MORENA SIN SEMILLA MEDIANAS', 211, 'KN', 104, null],
    ]);
    expect(c2.globalAdjustments).toMatchObject([{ tipo: 'recargo', valor: 11, unidad: '%' }]);
    expect(c2.exportacion?.references.map((r) => r.tipoDocRef)).toEqual(['807', '809']);
    expect(c2.exportacion).toMatchObject({
      modalidadVenta: { code: 3 },
      unidadPesoBruto: { code: 17 },
      unidadPesoNeto: { code: 9 },
      tipoBulto: { code: 89 },
    });
    expect(caseOf(cases, '4267224-3').exportacion).toMatchObject({ moneda: { code: 13 }, nacionalidad: { name: 'ITALIA', code: 504 } });
  });

  it('liquidaciones: NETO/EXENTO lines with negative amounts, and commissions', () => {
    const c2 = caseOf(cases, '4267225-2');
    expect(c2.documentType).toEqual({ name: 'LIQUIDACION FACTURA ELECTRONICA', code: 43 });
    expect(c2.items.map((i) => [i.name, i.exento, i.cantidad, i.montoLinea])).toEqual([
      ['NETO FACTURA ELECTRÓNICA 4254', false, 1, 56736],
      ['EXENTO FACTURA ELECTRÓNICA 4254', true, 1, 26718],
      ['NETO FACTURA ELECTRÓNICA 4768', false, 1, 751958],
      ['EXENTO FACTURA ELECTRÓNICA 4768', true, 1, 439220],
      ['NETO NOTA DE CRÉDITO 328', false, 1, -59379],
      ['EXENTO NOTA DE CRÉDITO 328', true, 1, -19668],
      ['BOLETAS', false, 9976, 7521087],
    ]);
    expect(caseOf(cases, '4267225-4').charges.map((i) => [i.name, i.montoLinea])).toEqual([
      ['NETO COMISIÓN CONSIGNACION', 2583],
      ['NETO COMISIONES LIQUIDACIÓN FACTURA ELECTRÓNICA 4554', -8452],
    ]);
  });

  it('factura de compra: the invoice, its credit note for returned goods, the debit note', () => {
    expect(caseOf(cases, '4267226-1').items.map((i) => [i.name, i.cantidad, i.precioUnitario])).toEqual([
      ['Producto 1', 705, 5582],
      ['Producto 2', 31, 3029],
    ]);
    expect(caseOf(cases, '4267226-2').reference).toMatchObject({ tipoDte: 46, reason: 'DEVOLUCION DE MERCADERIA ITEMS 1 Y 2' });
    expect(caseOf(cases, '4267226-3').reference).toMatchObject({ caseId: '4267226-2', tipoDte: 61 });
  });

  it('reads the same from UTF-8 as from ISO-8859-1', () => {
    const utf8 = Buffer.from(new TextDecoder('latin1').decode(set02), 'utf8');
    expect(parseSet(utf8)).toEqual(parseSet(set02));
    expect(parseSet(set02, { charset: 'ISO-8859-1' })).toEqual(parseSet(set02));
  });
});

describe('what it cannot read: a typed error naming the line', () => {
  const head = 'SET BASICO - NUMERO DE ATENCION: 100\n\nCASO 100-1\n==========\n';
  it('an empty text', () => {
    expect(fails('')).toMatchObject({ reason: 'empty', line: 1 });
    expect(fails('\r\n  \n')).toMatchObject({ reason: 'empty' });
  });
  it('another format entirely', () => {
    expect(fails('\n<?xml version="1.0"?>\n<EnvioDTE/>')).toMatchObject({ reason: 'not_a_test_set', line: 2 });
    expect(fails('{"text": 1}').message).toMatch(/^Line 1: expected an SII test set/);
  });
  it('an unknown section', () => {
    expect(fails('intro\nSET BOLETAS DE HONORARIOS - NUMERO DE ATENCION: 7\n')).toMatchObject({ reason: 'unknown_section', line: 2 });
  });
  it('a case with no DOCUMENTO', () => {
    expect(fails(`${head}ITEM\t\tCANTIDAD\tPRECIO UNITARIO\nUno\t\t1\t\t10\n`)).toMatchObject({ reason: 'case_without_document', line: 3 });
  });
  it('a document type the SII does not issue', () => {
    expect(fails(`${head}DOCUMENTO\tFACTURA DE FANTASIA\n`)).toMatchObject({ reason: 'unknown_document_type', line: 5 });
  });
  it('a bad number', () => {
    const e = fails(`${head}DOCUMENTO\tFACTURA ELECTRONICA\n\nITEM\t\tCANTIDAD\tPRECIO UNITARIO\nUno\t\t1O\t\t10\n`);
    expect(e).toMatchObject({ reason: 'bad_number', line: 8, expected: 'CANTIDAD as a number' });
    expect(e.message).toBe("Line 8: expected CANTIDAD as a number, found '1O'.");
  });
  it('a row with more values than columns', () => {
    expect(fails(`${head}DOCUMENTO\tFACTURA ELECTRONICA\nITEM\t\tCANTIDAD\nUno\t\t1\t\t10\n`)).toMatchObject({
      reason: 'bad_item_row',
      line: 7,
    });
  });
  it('a reference to a case the set does not have', () => {
    const text = `${head}DOCUMENTO\tNOTA DE CREDITO ELECTRONICA\nREFERENCIA\t\tFACTURA ELECTRONICA CORRESPONDIENTE A CASO 100-9\nRAZON REFERENCIA\tANULA\n`;
    expect(fails(text)).toMatchObject({ reason: 'missing_case', line: 6 });
  });
  it('a case heading of another section', () => {
    expect(fails('SET BASICO - NUMERO DE ATENCION: 100\nCASO 200-1\n')).toMatchObject({ reason: 'bad_case_heading', line: 2 });
  });
  it('a customs name the Aduana tables do not have', () => {
    const text =
      'SET BASICO DOCUMENTOS DE EXPORTACION (1) - NUMERO DE ATENCION: 5\nCASO 5-1\nDOCUMENTO\tFACTURA DE EXPORTACION ELECTRONICA\n' +
      'PUERTO DE EMBARQUE:      ATLANTIDA\n';
    expect(fails(text)).toMatchObject({ reason: 'unknown_code', line: 4 });
  });
  it('a guía book naming a guía that does not exist', () => {
    const text = 'SET LIBRO DE GUIAS - NUMERO DE ATENCION: 9\n- EL CASO 4 CORRESPONDE A UNA GUIA ANULADA\n';
    expect(fails(text)).toMatchObject({ reason: 'missing_case', line: 2 });
  });
  it('a purchase list without its table', () => {
    expect(fails('SET LIBRO DE COMPRAS - NUMERO DE ATENCION: 3\nFACTURA 12\n')).toMatchObject({ reason: 'not_a_test_set', line: 2 });
  });
});
