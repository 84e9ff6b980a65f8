import crypto from 'node:crypto';
import { openTestDb, type Backend, type TestDb } from './db.ts';
import { createTestCaf, createTestSii, type TestSii } from './dte/test-caf.ts';
import type { Db } from '../../src/db/types.ts';
import { siiDate } from '../../src/dte/index.ts';
import { manualClock } from '../../src/lib/clock.ts';
import type { Provider } from '../../src/provider/port.ts';
import { createEnvelope, generateKeySpec, parseKeyring } from '../../src/secrets/envelope.ts';
import type { TenantRow } from '../../src/modules/tenants/index.ts';
import { FOLIO_REQUEST_QUEUE } from '../../src/modules/folios/folios.request.ts';
import { createFoliosService, type FoliosDeps, type FoliosService } from '../../src/modules/folios/folios.service.ts';

/**
 * Test-only: the folios service on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL),
 * with an account, a ready tenant, and a stand-in provider whose CAFs are signed by a test SII.
 * No worker runs: tests run the request jobs themselves (`runJobs`), so they decide when a
 * request completes.
 */
export const RUT_EMPRESA = '76.192.083-9';

let sii: TestSii | undefined;

export interface FoliosHarness {
  tdb: TestDb;
  db: Db;
  clock: ReturnType<typeof manualClock>;
  folios: FoliosService;
  accountId: string;
  tenant: TenantRow;
  /** Runs every queued folio request job once, as a worker would. */
  runJobs(): Promise<void>;
  /** A completed request of `cantidad` folios of a type (through the request and its job). */
  grant(tipoDte: number, cantidad: number): Promise<void>;
  /** The data of every folio.low event, oldest first. */
  lowEvents(): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export async function foliosHarness(
  backend: Backend,
  over: Partial<Pick<FoliosDeps, 'requestWaitMs' | 'sleep' | 'provider'>> = {},
): Promise<FoliosHarness> {
  sii ??= createTestSii();
  const testSii = sii;
  const tdb = await openTestDb(backend);
  const db = tdb.db;
  const clock = manualClock('2026-03-02T15:00:00.000Z');
  const accountId = crypto.randomUUID();
  const tenantId = crypto.randomUUID();
  await db.query('insert into accounts (id, name, email, created_at, updated_at) values ($1, $2, $3, $4, $4)', [
    accountId,
    'Folios test',
    `${accountId}@example.test`,
    clock.now(),
  ]);
  await db.query(
    `insert into tenants (id, account_id, rut_empresa, razon_social, giro, direccion, comuna, ciudad, numero_resolucion, fecha_resolucion,
       ambiente, status, api_key_verified_at, certificate_configured, created_at, updated_at)
     values ($1, $2, $3, 'X SpA', 'Software', 'Calle 1', 'Santiago', 'Santiago', 0, '2020-01-01', 'certificacion', 'active', $4, true, $4, $4)`,
    [tenantId, accountId, RUT_EMPRESA, clock.now()],
  );
  const tenant = (await db.query<TenantRow>('select * from tenants where id = $1', [tenantId])).rows[0]!;

  // The SII numbers folios per RUT: each CAF continues where the last one ended.
  let next = 1;
  const provider: Pick<Provider, 'requestCaf'> = over.provider ?? {
    async requestCaf(_creds, req) {
      const desde = next;
      next += req.cantidad;
      const fechaAutorizacion = siiDate(clock.now());
      return { cafXml: createTestCaf({ sii: testSii, tipoDte: req.tipoDte, desde, hasta: next - 1, fechaAutorizacion }).xml };
    },
  };
  const folios = createFoliosService({
    db,
    clock,
    provider,
    credentials: {
      getProviderCredentials: async () => ({
        apiKey: 'test-key',
        via: 'simpleapi',
        livemode: true,
        pfx: Buffer.alloc(0),
        pfxPassword: '',
        rutCertificado: '12345678-5',
      }),
    },
    dataCipher: createEnvelope(parseKeyring(generateKeySpec())),
    cafKeys: testSii.siiKeys,
    getTenant: async (a, t) => {
      const r = await db.query<TenantRow>('select * from tenants where account_id = $1 and id = $2', [a, t]);
      if (!r.rows[0]) throw new Error('no such tenant');
      return r.rows[0];
    },
    requestWaitMs: over.requestWaitMs ?? 0,
    reservationTimeoutMs: 600_000,
    ...(over.sleep ? { sleep: over.sleep } : {}),
  });

  const runJobs = async () => {
    const jobs = await db.query<{ payload: Record<string, unknown> | string }>(`delete from jobs where queue = $1 returning payload`, [
      FOLIO_REQUEST_QUEUE,
    ]);
    for (const j of jobs.rows) {
      const payload = typeof j.payload === 'string' ? (JSON.parse(j.payload) as Record<string, unknown>) : j.payload;
      await folios.runRequestJob(payload, { attempts: 1, max_attempts: 5 });
    }
  };

  return {
    tdb,
    db,
    clock,
    folios,
    accountId,
    tenant,
    runJobs,
    async grant(tipoDte, cantidad) {
      await folios.request(tenant, { tipoDte, cantidad });
      await runJobs();
    },
    async lowEvents() {
      const r = await db.query<{ payload: string }>(
        `select payload from outbox_events where event_type = 'folio.low' order by created_at, id`,
      );
      return r.rows.map((x) => (JSON.parse(x.payload) as { data: Record<string, unknown> }).data);
    },
    close: () => tdb.close(),
  };
}
