import crypto from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { describeEachDb, openTestDb, type TestDb } from '../../../test/support/db.ts';
import { createTestKit, TEST_EMISOR, TEST_NOW, type TestKit } from '../../../test/support/dte/fixtures.ts';
import { computeTotals, issueDteAsync, prepareDte, type Caf, type TipoDte } from '../../dte/index.ts';
import type * as Engine from '../../dte/index.ts';
import type { AppError } from '../../errors.ts';
import { manualClock } from '../../lib/clock.ts';
import type { TenantRow } from '../tenants/index.ts';
import { createDteCreate, type CreateDeps } from './dte.create.ts';
import type { CreateDte } from './dte.input.ts';
import { dteStore } from './dte.store.ts';

// The engine's two steps, wrapped so the tests can count how often create calls each.
vi.mock('../../dte/index.ts', async (importOriginal) => {
  const real = await importOriginal<typeof Engine>();
  return { ...real, prepareDte: vi.fn(real.prepareDte), issueDteAsync: vi.fn(real.issueDteAsync) };
});

/**
 * create on its own: a real database (for the row and the folio's transaction), small fakes for
 * the folios port and the signer cache. The HTTP behaviour (codes, order of
 * checks) is covered by test/modules/dte.
 */
// Folios are numbered across the whole file: the rows stored by one test stay for the next.
let nextFolio = 1;

function fakeFolios(caf: (tipoDte: number) => Caf) {
  const calls = {
    reserve: [] as number[],
    release: [] as { tipoDte: number; folio: number }[],
    /** Statements that stored DTEs (each marks the folios of its documents used). */
    markUsed: 0,
  };
  const port: CreateDeps['folios'] & {
    calls: typeof calls;
    lapse: boolean;
    /** Folios whose reservation lapsed (voided before the store). */
    lapsed: Set<number>;
    /** The folio the n-th reserve of the test hands out, when not the next one. */
    folioFor?: (n: number) => number | undefined;
  } = {
    calls,
    lapse: false,
    lapsed: new Set(),
    async reserve(_accountId, _tenantId, tipoDte) {
      calls.reserve.push(tipoDte);
      const folio = port.folioFor?.(calls.reserve.length - 1) ?? nextFolio++;
      return { folio, rangeId: crypto.randomUUID(), caf: caf(tipoDte) };
    },
    async release(_accountId, _tenantId, tipoDte, folio) {
      calls.release.push({ tipoDte, folio });
    },
    // Marks every document's folio used, or (lapse) none: a reservation voided meanwhile.
    markUsedSql(docs) {
      calls.markUsed++;
      const lapsed = [...port.lapsed].map(Number).join(',') || '0';
      return `select d.id as dte_id from ${docs} d where ${port.lapse ? 'false' : 'true'} and d.folio not in (${lapsed})`;
    },
  };
  return port;
}

function body(tipoDte: TipoDte, over: Partial<CreateDte> = {}): CreateDte {
  const detalle = [
    { nombre: 'Servicio de desarrollo', cantidad: 10, precioUnitario: 35000 },
    { nombre: 'Capacitación', cantidad: 2, precioUnitario: 45000, exento: true },
  ];
  const totals = computeTotals(tipoDte, detalle);
  return {
    tipoDte,
    receptor: {
      rut: '77.777.777-7',
      razonSocial: 'Comercial Ñandú Ltda.',
      giro: 'Comercio',
      direccion: 'Calle Uno 123',
      comuna: 'Santiago',
    },
    detalle: detalle.map((l, i) => ({ ...l, montoItem: totals.lineas[i]! })),
    montoTotal: totals.montoTotal,
    ...over,
  } as CreateDte;
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as AppError).code;
  }
  throw new Error('expected an error');
}

describeEachDb('DTE create', (backend) => {
  let tdb: TestDb;
  let kit: TestKit;
  let tenant: TenantRow;
  let cafOf: (tipoDte: number) => Caf;
  let folios: ReturnType<typeof fakeFolios>;
  let create: ReturnType<typeof createDteCreate>;

  beforeAll(async () => {
    tdb = await openTestDb(backend);
    kit = createTestKit();
    const accountId = crypto.randomUUID();
    const tenantId = crypto.randomUUID();
    await tdb.db.query('insert into accounts (id, name, email, created_at, updated_at) values ($1, $2, $3, $4, $4)', [
      accountId,
      'DTE create test',
      `${accountId}@example.test`,
      TEST_NOW,
    ]);
    await tdb.db.query(
      `insert into tenants (id, account_id, rut_empresa, razon_social, giro, acteco, direccion, comuna, ciudad, numero_resolucion,
         fecha_resolucion, ambiente, status, api_key_verified_at, certificate_configured, created_at, updated_at)
       values ($1, $2, $3, 'SASCO SpA', 'Software', '[620200]', 'Calle 1', 'Santiago', 'Santiago', 0, '2020-01-01', 'certificacion',
         'active', $4, true, $4, $4)`,
      [tenantId, accountId, TEST_EMISOR.rut, TEST_NOW],
    );
    tenant = (await tdb.db.query<TenantRow>('select * from tenants where id = $1', [tenantId])).rows[0]!;
  });
  afterAll(() => tdb?.close());

  beforeEach(() => {
    vi.mocked(prepareDte).mockClear();
    vi.mocked(issueDteAsync).mockClear();
    cafOf = (tipoDte) => kit.cafs[tipoDte as TipoDte];
    folios = fakeFolios((tipoDte) => cafOf(tipoDte));
    create = createDteCreate({
      db: tdb.db,
      clock: manualClock(TEST_NOW),
      folios,
      signers: { get: async () => ({ certificateId: 'cert-1', signer: kit.certificate.signer, rutCertificado: kit.certificate.rut }) },
    });
  });

  it('prepares once, reserves one folio, issues once, and stores the prepared document with the issued bytes', async () => {
    const dte = await create(tenant, body(33));

    expect(prepareDte).toHaveBeenCalledTimes(1);
    expect(issueDteAsync).toHaveBeenCalledTimes(1);
    expect(folios.calls.reserve).toEqual([33]);
    expect(folios.calls.markUsed).toBe(1);
    expect(folios.calls.release).toEqual([]);

    const prepared = vi.mocked(prepareDte).mock.results[0]!.value as ReturnType<typeof prepareDte>;
    const issued = await (vi.mocked(issueDteAsync).mock.results[0]!.value as ReturnType<typeof issueDteAsync>);
    expect(vi.mocked(issueDteAsync).mock.calls[0]![0]).toBe(prepared);
    expect(vi.mocked(issueDteAsync).mock.calls[0]![1]).toMatchObject({ folio: dte.folio, caf: kit.cafs[33], now: TEST_NOW });
    expect(dte).toMatchObject({
      tenantId: tenant.id,
      tipoDte: 33,
      status: 'created',
      fechaEmision: prepared.fechaEmision,
      receptor: prepared.stored.receptor,
      detalle: prepared.stored.detalle,
      referencias: [],
      formaPago: null,
      montoNeto: prepared.totals.montoNeto,
      montoExento: prepared.totals.montoExento,
      iva: prepared.totals.iva,
      montoTotal: prepared.totals.montoTotal,
    });
    expect(dte.receptor.rut).toBe('77777777-7');
    const xml = await dteStore.getXml(tdb.db, tenant.account_id, tenant.id, dte.id);
    expect(xml?.equals(issued.xml)).toBe(true);
  });

  it('uses the strategy for boletas: no receptor needed, no forma de pago stored', async () => {
    const dte = await create(tenant, body(39, { receptor: undefined, formaPago: 2 }));
    expect(dte.receptor.rut).toBe('66666666-6');
    expect(dte.formaPago).toBeNull();
    expect(folios.calls.reserve).toEqual([39]);
    expect(issueDteAsync).toHaveBeenCalledTimes(1);
  });

  it('reserves no folio for bad input, whether the request checks or the engine refuse it', async () => {
    const good = body(33);
    const cases: [CreateDte, string][] = [
      [{ ...good, montoTotal: good.montoTotal + 1 }, 'amount_mismatch'],
      [{ ...good, receptor: undefined }, 'required_field'],
      [{ ...good, tipoDte: 44 }, 'unsupported_tipo_dte'],
      [body(61), 'references_required'],
      [
        body(33, { detalle: [{ nombre: 'Café ☕', cantidad: 1, precioUnitario: 1000, montoItem: 1000 }], montoTotal: 1190 }),
        'unsupported_character',
      ],
    ];
    for (const [b, code] of cases) expect(await codeOf(create(tenant, b)), code).toBe(code);
    // Only the engine case reached the engine; none reached a folio or the issue step.
    expect(prepareDte).toHaveBeenCalledTimes(1);
    expect(folios.calls.reserve).toEqual([]);
    expect(issueDteAsync).not.toHaveBeenCalled();
  });

  it('reports a tenant without activity codes after readiness, and spends no folio on it', async () => {
    const bare: TenantRow = { ...tenant, acteco: [] };
    expect(await codeOf(create(bare, body(33)))).toBe('tenant_acteco_missing');
    expect(await codeOf(create({ ...bare, status: 'pending_credentials' }, body(33)))).toBe('tenant_not_ready');
    expect(await codeOf(create({ ...bare, status: 'pending_credentials' }, { ...body(33), montoTotal: 1 }))).toBe('amount_mismatch');
    expect(folios.calls.reserve).toEqual([]);
    expect(issueDteAsync).not.toHaveBeenCalled();
    // A boleta needs no activity codes.
    await create(bare, body(39, { receptor: undefined }));
    expect(folios.calls.reserve).toEqual([39]);
  });

  it('releases the folio when the issue step fails, and stores nothing', async () => {
    cafOf = () => kit.cafs[34]; // a CAF of another type: the stamp refuses it
    expect(await codeOf(create(tenant, body(33)))).toBe('caf_type_mismatch');
    expect(prepareDte).toHaveBeenCalledTimes(1);
    expect(issueDteAsync).toHaveBeenCalledTimes(1);
    expect(folios.calls.reserve).toEqual([33]);
    expect(folios.calls.release).toEqual([{ tipoDte: 33, folio: nextFolio - 1 }]);
    expect(folios.calls.markUsed).toBe(0);
  });

  it('stores nothing when the reservation lapsed before the insert', async () => {
    folios.lapse = true;
    const before = await tdb.db.query<{ n: number }>('select count(*)::int as n from dtes');
    expect(await codeOf(create(tenant, body(33)))).toBe('folio_reservation_expired');
    const after = await tdb.db.query<{ n: number }>('select count(*)::int as n from dtes');
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
    expect(issueDteAsync).toHaveBeenCalledTimes(1);
  });

  it('stores concurrent creates together; a member whose folio lapsed, or whose row is refused, fails alone', async () => {
    const base = nextFolio;
    nextFolio += 6;
    // The 5th create gets the 2nd one's folio (a row the table refuses: dtes_folio_once); the 3rd one's reservation lapsed.
    folios.folioFor = (n) => (n === 4 ? base + 1 : base + n);
    folios.lapsed.add(base + 2);
    const settled = await Promise.allSettled(Array.from({ length: 6 }, () => create(tenant, body(33))));
    const outcome = settled.map((r) => (r.status === 'fulfilled' ? r.value.folio : ((r.reason as { code?: string }).code ?? 'error')));
    // The 2nd and the 5th want the same folio: whichever is stored first keeps it, the other one
    // alone gets the refusal (23505, unique violation) and the rest of its batch is stored.
    const [second, fifth] = [outcome[1], outcome[4]];
    expect([second, fifth].sort()).toEqual([base + 1, '23505'].sort());
    expect([outcome[0], outcome[2], outcome[3], outcome[5]]).toEqual([base, 'folio_reservation_expired', base + 3, base + 5]);
    const rows = await tdb.db.query<{ folio: number }>('select folio::int as folio from dtes where folio >= $1 order by folio', [base]);
    expect(rows.rows.map((r) => r.folio)).toEqual([base, base + 1, base + 3, base + 5]);
  });

  it('answers the stored DTE when its batch committed but the answer was lost (never a second document)', async () => {
    // The store statement runs and commits, then the connection "drops" before its answer.
    const query = tdb.db.query.bind(tdb.db);
    let dropped = 0;
    tdb.db.query = (async (text: string, params?: readonly unknown[]) => {
      const r = await query(text, params);
      if (text.includes('insert into dtes') && dropped++ === 0) throw new Error('Connection terminated unexpectedly');
      return r;
    }) as typeof tdb.db.query;
    try {
      const before = await query<{ n: number }>('select count(*)::int as n from dtes');
      const dte = await create(tenant, body(33));
      const after = await query<{ n: number }>('select count(*)::int as n from dtes');
      expect(after.rows[0]!.n).toBe(before.rows[0]!.n + 1);
      expect(folios.calls.release).toEqual([]);
      expect(Number((await dteStore.get(tdb.db, tenant.account_id, dte.id))?.folio)).toBe(dte.folio);
    } finally {
      tdb.db.query = query;
    }
  });

  it('answers the stored DTE when a batch of several committed but its answer was lost', async () => {
    // The batch's members are each run again alone; each finds its folio used (no reservation
    // left, what the real step does), stores nothing, and answers the DTE its batch stored.
    const query = tdb.db.query.bind(tdb.db);
    let dropped = 0;
    tdb.db.query = (async (text: string, params?: readonly unknown[]) => {
      const r = await query(text, params);
      if (text.includes('insert into dtes') && dropped++ === 0) throw new Error('Connection terminated unexpectedly');
      return r;
    }) as typeof tdb.db.query;
    folios.markUsedSql = (docs) => {
      folios.calls.markUsed++;
      return `select d.id as dte_id from ${docs} d where not exists (select 1 from dtes x where x.id = d.id)`;
    };
    try {
      const before = await query<{ n: number }>('select count(*)::int as n from dtes');
      const dtes = await Promise.all(Array.from({ length: 4 }, () => create(tenant, body(33))));
      const after = await query<{ n: number }>('select count(*)::int as n from dtes');
      expect(after.rows[0]!.n).toBe(before.rows[0]!.n + 4);
      expect(new Set(dtes.map((d) => d.id)).size).toBe(4);
      expect(folios.calls.release).toEqual([]);
    } finally {
      tdb.db.query = query;
    }
  });

  it('voids the folio at once when the document is not stored because its binding was refused', async () => {
    const refused = Object.assign(new Error('form already submitted'), { code: 'form_already_submitted' });
    expect(
      await codeOf(
        create(tenant, body(33), {
          bindResult: async () => {
            throw refused;
          },
        }),
      ),
    ).toBe('form_already_submitted');
    expect(folios.calls.release).toEqual([{ tipoDte: 33, folio: nextFolio - 1 }]);
  });

  it('stores concurrent creates in fewer statements than creates', async () => {
    const dtes = await Promise.all(Array.from({ length: 8 }, () => create(tenant, body(33))));
    expect(new Set(dtes.map((d) => d.folio)).size).toBe(8);
    expect(folios.calls.markUsed).toBeLessThan(8);
    for (const d of dtes) expect(await dteStore.getXml(tdb.db, tenant.account_id, tenant.id, d.id)).toBeInstanceOf(Buffer);
  });
});
