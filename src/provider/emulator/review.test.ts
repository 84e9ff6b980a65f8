import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb, type TestDb } from '../../../test/support/db.ts';
import { judgeDocuments, type InspectedDocument, type InspectedEnvelope } from './review.ts';
import { emulatorStore, ensureEmulatorSchema } from './store.ts';

const RUT = '76192083-9';
const NOW = new Date('2026-03-02T12:30:00Z');

const doc = (over: Partial<InspectedDocument>): InspectedDocument => ({
  tipoDte: 61,
  folio: 1,
  rutEmisor: RUT,
  rutReceptor: '77777777-7',
  fechaEmision: '2026-03-02',
  montoTotal: 37485,
  iva: 5985,
  digest: 'd',
  cafModulus: null,
  references: [],
  findings: [],
  razonSocialReceptor: 'Cliente SpA',
  ...over,
});
const envelope = (documents: InspectedDocument[]): InspectedEnvelope => ({
  kind: 'EnvioDTE',
  rutEmisor: RUT,
  rutEnvia: '7880442-4',
  rejection: null,
  documents,
  slow: false,
  sha256: 'x',
});

describe('judgeDocuments: references against the SII’s records', () => {
  let tdb: TestDb;
  let track = 0;
  const judge = (d: InspectedDocument) => tdb.db.transaction((tx) => judgeDocuments(tx, envelope([d]), { trackId: ++track, now: NOW }));

  beforeAll(async () => {
    tdb = await openTestDb('pglite');
    await ensureEmulatorSchema(tdb.db);
    await emulatorStore.insertDocument(tdb.db, {
      rut: RUT,
      tipoDte: 33,
      folio: 7,
      digest: 'f7',
      trackId: 0,
      estado: 'DOK',
      glosa: 'DTE Aceptado',
      fechaEmision: '2026-03-01',
      montoTotal: 37485,
      iva: 5985,
      rutReceptor: '77777777-7',
      now: NOW,
    });
  });
  afterAll(() => tdb.close());

  const anula = { tipoDte: 33, folio: 7, codRef: '1', rutOtr: null };

  it('an annulment with the referenced total is accepted', async () => {
    const r = await judge(doc({ folio: 1, references: [anula] }));
    expect(r.detalle[0]).toMatchObject({ estado: 'DOK', errores: [] });
  });

  it('REF-2-780: an annulment whose MntTotal differs is accepted with reparos', async () => {
    const r = await judge(doc({ folio: 2, montoTotal: 37484, references: [anula] }));
    expect(r.detalle[0]).toMatchObject({
      estado: 'RPR',
      errores: [
        {
          codigo: 'REF-2-780',
          descripcion: 'Anulación presenta diff. de monto con doc. referenciado',
          detalle: 'MntTotal 37484, tipo 33 folio 7 recibido con 37485',
        },
      ],
    });
    // Corrections of amounts carry their own amounts.
    expect((await judge(doc({ folio: 3, montoTotal: 10710, references: [{ ...anula, codRef: '3' }] }))).detalle[0]!.estado).toBe('DOK');
  });

  it('REF-3-750 for a document never received; another taxpayer’s (RUTOtr) is looked up under its RUT and never refused', async () => {
    expect((await judge(doc({ folio: 4, references: [{ ...anula, folio: 8 }] }))).detalle[0]).toMatchObject({
      estado: 'RCH',
      errores: [{ codigo: 'REF-3-750' }],
    });
    expect((await judge(doc({ folio: 5, references: [{ ...anula, folio: 8, rutOtr: '96790240-3' }] }))).detalle[0]!.estado).toBe('DOK');
    const other = await judge(doc({ folio: 6, montoTotal: 1, references: [{ ...anula, rutOtr: RUT }] }));
    expect(other.detalle[0]).toMatchObject({ estado: 'RPR', errores: [{ codigo: 'REF-2-780' }] });
  });
});
