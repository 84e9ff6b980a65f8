import { describe, expect, it } from 'vitest';
import type { CertificationSet } from '../../../modules/certification/index.ts';
import { documentCounts, stageStates, type CaseDocument, type PageBook } from './certification-stages.ts';

/** The certification page's stage states from what the service recorded (docs/dashboard.md "Certification"). */
const set = { id: 's' } as CertificationSet;
const doc = (status: string | null): CaseDocument => ({
  caseId: 'c',
  tipoDte: 33,
  dteId: status ? 'd' : null,
  folio: status ? 1 : null,
  status,
  trackId: null,
  sii: { estado: null, glosa: null },
});
const book = (status: 'pending' | 'accepted' | 'rejected' | null): PageBook => ({
  kind: 'ventas',
  ready: true,
  missingCases: [],
  folioNotificacion: 1,
  envio: status ? { trackId: '1', status, estado: null, glosa: null, sentAt: '2026-12-05T00:00:00Z' } : null,
});

describe('certification stages', () => {
  it('nothing yet: the set is the next step; manual and not-yet stages say so', () => {
    const s = stageStates({ set: null, documents: [], books: [] });
    expect(s).toMatchObject({ postulacion: 'manual', set: 'current', documents: 'todo', send: 'todo', simulacion: 'notYet' });
  });

  it('a set with half its documents made: making them is the next step', () => {
    const s = stageStates({ set, documents: [doc('created'), doc(null)], books: [book(null)] });
    expect(s).toMatchObject({ set: 'done', documents: 'current', send: 'todo', verdicts: 'todo', books: 'todo' });
  });

  it('all sent, one rejected by the SII, a book rejected: those stages have problems', () => {
    const f = { set, documents: [doc('accepted'), doc('rejected')], books: [book('accepted'), book('rejected')] };
    expect(documentCounts(f)).toMatchObject({ cases: 2, made: 2, sent: 2, accepted: 1, rejected: 1 });
    expect(stageStates(f)).toMatchObject({ documents: 'done', send: 'done', verdicts: 'failed', books: 'failed' });
  });

  it('everything the service does accepted: those stages are done, none is current', () => {
    const s = stageStates({ set, documents: [doc('accepted'), doc('accepted_with_objections')], books: [book('accepted')] });
    expect(Object.values(s)).not.toContain('current');
    expect(s).toMatchObject({ verdicts: 'done', books: 'done', avance: 'manual', declaracion: 'manual' });
  });

  it('a failed envelope marks sending as having problems', () => {
    expect(stageStates({ set, documents: [doc('send_failed'), doc('created')], books: [] }).send).toBe('failed');
  });
});
