import { comparable } from '../../../dte/index.ts';
import { parseGuideBook, parsePurchaseBook } from './set.books.ts';
import { parseCaseSection } from './set.cases.ts';
import { SetParseError } from './set.errors.ts';
import { decodeSetText, setLines } from './set.text.ts';
import type { ParsedSet, SectionKind, SetCase, SetSection } from './set.types.ts';

/**
 * The SII's test set (docs/certification.md, "The set's format"): a preamble, then sections
 * headed `SET <title> - NUMERO DE ATENCION: <n>`, separated by dashed rules. Sections of
 * documents hold `CASO <n>-<k>` blocks; the books' sections hold a purchase list or instructions.
 * Pure: text in, structure out, or a SetParseError naming the line.
 */
const HEADING = /^SET\s+(.+?)\s*-\s*NUMERO DE ATENCION\s*:\s*(\d+)\s*$/;

const TITLES: [RegExp, SectionKind][] = [
  [/^BASICO$/, 'basico'],
  [/^LIBRO DE VENTAS$/, 'libro_ventas'],
  [/^LIBRO DE COMPRAS$/, 'libro_compras'],
  [/^GUIA DE DESPACHO$/, 'guias'],
  [/^LIBRO DE GUIAS$/, 'libro_guias'],
  [/^FACTURA EXENTA$/, 'exenta'],
  [/^BASICO DOCUMENTOS DE EXPORTACION \(1\)$/, 'exportacion_1'],
  [/^BASICO DOCUMENTOS DE EXPORTACION \(2\)$/, 'exportacion_2'],
  [/^BASICO LIQUIDACIONES$/, 'liquidaciones'],
  [/^BASICO CASO GENERAL DE EMISOR DE FACTURA DE COMPRA$/, 'factura_compra'],
];

export function parseSet(input: string | Uint8Array, opts: { charset?: string } = {}): ParsedSet {
  const lines = setLines(decodeSetText(input, opts.charset));
  const firstText = lines.findIndex((l) => l.trim() !== '');
  if (firstText < 0) throw new SetParseError('empty', 1, "the SII's test set text; the body is empty");

  const headings: { index: number; kind: SectionKind; title: string; attentionNumber: string }[] = [];
  lines.forEach((l, index) => {
    const t = l.trim();
    const m = HEADING.exec(comparable(t));
    if (!m) {
      if (/^SET\s/.test(t) && /ATENCI/i.test(t))
        throw new SetParseError('not_a_test_set', index + 1, "a heading 'SET <title> - NUMERO DE ATENCION: <number>'", t);
      return;
    }
    const kind = TITLES.find(([re]) => re.test(m[1]!))?.[1];
    if (!kind)
      throw new SetParseError(
        'unknown_section',
        index + 1,
        'a section the SII issues (BASICO, LIBRO DE VENTAS, LIBRO DE COMPRAS, GUIA DE DESPACHO, LIBRO DE GUIAS, FACTURA EXENTA, ' +
          'BASICO DOCUMENTOS DE EXPORTACION (1)/(2), BASICO LIQUIDACIONES, BASICO CASO GENERAL DE EMISOR DE FACTURA DE COMPRA)',
        t,
      );
    if (headings.some((h) => h.kind === kind)) throw new SetParseError('duplicate_section', index + 1, 'each section once', t);
    headings.push({ index, kind, title: t, attentionNumber: m[2]! });
  });
  if (headings.length === 0)
    throw new SetParseError(
      'not_a_test_set',
      firstText + 1,
      "an SII test set, with headings 'SET <title> - NUMERO DE ATENCION: <number>'",
      lines[firstText]!.trim(),
    );

  const sections: SetSection[] = [];
  const cases: SetCase[] = [];
  const guideBooks: { section: SetSection; instructions: ReturnType<typeof parseGuideBook>['instructions'] }[] = [];
  headings.forEach((h, n) => {
    const first = h.index + 1;
    const end = headings[n + 1]?.index ?? lines.length;
    const section: SetSection = {
      kind: h.kind,
      title: h.title,
      attentionNumber: h.attentionNumber,
      line: h.index + 1,
      notes: [],
      caseIds: [],
      purchaseBook: null,
      guideBook: null,
    };
    if (h.kind === 'libro_compras') {
      const r = parsePurchaseBook(lines, first, end);
      section.purchaseBook = r.book;
      section.notes = r.notes;
    } else if (h.kind === 'libro_guias') {
      const r = parseGuideBook(lines, first, end);
      section.notes = r.notes;
      guideBooks.push({ section, instructions: r.instructions });
    } else if (h.kind === 'libro_ventas') {
      section.notes = lines
        .slice(first, end)
        .map((l) => l.trim())
        .filter((t) => t && !/^-{20,}$/.test(t));
    } else {
      const r = parseCaseSection(h.kind, h.attentionNumber, lines, first, end);
      section.notes = r.notes;
      section.caseIds = r.cases.map((c) => c.id);
      cases.push(...r.cases);
    }
    sections.push(section);
  });

  // References name cases of the same set; the referenced case's type is the one referenced.
  const byId = new Map(cases.map((c) => [c.id, c]));
  for (const c of cases) {
    if (!c.reference) continue;
    const target = byId.get(c.reference.caseId);
    if (!target)
      throw new SetParseError('missing_case', c.reference.line, `a reference to a case of this set`, `CASO ${c.reference.caseId}`);
    c.reference.tipoDte = target.documentType.code;
  }
  const guias = sections.find((s) => s.kind === 'guias');
  for (const { section, instructions } of guideBooks) {
    section.guideBook = {
      instructions: instructions.map((x) => {
        const caseId = guias ? `${guias.attentionNumber}-${x.number}` : '';
        if (!byId.has(caseId)) throw new SetParseError('missing_case', x.line, 'a case of the SET GUIA DE DESPACHO section', x.text);
        return { line: x.line, caseId, status: x.status, text: x.text };
      }),
    };
  }
  return { sections, cases };
}
