import type { CertificationSetRow } from './certification.store.ts';
import type { BookEnvio } from './books/book-send.ts';
import type { SetCase, SetSection } from './set/set.types.ts';

export type SetBook = { kind: 'ventas' | 'compras' | 'guias'; envio: BookEnvio | null };

/** A set as the API shows it (docs/certification.md): what was read, and each case's progress. */
export interface CertificationSet {
  id: string;
  object: 'certification_set';
  tenantId: string;
  sha256: string;
  sections: SetSection[];
  /** Each case as read, with the id of the document made for it (null until made). */
  cases: (SetCase & { dteId: string | null })[];
  progress: { cases: number; documents: number };
  /** The books the set asks for, each with its latest send (null until sent). */
  books: SetBook[];
  createdAt: string;
}

/** `made`: case id → DTE id of the documents made so far. */
export function toCertificationSet(
  row: CertificationSetRow,
  made: ReadonlyMap<string, string> = new Map(),
  books: SetBook[] = setBookKinds(row).map((kind) => ({ kind, envio: null })),
): CertificationSet {
  const cases = row.parsed.cases.map((c) => ({ ...c, dteId: made.get(c.id) ?? null }));
  return {
    id: row.id,
    object: 'certification_set',
    tenantId: row.tenant_id,
    sha256: row.sha256,
    sections: row.parsed.sections,
    cases,
    progress: { cases: cases.length, documents: cases.filter((c) => c.dteId !== null).length },
    books,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

const BOOK_OF_SECTION = { libro_ventas: 'ventas', libro_compras: 'compras', libro_guias: 'guias' } as const;

/** The books a set asks for, in the order of its sections. */
export function setBookKinds(row: CertificationSetRow): SetBook['kind'][] {
  return row.parsed.sections.flatMap((s) => (s.kind in BOOK_OF_SECTION ? [BOOK_OF_SECTION[s.kind as keyof typeof BOOK_OF_SECTION]] : []));
}
