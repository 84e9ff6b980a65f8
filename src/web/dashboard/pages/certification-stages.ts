import type { BookEnvio, BookKind, CertificationSet } from '../../../modules/certification/index.ts';

/**
 * The certification page's stages in the SII's order (docs/certification.md, docs/dashboard.md
 * "Certification"), and the state of each from what the service recorded. Pure: the page's route
 * gathers the facts, this decides what each stage shows, the view draws it.
 */
export type StageKey =
  | 'postulacion'
  | 'set'
  | 'documents'
  | 'send'
  | 'verdicts'
  | 'books'
  | 'avance'
  | 'simulacion'
  | 'intercambio'
  | 'muestras'
  | 'declaracion';

/** manual: done in the SII's site; notYet: a stage the API does and this page has no button for yet. */
export type StageState = 'done' | 'current' | 'todo' | 'failed' | 'manual' | 'notYet';

export const STAGE_ORDER: readonly StageKey[] = [
  'postulacion',
  'set',
  'documents',
  'send',
  'verdicts',
  'books',
  'avance',
  'simulacion',
  'intercambio',
  'muestras',
  'declaracion',
];
const MANUAL = new Set<StageKey>(['postulacion', 'avance', 'declaracion']);
const NOT_YET = new Set<StageKey>(['simulacion', 'intercambio', 'muestras']);

/** A case's document as the page shows it. */
export interface CaseDocument {
  caseId: string;
  tipoDte: number | null;
  dteId: string | null;
  folio: number | null;
  status: string | null;
  trackId: string | null;
  sii: { estado: string | null; glosa: string | null };
}

/** A book as the page shows it: whether it can be built, and its latest send. */
export interface PageBook {
  kind: BookKind;
  ready: boolean;
  missingCases: string[];
  folioNotificacion: number | null;
  envio: BookEnvio | null;
}

export interface StageFacts {
  set: CertificationSet | null;
  documents: CaseDocument[];
  books: PageBook[];
}

const SENT = new Set(['sent', 'accepted', 'accepted_with_objections', 'rejected']);
const ACCEPTED = new Set(['accepted', 'accepted_with_objections']);

export interface DocumentCounts {
  cases: number;
  made: number;
  sent: number;
  accepted: number;
  rejected: number;
  failed: number;
}

/** The document cases only (book sections have no documents). */
export function documentCounts(f: StageFacts): DocumentCounts {
  const docs = f.documents;
  return {
    cases: docs.length,
    made: docs.filter((d) => d.dteId).length,
    sent: docs.filter((d) => d.status && SENT.has(d.status)).length,
    accepted: docs.filter((d) => d.status && ACCEPTED.has(d.status)).length,
    rejected: docs.filter((d) => d.status === 'rejected').length,
    failed: docs.filter((d) => d.status === 'send_failed').length,
  };
}

/** Each stage's state; the first stage the service does that is not done is `current`. */
export function stageStates(f: StageFacts): Record<StageKey, StageState> {
  const c = documentCounts(f);
  const books = f.books;
  const own: Partial<Record<StageKey, 'done' | 'todo' | 'failed'>> = {
    set: f.set ? 'done' : 'todo',
    documents: f.set && c.cases > 0 && c.made === c.cases ? 'done' : 'todo',
    send: c.cases > 0 && c.sent === c.cases ? 'done' : c.failed > 0 ? 'failed' : 'todo',
    verdicts: c.rejected > 0 ? 'failed' : c.cases > 0 && c.accepted === c.cases ? 'done' : 'todo',
    books: books.some((b) => b.envio?.status === 'rejected')
      ? 'failed'
      : books.length > 0 && books.every((b) => b.envio?.status === 'accepted')
        ? 'done'
        : 'todo',
  };
  let current = false;
  const out = {} as Record<StageKey, StageState>;
  for (const k of STAGE_ORDER) {
    if (MANUAL.has(k)) out[k] = 'manual';
    else if (NOT_YET.has(k)) out[k] = 'notYet';
    else {
      const s = own[k] ?? 'todo';
      out[k] = s === 'todo' && !current ? 'current' : s;
      if (s !== 'done') current = true;
    }
  }
  return out;
}
