/**
 * The order of the documents in one envelope. The SII reviews an envelope's documents in order and
 * rejects a reference to an electronic document it has not received yet (REF-3-750, "e.g. NC to a
 * … not-yet-processed factura": `docs/sources.md` §10), so a document referenced by another
 * of the same envelope goes first; otherwise the caller's order is kept. Documents of different
 * envelopes (a boleta and its nota de crédito) are not ordered here: docs/dte.md, "Sending".
 */
export interface Orderable {
  id: string;
  tipoDte: number;
  folio: number;
  /** The references as stored: tipoDocRef and folioRef are text (they may name non-tax documents). */
  referencias: readonly { tipoDocRef: string; folioRef: string; rutOtro?: string | null | undefined }[];
}

export function referencedFirst<T extends Orderable>(docs: readonly T[]): T[] {
  const byKey = new Map(docs.map((d) => [`${d.tipoDte}:${d.folio}`, d]));
  const out: T[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (d: T) => {
    if (state.get(d.id)) return; // done, or a reference cycle: keep the order reached
    state.set(d.id, 'visiting');
    for (const r of d.referencias) {
      if (r.rutOtro) continue; // another issuer's document
      const target = byKey.get(`${r.tipoDocRef}:${r.folioRef}`);
      if (target && target.id !== d.id) visit(target);
    }
    state.set(d.id, 'done');
    out.push(d);
  };
  for (const d of docs) visit(d);
  return out;
}
