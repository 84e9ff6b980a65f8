import type { CertificationSetRow } from './certification.store.ts';
import type { SetCase, SetSection } from './set/set.types.ts';

/** A set as the API shows it (docs/certification.md): what was read, and each case's progress. */
export interface CertificationSet {
  id: string;
  object: 'certification_set';
  tenantId: string;
  sha256: string;
  sections: SetSection[];
  /** Each case as read, with the document made for it (null until documents are created). */
  cases: (SetCase & { document: null })[];
  progress: { cases: number; documents: number };
  createdAt: string;
}

export function toCertificationSet(row: CertificationSetRow): CertificationSet {
  const cases = row.parsed.cases.map((c) => ({ ...c, document: null }));
  return {
    id: row.id,
    object: 'certification_set',
    tenantId: row.tenant_id,
    sha256: row.sha256,
    sections: row.parsed.sections,
    cases,
    progress: { cases: cases.length, documents: 0 },
    createdAt: new Date(row.created_at).toISOString(),
  };
}
