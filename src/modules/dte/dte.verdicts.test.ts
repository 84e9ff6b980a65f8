import { describe, expect, it } from 'vitest';
import { ProviderError, type DocumentState, type UploadStatus } from '../../provider/index.ts';
import type { DteRow } from './dte.store.ts';
import { judgeEnvelope, MAX_DOCUMENT_QUERIES_PER_RUN } from './dte.verdicts.ts';

/** How an envelope's answer becomes each document's verdict, and how many provider calls it costs. */
const row = (folio: number, tipo = 33, status: DteRow['status'] = 'sent'): DteRow =>
  ({ id: `d${tipo}-${folio}`, tipo_dte: tipo, folio, status }) as unknown as DteRow;

const processed = (estadistica: UploadStatus['estadistica'], over: Partial<UploadStatus> = {}): UploadStatus => ({
  trackId: '1',
  estado: 'EPR',
  glosa: 'Envio Procesado',
  final: true,
  estadistica,
  documents: [],
  documentsListed: false,
  ...over,
});

const counts = (tipoDte: number, informados: number, aceptados: number, rechazados: number, reparos: number) => ({
  tipoDte,
  informados,
  aceptados,
  rechazados,
  reparos,
});

function asker(states: Record<number, string>) {
  const asked: number[] = [];
  const ask = async (r: DteRow): Promise<DocumentState> => {
    asked.push(Number(r.folio));
    return { estado: states[Number(r.folio)] ?? 'DOK', glosa: 'DTE Recibido' };
  };
  return { asked, ask };
}

describe('judgeEnvelope', () => {
  it('accepts a clean EnvioDTE by its counts, with no document query', async () => {
    const rows = Array.from({ length: 500 }, (_, i) => row(i + 1));
    const { asked, ask } = asker({});
    const v = await judgeEnvelope(processed([counts(33, 500, 500, 0, 0)]), rows, ask);
    expect(asked).toEqual([]);
    expect([...v.decided.values()].every((o) => o.status === 'accepted')).toBe(true);
    expect(v.decided.size).toBe(500);
  });

  it('rejects a type rejected whole, and an envelope rejected whole, without asking', async () => {
    const { asked, ask } = asker({});
    const v = await judgeEnvelope(processed([counts(33, 2, 0, 2, 0), counts(34, 1, 1, 0, 0)]), [row(1), row(2), row(7, 34)], ask);
    expect(asked).toEqual([]);
    expect(v.decided.get('d33-1')).toMatchObject({ status: 'rejected', estado: 'RCH' });
    expect(v.decided.get('d33-1')!.glosa).toContain('correo de validación');
    expect(v.decided.get('d34-7')).toMatchObject({ status: 'accepted' });
    const whole = await judgeEnvelope(processed([], { estado: 'RSC', glosa: 'Rechazado por Error en Schema' }), [row(1)], ask);
    expect(whole.decided.get('d33-1')).toEqual({ status: 'rejected', estado: 'RSC', glosa: 'Rechazado por Error en Schema' });
  });

  it('takes the DOK answers of a type the counts leave out, and leaves its other answers open', async () => {
    const { asked, ask } = asker({ 2: 'FAU' });
    const v = await judgeEnvelope(processed([]), [row(1), row(2)], ask);
    expect(asked).toEqual([1, 2]);
    expect(v.decided.get('d33-1')).toMatchObject({ status: 'accepted', estado: 'DOK' });
    expect(v.decided.has('d33-2')).toBe(false);
    expect(v.undecided).toBe(1);
  });

  it('asks only the documents of a type with some rejections; FAU is a rejection once it accounts for all of them', async () => {
    const rows = [row(1), row(2), row(3), row(9, 34)];
    const { asked, ask } = asker({ 2: 'FAU' });
    const v = await judgeEnvelope(processed([counts(33, 3, 2, 1, 0), counts(34, 1, 1, 0, 0)]), rows, ask);
    expect(asked).toEqual([1, 2, 3]);
    expect(v.decided.get('d33-2')).toMatchObject({ status: 'rejected', estado: 'RCH' });
    expect(v.decided.get('d33-1')).toMatchObject({ status: 'accepted', estado: 'DOK' });
    expect(v.decided.get('d34-9')).toMatchObject({ status: 'accepted' });
  });

  it('keeps FAU undecided while there are more FAU documents than rejections (not registered yet), and DNK always', async () => {
    const { ask } = asker({ 1: 'FAU', 2: 'FAU', 3: 'DNK' });
    const v = await judgeEnvelope(processed([counts(33, 4, 3, 1, 0)]), [row(1), row(2), row(3), row(4)], ask);
    expect(v.decided.has('d33-1')).toBe(false);
    expect(v.decided.has('d33-2')).toBe(false);
    expect(v.decided.has('d33-3')).toBe(false);
    expect(v.decided.get('d33-4')).toMatchObject({ status: 'accepted' });
    // Next poll: document 1 is registered now; only the undecided are asked.
    const next = asker({ 2: 'FAU', 3: 'DNK' });
    const rows2 = [row(1), row(2), row(3), row(4, 33, 'accepted')];
    const v2 = await judgeEnvelope(processed([counts(33, 4, 3, 1, 0)]), rows2, next.ask);
    expect(next.asked).toEqual([1, 2, 3]);
    expect(v2.decided.get('d33-1')).toMatchObject({ status: 'accepted' });
    // Still one DNK to explain: FAU (1) matches the rejections (1) but not every document is settled.
    expect(v2.decided.get('d33-2')).toMatchObject({ status: 'rejected' });
  });

  it('marks reparos per document when the counts say every accepted one has them, and reads boleta detalles', async () => {
    const { ask } = asker({ 3: 'FAU' });
    const v = await judgeEnvelope(processed([counts(33, 3, 0, 1, 2)]), [row(1), row(2), row(3)], ask);
    expect(v.decided.get('d33-1')).toMatchObject({ status: 'accepted_with_objections', estado: 'RPR' });
    expect(v.decided.get('d33-3')).toMatchObject({ status: 'rejected' });
    const boletas = processed([counts(39, 3, 1, 1, 1)], {
      documentsListed: true,
      documents: [
        { tipoDte: 39, folio: 2, status: 'rejected', estado: 'RCH', glosa: 'DTE-3-100 DTE Repetido' },
        { tipoDte: 39, folio: 3, status: 'accepted_with_objections', estado: 'RPR', glosa: 'HED-2-260 REPARO' },
      ],
    });
    const b = asker({});
    const vb = await judgeEnvelope(boletas, [row(1, 39), row(2, 39), row(3, 39)], b.ask);
    expect(b.asked).toEqual([]);
    expect(vb.decided.get('d39-1')).toMatchObject({ status: 'accepted' });
    expect(vb.decided.get('d39-2')).toMatchObject({ status: 'rejected', glosa: 'DTE-3-100 DTE Repetido' });
    expect(vb.decided.get('d39-3')).toMatchObject({ status: 'accepted_with_objections' });
  });

  it('asks at most a minute of budget per run, and stops at a rate limit with its wait', async () => {
    const rows = Array.from({ length: 100 }, (_, i) => row(i + 1));
    const { asked, ask } = asker({});
    const v = await judgeEnvelope(processed([counts(33, 100, 99, 1, 0)]), rows, ask);
    expect(asked.length).toBe(MAX_DOCUMENT_QUERIES_PER_RUN);
    expect(v.retryInMs).toBe(0);
    let n = 0;
    const limited = async (): Promise<DocumentState> => {
      if (++n === 3) throw new ProviderError('rate_limited', 'wait', 429, { retryAfterMs: 7_000 });
      return { estado: 'DOK', glosa: '' };
    };
    const v2 = await judgeEnvelope(processed([counts(33, 100, 99, 1, 0)]), rows, limited);
    expect(v2.retryInMs).toBe(7_000);
    expect(v2.decided.size).toBe(2);
  });

  it('asks about documents a failed upload may have delivered instead of trusting "rejected" counts (DTE Repetido)', async () => {
    const { asked, ask } = asker({ 2: 'FAU' });
    const v = await judgeEnvelope(
      processed([counts(33, 3, 0, 3, 0)]),
      [row(1), row(2), row(3)],
      ask,
      async () => new Set(['d33-1', 'd33-2']),
    );
    expect(asked).toEqual([1, 2]);
    expect(v.decided.get('d33-1')).toMatchObject({ status: 'accepted', estado: 'DOK' });
    expect(v.decided.get('d33-2')).toMatchObject({ status: 'rejected' });
    expect(v.decided.get('d33-3')).toMatchObject({ status: 'rejected' });
    // No rejections: nothing is looked up.
    let looked = false;
    await judgeEnvelope(processed([counts(33, 1, 1, 0, 0)]), [row(1)], ask, async () => ((looked = true), new Set()));
    expect(looked).toBe(false);
  });
});
