import { describe, expect, it } from 'vitest';
import { codes, dte } from './dte.test-support.ts';
import { annulmentFinding, referenceFindings } from './references.ts';

const RECEIVED = '2026-03-02';
const anula = { TpoDocRef: 33, FolioRef: 7, FchRef: '2026-03-01', CodRef: 1, RazonRef: 'Anula factura' };
const note = (
  referencias: Record<string, string | number | undefined>[],
  tipo = 61,
  totales: Record<string, number> = { MntTotal: 1190 },
) => dte({ tipo, referencias, totales, detalle: [{ NmbItem: 'X', QtyItem: 1, PrcItem: 1000, MontoItem: 1000 }] });

describe('reference rules (level 3)', () => {
  it('accept a note that annuls one factura, also beside a non-tax reference', () => {
    expect(referenceFindings(note([anula]), 61, RECEIVED)).toEqual([]);
    expect(
      referenceFindings(
        note(
          [
            { TpoDocRef: 813, FolioRef: 'E12345', FchRef: '2026-02-01' },
            { ...anula, TpoDocRef: 110 },
          ],
          112,
        ),
        112,
        RECEIVED,
      ),
    ).toEqual([]);
  });

  it.each([56, 61, 111, 112])('REF-3-415: note %i without a reference to a tax document', (tipo) => {
    expect(codes(referenceFindings(note([], tipo), tipo, RECEIVED))).toEqual(['REF-3-415']);
    expect(codes(referenceFindings(note([{ TpoDocRef: 801, FolioRef: 'OC-1', FchRef: '2026-03-01' }], tipo), tipo, RECEIVED))).toEqual([
      'REF-3-415',
    ]);
  });

  it('does not require references of other documents', () => {
    expect(referenceFindings(dte({ tipo: 33 }), 33, RECEIVED)).toEqual([]);
  });

  it('REF-3-758: a note referencing a tax document without CodRef', () => {
    const f = referenceFindings(note([{ ...anula, CodRef: undefined }]), 61, RECEIVED);
    expect(f).toEqual([expect.objectContaining({ codigo: 'REF-3-758', detalle: 'referencia 1: TpoDocRef 33 folio 7' })]);
  });

  it('REF-3-759: two references that annul, or one that annuls beside another tax document', () => {
    expect(codes(referenceFindings(note([anula, { ...anula, FolioRef: 8 }]), 61, RECEIVED))).toEqual(['REF-3-759']);
    expect(codes(referenceFindings(note([anula, { ...anula, TpoDocRef: 52, CodRef: 3 }]), 61, RECEIVED))).toEqual(['REF-3-759']);
    // Corrections of amounts may reference several documents.
    expect(
      referenceFindings(
        note([
          { ...anula, CodRef: 3 },
          { ...anula, FolioRef: 8, CodRef: 3 },
        ]),
        61,
        RECEIVED,
      ),
    ).toEqual([]);
  });

  it('REF-3-761: a note that corrects text carries zero amounts', () => {
    const corrige = { ...anula, CodRef: 2, RazonRef: 'Corrige giro' };
    const zero = dte({
      tipo: 61,
      referencias: [corrige],
      totales: { MntNeto: 0, TasaIVA: 19, IVA: 0, MntTotal: 0 },
      detalle: [{ NmbItem: 'Corrige giro', QtyItem: 1, MontoItem: 0 }],
    });
    expect(referenceFindings(zero, 61, RECEIVED)).toEqual([]);
    expect(referenceFindings(note([corrige]), 61, RECEIVED)).toEqual([
      expect.objectContaining({ codigo: 'REF-3-761', detalle: 'MntTotal 1190, 1 línea(s) con monto' }),
    ]);
  });

  it('REF-3-762: a FchRef after the document or after its reception, on any document', () => {
    expect(referenceFindings(note([{ ...anula, FchRef: '2026-03-03' }]), 61, RECEIVED)).toEqual([
      expect.objectContaining({ codigo: 'REF-3-762', detalle: 'referencia 1: FchRef 2026-03-03 posterior a FchEmis 2026-03-02' }),
    ]);
    expect(codes(referenceFindings(note([{ ...anula, FchRef: '2026-03-02' }]), 61, '2026-03-01'))).toEqual(['REF-3-762']);
    expect(
      codes(referenceFindings(dte({ tipo: 33, referencias: [{ TpoDocRef: 801, FolioRef: 'OC', FchRef: '2026-04-01' }] }), 33, RECEIVED)),
    ).toEqual(['REF-3-762']);
    expect(referenceFindings(note([{ ...anula, FchRef: '2026-03-02' }]), 61, RECEIVED)).toEqual([]);
  });
});

describe('REF-2-780 (a reparo)', () => {
  it('an annulment whose MntTotal differs from the referenced document as received', () => {
    expect(annulmentFinding(37485, 37485, { tipoDte: 33, folio: 7 })).toBeNull();
    expect(annulmentFinding(37484, 37485, { tipoDte: 33, folio: 7 })).toEqual({
      codigo: 'REF-2-780',
      descripcion: 'Anulación presenta diff. de monto con doc. referenciado',
      detalle: 'MntTotal 37484, tipo 33 folio 7 recibido con 37485',
    });
    expect(annulmentFinding(null, 37485, { tipoDte: 33, folio: 7 })).toBeNull();
  });
});
