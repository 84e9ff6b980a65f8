import { describe, expect, it } from 'vitest';
import { checkAmounts } from '../../../dte/index.ts';
import { canCredit, creditNoteBody, needsReceptor } from './credit-note.ts';
import type { DteRecord } from './issuing.ts';

const line = (nombre: string, cantidad: number, precioUnitario: number, montoItem: number, exento = false) => ({
  nombre,
  cantidad,
  precioUnitario,
  montoItem,
  exento,
  unidad: null,
  descripcion: null,
});

const doc = (over: Partial<DteRecord>): DteRecord =>
  ({
    id: '0b9d3c36-9a4e-4f43-8a2f-8f1d7e6b7c51',
    tipoDte: 33,
    folio: 42,
    status: 'accepted',
    fechaEmision: '2026-11-20',
    receptor: { rut: '77777777-7', razonSocial: 'Cliente Ltda.', giro: 'Comercio', direccion: 'Calle 1', comuna: 'Ñuñoa', ciudad: null },
    detalle: [line('Servicio', 10, 35000, 350000), line('Capacitación', 2, 45000, 90000, true)],
    referencias: [],
    montoBruto: false,
    indMontoNeto: false,
    descuentosGlobales: [],
    montoTotal: 506500,
    ...over,
  }) as unknown as DteRecord;

describe('credit note from a document', () => {
  it('cancels (codRef 1) with the same lines and the same total, referencing the document', () => {
    const body = creditNoteBody(doc({}), { codRef: 1, razonRef: 'Anula documento de referencia' });
    expect(body.tipoDte).toBe(61);
    expect(body.montoTotal).toBe(506500);
    expect(body.referencias).toEqual([
      { tipoDocRef: 33, folioRef: 42, fechaRef: '2026-11-20', codRef: 1, razonRef: 'Anula documento de referencia' },
    ]);
    expect(body.receptor).toEqual({
      rut: '77777777-7',
      razonSocial: 'Cliente Ltda.',
      giro: 'Comercio',
      direccion: 'Calle 1',
      comuna: 'Ñuñoa',
    });
    expect(body.detalle.map((l) => [l.nombre, l.montoItem, l.exento ?? false])).toEqual([
      ['Servicio', 350000, false],
      ['Capacitación', 90000, true],
    ]);
    // The engine's own check agrees with the amounts.
    expect(() => checkAmounts(61, body.detalle, body.montoTotal, {})).not.toThrow();
  });

  it('corrects amounts (codRef 3) with the chosen quantities and prices, skipping lines at 0', () => {
    const body = creditNoteBody(doc({}), {
      codRef: 3,
      razonRef: 'Descuento',
      lines: [
        { cantidad: 1, precioUnitario: 1000.5 },
        { cantidad: 0, precioUnitario: 45000 },
      ],
    });
    expect(body.detalle).toEqual([expect.objectContaining({ nombre: 'Servicio', cantidad: 1, precioUnitario: 1000.5, montoItem: 1001 })]);
    expect(body.montoTotal).toBe(1001 + 190); // IVA 19 % of 1 001, rounded half up
  });

  it('keeps a boleta’s gross prices (montoBruto) and every line of a 34 exempt', () => {
    const boleta = doc({
      tipoDte: 39,
      receptor: { rut: '66666666-6' } as DteRecord['receptor'],
      detalle: [line('Café', 2, 2490, 4980)],
      montoTotal: 4980,
    });
    expect(needsReceptor(boleta)).toBe(true);
    const body = creditNoteBody(boleta, { codRef: 1, razonRef: 'Anula', receptor: { rut: '11.111.111-1', razonSocial: 'Juana' } });
    expect([body.montoBruto, body.montoTotal, body.receptor]).toEqual([true, 4980, { rut: '11.111.111-1', razonSocial: 'Juana' }]);
    const exenta = creditNoteBody(doc({ tipoDte: 34, detalle: [line('Asesoría', 3, 25000, 75000)], montoTotal: 75000 }), {
      codRef: 1,
      razonRef: 'Anula',
    });
    expect([exenta.detalle[0]!.exento, exenta.montoTotal]).toEqual([true, 75000]);
    // A boleta to a RUT without a name needs one too.
    expect(needsReceptor(doc({ tipoDte: 39, receptor: { rut: '11111111-1', razonSocial: null } as DteRecord['receptor'] }))).toBe(true);
    expect(needsReceptor(doc({}))).toBe(false);
  });

  it('is offered only for accepted facturas, boletas and notas de débito', () => {
    expect(canCredit({ tipoDte: 33, status: 'accepted' })).toBe(true);
    expect(canCredit({ tipoDte: 39, status: 'accepted_with_objections' })).toBe(true);
    expect(canCredit({ tipoDte: 33, status: 'created' })).toBe(false);
    expect(canCredit({ tipoDte: 33, status: 'rejected' })).toBe(false);
    expect(canCredit({ tipoDte: 61, status: 'accepted' })).toBe(false);
    expect(canCredit({ tipoDte: 110, status: 'accepted' })).toBe(false);
  });
});
