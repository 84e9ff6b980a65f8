import { describe, expect, it } from 'vitest';
import { prepareDte, type DocumentInput } from './index.ts';
import { sampleDteInput } from '../../test/support/dte/fixtures.ts';

/**
 * A note's own reference (the one with codRef) may stand anywhere among its references: the SII's
 * test set puts `TpoDocRef SET` first (its instructions for the test set, I.6; docs/certification.md).
 * The note's other rules are unchanged wherever that reference stands.
 */
const SET = { tipoDocRef: 'SET', folioRef: 0, fechaRef: '2026-03-01', razonRef: 'CASO 4244618-6' };
const note = (referencias: DocumentInput['referencias'], over: Partial<DocumentInput> = {}) => {
  const { folio: _f, ...input } = sampleDteInput(61);
  return prepareDte({ ...input, referencias, ...over } as DocumentInput);
};
const ref = (codRef: 1 | 2 | 3, folioRef = 7) => ({ tipoDocRef: 33, folioRef, fechaRef: '2026-03-01', codRef, razonRef: 'Devolución' });

describe('note references: the codRef one need not be first', () => {
  it('SET first, then the note’s own reference: prepared, both kept in order', () => {
    const p = note([SET, ref(3)]);
    expect(p.stored.referencias.map((r) => [r.tipoDocRef, r.folioRef, r.codRef ?? null])).toEqual([
      ['SET', '0', null],
      ['33', '7', 3],
    ]);
  });

  it('the same rules wherever it stands: no codRef at all, two cancellations, a text correction with amounts', () => {
    expect(() => note([SET])).toThrow(expect.objectContaining({ code: 'required_field', param: 'referencias[0].codRef' }));
    // The error names the reference to the document, not the set's.
    expect(() => note([SET, { ...ref(3), codRef: undefined }])).toThrow(
      expect.objectContaining({ code: 'required_field', param: 'referencias[1].codRef' }),
    );
    expect(() => note([SET, ref(1, 7), ref(1, 8)])).toThrow(expect.objectContaining({ code: 'reference_multiple_cancellations' }));
    expect(() => note([SET, ref(2)])).toThrow(expect.objectContaining({ code: 'reference_text_correction_with_amounts' }));
    expect(() => note([SET, { ...ref(3), razonRef: undefined }])).toThrow(
      expect.objectContaining({ code: 'required_field', param: 'referencias[1].razonRef' }),
    );
  });
});
