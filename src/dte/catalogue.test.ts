import { describe, expect, it } from 'vitest';
import {
  accionesFor,
  cafExpires,
  cedibleMarkOf,
  creditNoteFor,
  debitNoteFor,
  DOCUMENT_TYPES,
  envelopeKindFor,
  familyCodes,
  isAfectoIva,
  isBoleta,
  isCedible,
  isReceivable,
  lookupType,
  printedName,
  SUPPORTED_TIPOS_DTE,
  typesWhere,
} from './catalogue.ts';
import { strategyFor } from './strategies/index.ts';

// The facts as the project stated them before the catalogue (docs/folios.md, docs/received.md,
// docs/dte.md), written out here so that an edit of an entry that changes one is seen.
describe('the catalogue of document types', () => {
  it('lists the twelve types in code order, each once', () => {
    expect(SUPPORTED_TIPOS_DTE).toEqual([33, 34, 39, 41, 43, 46, 52, 56, 61, 110, 111, 112]);
    expect(new Set(DOCUMENT_TYPES.map((t) => t.codigo)).size).toBe(12);
  });

  it('keeps the facts the service used to list by number', () => {
    expect(typesWhere((t) => t.cafExpires)).toEqual([33, 43, 46, 56, 61]);
    expect(typesWhere((t) => t.cedible !== null)).toEqual([33, 34, 43, 46, 52]);
    expect(typesWhere((t) => t.receivable)).toEqual([33, 34, 46, 52, 56, 61]);
    expect(typesWhere((t) => t.acciones.length > 0)).toEqual([33, 34]);
    expect(typesWhere((t) => t.exchanged)).toEqual([33, 34, 43, 46, 52, 56, 61, 110, 111, 112]);
    expect(typesWhere((t) => t.creditedBy === 61)).toEqual([33, 34, 39, 41, 56]);
    expect(typesWhere((t) => t.debitedBy === 56)).toEqual([33, 34, 39, 41, 61]);
    expect(typesWhere((t) => t.creditedBy === 112)).toEqual([110, 111]);
    expect(typesWhere((t) => t.debitedBy === 111)).toEqual([110, 112]);
    expect(typesWhere((t) => t.debitedBy === null)).toEqual([43, 46, 52, 56, 111]);
    expect(typesWhere((t) => t.tax.includes('venta'))).toEqual([33, 56, 61]);
    expect(typesWhere((t) => t.tax.includes('compra'))).toEqual([46, 56, 61]);
    expect(typesWhere((t) => t.requiresReferencias)).toEqual([56, 61, 111, 112]);
    expect(typesWhere((t) => t.grossPrices)).toEqual([33, 34, 46, 52, 56, 61]);
    expect(typesWhere((t) => !t.afectoIva)).toEqual([34, 41]);
    expect(familyCodes('exportacion')).toBe('110, 111, 112');
    expect(familyCodes('boleta')).toBe('39, 41');
  });

  it('has only notes credit or debit a type', () => {
    for (const t of DOCUMENT_TYPES)
      for (const note of [t.creditedBy, t.debitedBy])
        if (note !== null) expect(lookupType(note)?.requiresReferencias, `${t.codigo}`).toBe(true);
  });

  it('answers the named questions for foreign and unknown codes too', () => {
    expect([isBoleta(39), isBoleta(33), isBoleta(35)]).toEqual([true, false, false]);
    expect([envelopeKindFor(41), envelopeKindFor(33), envelopeKindFor(999)]).toEqual(['EnvioBOLETA', 'EnvioDTE', 'EnvioDTE']);
    expect([isCedible(52), isCedible(61), isCedible(30)]).toEqual([true, false, false]);
    expect([cedibleMarkOf(52), cedibleMarkOf(33)]).toEqual(['CEDIBLE CON SU FACTURA', 'CEDIBLE']);
    expect([cafExpires(33), cafExpires(39), cafExpires(30)]).toEqual([true, false, false]);
    expect([isReceivable(46), isReceivable(110), isReceivable(30)]).toEqual([true, false, false]);
    expect([accionesFor(33), accionesFor(52)]).toEqual([['ACD', 'RCD', 'ERM', 'RFP', 'RFT'], []]);
    expect([creditNoteFor(110), creditNoteFor(61), creditNoteFor(30)]).toEqual([112, null, null]);
    expect([debitNoteFor(61), debitNoteFor(112), debitNoteFor(52), debitNoteFor(60)]).toEqual([56, 111, null, null]);
    expect([isAfectoIva(41), isAfectoIva(39), isAfectoIva(30)]).toEqual([false, true, true]);
    expect([printedName(52), printedName(30)]).toEqual(['GUÍA DE DESPACHO ELECTRÓNICA', 'DOCUMENTO TRIBUTARIO ELECTRÓNICO 30']);
    expect(lookupType(30)).toBeUndefined();
  });

  it("names each type as the SII's test sets do", () => {
    expect(DOCUMENT_TYPES.map((t) => t.names.siiSet)).toEqual([
      'FACTURA ELECTRONICA',
      'FACTURA NO AFECTA O EXENTA ELECTRONICA',
      'BOLETA ELECTRONICA',
      'BOLETA NO AFECTA O EXENTA ELECTRONICA',
      'LIQUIDACION FACTURA ELECTRONICA',
      'FACTURA DE COMPRA ELECTRONICA',
      'GUIA DE DESPACHO',
      'NOTA DE DEBITO ELECTRONICA',
      'NOTA DE CREDITO ELECTRONICA',
      'FACTURA DE EXPORTACION ELECTRONICA',
      'NOTA DE DEBITO DE EXPORTACION ELECTRONICA',
      'NOTA DE CREDITO DE EXPORTACION ELECTRONICA',
    ]);
  });

  it('gives every type a strategy, with its root from the catalogue', () => {
    for (const t of DOCUMENT_TYPES) {
      const s = strategyFor(t.codigo);
      expect(typeof s.idDoc, String(t.codigo)).toBe('function');
      expect(s.root).toBe(t.root);
    }
    expect(typesWhere((t) => t.root === 'Liquidacion')).toEqual([43]);
    expect(typesWhere((t) => t.root === 'Exportaciones')).toEqual([110, 111, 112]);
  });
});
