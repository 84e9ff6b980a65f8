import { documentTypeCode } from './document-types.ts';
import { SetParseError } from './set.errors.ts';
import { parseNumber } from './set.fields.ts';
import type { PurchaseBook, PurchaseEntry } from './set.types.ts';

const RULE = /^={10,}$/;

/**
 * The purchase-book section: a table between `=====` rules whose header names three lines per
 * entry (TIPO DOCUMENTO … FOLIO / OBSERVACIONES / MONTO EXENTO … MONTO AFECTO), then general
 * observations, one of which gives the proportional-IVA factor.
 */
export function parsePurchaseBook(lines: readonly string[], first: number, end: number): { book: PurchaseBook; notes: string[] } {
  const notes: string[] = [];
  let i = first;
  const next = () => {
    while (i < end && !lines[i]!.trim()) i++;
    return i < end ? lines[i]!.trim() : undefined;
  };
  if (next() === undefined || !RULE.test(lines[i]!.trim()))
    throw new SetParseError('not_a_test_set', i + 1, "the purchase list's '=====' rule");
  i++;
  const header: string[] = [];
  while (i < end && !RULE.test(lines[i]!.trim())) header.push(lines[i++]!.trim());
  if (i >= end || !/^TIPO DOCUMENTO/.test(header[0] ?? '') || !/EXENTO/.test(header.join(' ')))
    throw new SetParseError(
      'not_a_test_set',
      first + 1,
      'the purchase list header TIPO DOCUMENTO … FOLIO / OBSERVACIONES / MONTO EXENTO … MONTO AFECTO',
    );
  i++;
  const entries: PurchaseEntry[] = [];
  for (;;) {
    const t = next();
    if (t === undefined) throw new SetParseError('not_a_test_set', end, "the purchase list's closing '=====' rule");
    if (RULE.test(t)) {
      i++;
      break;
    }
    const line = i + 1;
    const cells = lines[i]!.split('\t')
      .map((c) => c.trim())
      .filter((c) => c !== '');
    const name = cells[0] ?? '';
    const code = documentTypeCode(name);
    if (cells.length !== 2 || code === undefined)
      throw new SetParseError('unknown_document_type', line, 'a purchase entry: a document type name, tabs, its folio', t);
    const folio = parseNumber(cells[1]!, line, 'FOLIO');
    i++;
    const observation = next();
    if (observation === undefined || RULE.test(observation))
      throw new SetParseError('not_a_test_set', i + 1, `the observation line of the entry of line ${line}`);
    i++;
    if (next() === undefined) throw new SetParseError('not_a_test_set', i + 1, `the amounts line of the entry of line ${line}`);
    const amountsLine = i + 1;
    // MONTO EXENTO is the first column: a line that starts with a value has it; the last value is MONTO AFECTO.
    const parts = lines[i]!.split('\t');
    const values = parts.map((p) => p.trim()).filter((p) => p !== '');
    const startsWithValue = (parts[0] ?? '').trim() !== '';
    if (values.length === 0 || values.length > 2 || (values.length === 2 && !startsWithValue))
      throw new SetParseError('bad_number', amountsLine, 'MONTO EXENTO and/or MONTO AFECTO', lines[i]!.trim());
    const montoExento = startsWithValue ? parseNumber(values[0]!, amountsLine, 'MONTO EXENTO') : null;
    const afecto = startsWithValue ? values[1] : values[0];
    const montoAfecto = afecto === undefined ? null : parseNumber(afecto, amountsLine, 'MONTO AFECTO');
    i++;
    entries.push({ line, documentType: { name, code }, folio, observation, montoExento, montoAfecto });
  }
  for (; i < end; i++) {
    const t = lines[i]!.trim();
    if (t && !/^-{5,}$/.test(t)) notes.push(t);
  }
  const factor = /FACTOR DE PROPORCIONALIDAD\s+DEL IVA ES DE\s+(\d+(?:[.,]\d+)?)/.exec(notes.join(' '));
  return {
    book: { entries, factorProporcionalidadIva: factor ? Number(factor[1]!.replace(',', '.')) : null, observations: notes },
    notes,
  };
}

/** The guía book's considerations: "- EL CASO 2 CORRESPONDE A UNA GUIA QUE SE FACTURO EN EL PERIODO". */
export function parseGuideBook(
  lines: readonly string[],
  first: number,
  end: number,
): { instructions: { line: number; number: number; status: 'facturada' | 'anulada'; text: string }[]; notes: string[] } {
  const notes: string[] = [];
  const instructions: { line: number; number: number; status: 'facturada' | 'anulada'; text: string }[] = [];
  for (let i = first; i < end; i++) {
    const t = lines[i]!.trim();
    if (!t || /^-{20,}$/.test(t)) continue;
    notes.push(t);
    const m = /^-?\s*EL CASO\s+(\d+)\s+CORRESPONDE A UNA GUIA\s+(.*)$/.exec(t);
    if (!m) continue;
    const what = m[2]!;
    const status = /ANULADA/.test(what) ? 'anulada' : /FACTUR/.test(what) ? 'facturada' : undefined;
    if (!status) throw new SetParseError('not_a_test_set', i + 1, "a guía that 'SE FACTURO EN EL PERIODO' or is 'ANULADA'", t);
    instructions.push({ line: i + 1, number: Number(m[1]), status, text: t });
  }
  return { instructions, notes };
}
