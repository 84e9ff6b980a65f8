import { DteEngineError } from './errors.ts';
import { cleanText } from './text-policy.ts';
import { MAX_LENGTH, MAX_REFERENCIAS } from './limits.ts';
import { checkSiiDate } from './dates.ts';
import { toSiiRut } from './rut.ts';
import type { Totals } from './amounts.ts';
import type { ReferenciaInput, TipoDte } from './types.ts';
import type { DocumentStrategy } from './strategies/strategy.ts';
import type { DocumentType } from './catalogue.ts';

export interface NormalizedReference {
  tipoDocRef: string;
  folioRef: string;
  /** Undefined only on boletas, whose references have no FchRef. */
  fechaRef: string;
  codRef?: 1 | 2 | 3 | undefined;
  razonRef?: string | undefined;
  indGlobal: boolean;
  rutOtro?: string | undefined;
}

/**
 * References and the SII's rules on them (docs/decisions.md §11; format document, "Referencias"), checked
 * before a folio is spent: notes need one with codRef (and its razonRef); a note cancels (codRef
 * 1) at most one document; a note that only corrects text (codRef 2) carries zero amounts; a
 * reference is never dated after the document. Whether a cancelling note carries the amounts of
 * the document it cancels needs that document, so the issuing module checks it
 * (src/modules/dte/dte.references.ts).
 */
export function normalizeReferences(
  tipoDte: TipoDte,
  type: Pick<DocumentType, 'requiresReferencias'>,
  strategy: Pick<DocumentStrategy, 'checkReference'>,
  refsIn: readonly ReferenciaInput[],
  fechaEmision: string,
  totals: Totals,
): NormalizedReference[] {
  if (refsIn.length > MAX_REFERENCIAS)
    throw new DteEngineError('too_many_references', `referencias may have at most ${MAX_REFERENCIAS} entries`, 'referencias');
  if (type.requiresReferencias && refsIn.length === 0) {
    throw new DteEngineError(
      'references_required',
      `Document type ${tipoDte} must reference the document it modifies (referencias)`,
      'referencias',
    );
  }
  const out = refsIn.map((ref, i) => {
    const p = `referencias[${i}]`;
    const tipoDocRef = cleanText(String(ref.tipoDocRef ?? ''), {
      param: `${p}.tipoDocRef`,
      maxLength: MAX_LENGTH.tipoDocRef,
      required: true,
    });
    const folioRef = cleanText(String(ref.folioRef ?? ''), { param: `${p}.folioRef`, maxLength: MAX_LENGTH.folioRef, required: true });
    const fechaRef = checkSiiDate(ref.fechaRef, `${p}.fechaRef`);
    if (fechaRef > fechaEmision) {
      throw new DteEngineError(
        'reference_date_after_document',
        `${p}.fechaRef ${fechaRef} is after the document's fechaEmision ${fechaEmision}: a document can only reference an earlier one`,
        `${p}.fechaRef`,
      );
    }
    if (ref.codRef !== undefined && ![1, 2, 3].includes(ref.codRef)) {
      throw new DteEngineError('invalid_field', `${p}.codRef must be 1 (anula), 2 (corrige texto) or 3 (corrige montos)`, `${p}.codRef`);
    }
    const razonRef = cleanText(ref.razonRef, { param: `${p}.razonRef`, maxLength: MAX_LENGTH.razonRef });
    if (type.requiresReferencias && ref.codRef !== undefined && razonRef === undefined) {
      throw new DteEngineError('required_field', `${p}.razonRef is required for credit and debit notes`, `${p}.razonRef`);
    }
    strategy.checkReference(ref, p);
    return {
      tipoDocRef,
      folioRef,
      fechaRef,
      codRef: ref.codRef,
      razonRef,
      indGlobal: ref.indGlobal === true,
      rutOtro: ref.rutOtro === undefined ? undefined : toSiiRut(ref.rutOtro, `${p}.rutOtro`),
    };
  });
  if (type.requiresReferencias) {
    // A note names the document it modifies with a codRef (REF-3-758 without one), in any of its
    // references: the SII's test set puts its own (TpoDocRef SET) first (docs/certification.md).
    // Other references it carries (an order, a passport 813, the set's) need none. The error names
    // the first reference to a document type (a number below 800), else the first.
    if (!out.some((r) => r.codRef !== undefined)) {
      const i = Math.max(
        0,
        out.findIndex((r) => /^\d+$/.test(r.tipoDocRef) && Number(r.tipoDocRef) < 800),
      );
      throw new DteEngineError(
        'required_field',
        `referencias[${i}].codRef is required: a credit or debit note names the document it modifies with codRef 1 (anula), 2 (corrige texto) or 3 (corrige montos)`,
        `referencias[${i}].codRef`,
      );
    }
    const anula = out.filter((r) => r.codRef === 1);
    if (anula.length > 1) {
      throw new DteEngineError(
        'reference_multiple_cancellations',
        `A note cancels one document: ${anula.length} referencias have codRef 1 (anula). Issue one note per cancelled document`,
        'referencias',
      );
    }
    const corrige = out.filter((r) => r.codRef !== undefined);
    if (corrige.length > 0 && corrige.every((r) => r.codRef === 2) && totals.montoTotal !== 0) {
      throw new DteEngineError(
        'reference_text_correction_with_amounts',
        `A note that only corrects text (codRef 2) carries no amounts, but this one totals ${totals.montoTotal}: give its lines price 0, or use codRef 3 to correct amounts`,
        'referencias',
      );
    }
  }
  return out;
}
