import { describe, expect, it } from 'vitest';
import { referencedFirst, type Orderable } from './dte.envelope-order.ts';

const doc = (id: string, tipoDte: number, folio: number, refs: [string, string, string?][] = []): Orderable => ({
  id,
  tipoDte,
  folio,
  referencias: refs.map(([tipoDocRef, folioRef, rutOtro]) => ({ tipoDocRef, folioRef, rutOtro })),
});
const ids = (docs: Orderable[]) => referencedFirst(docs).map((d) => d.id);

describe('referencedFirst', () => {
  it("keeps the caller's order when nothing in the envelope is referenced", () => {
    expect(ids([doc('a', 33, 2), doc('b', 33, 1), doc('c', 61, 1, [['33', '9']])])).toEqual(['a', 'b', 'c']);
  });

  it('puts a referenced document before the ones that reference it, transitively', () => {
    // 56 annuls the 61, which annuls the 33: the SII must have each before the next.
    const list = [doc('nd', 56, 1, [['61', '1']]), doc('nc', 61, 1, [['33', '5']]), doc('f', 33, 5), doc('x', 34, 1)];
    expect(ids(list)).toEqual(['f', 'nc', 'nd', 'x']);
  });

  it("ignores another issuer's documents, non-tax references and cycles", () => {
    const list = [
      doc('a', 61, 1, [
        ['33', '1', '76192083-9'],
        ['801', 'OC-1'],
      ]),
      doc('b', 33, 1),
      doc('c', 56, 1, [['56', '1']]),
    ];
    expect(ids(list)).toEqual(['a', 'b', 'c']);
    const cycle = [doc('p', 56, 1, [['61', '1']]), doc('q', 61, 1, [['56', '1']])];
    expect(ids(cycle).sort()).toEqual(['p', 'q']);
  });
});
