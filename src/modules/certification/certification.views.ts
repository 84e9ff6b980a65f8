import type { CertificationSetRow } from './certification.store.ts';
import type { SetCase, SetSection } from './set/set.types.ts';

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
  createdAt: string;
}

/** `made`: case id → DTE id of the documents made so far. */
export function toCertificationSet(row: CertificationSetRow, made: ReadonlyMap<string, string> = new Map()): CertificationSet {
  const cases = row.parsed.cases.map((c) => ({ ...c, dteId: made.get(c.id) ?? null }));
  return {
    id: row.id,
    object: 'certification_set',
    tenantId: row.tenant_id,
    sha256: row.sha256,
    sections: row.parsed.sections,
    cases,
    progress: { cases: cases.length, documents: cases.filter((c) => c.dteId !== null).length },
    createdAt: new Date(row.created_at).toISOString(),
  };
}
