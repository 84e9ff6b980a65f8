/**
 * End-to-end DTE creation throughput over HTTP: POST /api/v1/tenants/{id}/dte against the service
 * running as its own process (embedded emulator as provider), measured with autocannon. Every
 * request allocates a folio, builds the XML, stamps the TED with the CAF key and signs with the
 * tenant's RSA-2048 certificate, and commits the DTE with its folio.
 *
 *   node bench/dte-http.ts                      both backends, 10 s each
 *   BENCH_SECONDS=30 BENCH_CONNECTIONS=32 node bench/dte-http.ts
 *   BENCH_DATABASE_URL=postgres://… for the PostgreSQL run (default postgres://postgres@127.0.0.1:5432/test)
 *   BENCH_BACKENDS=postgres                     one backend only
 *   BENCH_PROFILE_DIR=/tmp/prof                 the server runs with --cpu-prof, its profile lands there
 */
import crypto from 'node:crypto';
import { computeDv, computeTotals, formatRutDotted } from '../src/dte/index.ts';
import { createTestCertificate } from '../test/support/dte/test-certificate.ts';
import pg from 'pg';
import { runLoad } from './lib/load.ts';
import { createAccount, freshPostgresUrl, readCpuMicros, startServer, UNLIMITED_RATES } from './lib/server.ts';

// A type alias (not an interface), so it fits bench/run.ts's generic Record<string, unknown>.
export type DteHttpResult = {
  backend: 'pglite' | 'postgres';
  seconds: number;
  connections: number;
  documentsPerSecond: number;
  created: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  /**
   * Folios handed out during the run: `created` plus the creates still in flight when the load
   * generator stopped counting (they complete, and their answers are not counted).
   */
  foliosUsed: number;
  peakRssMb: number | undefined;
  /**
   * CPU time (user + system) per created document: the server process (with its PGlite), and on
   * PostgreSQL the database's backends serving that server (found by application_name). Steadier
   * than docs/s on a shared machine: other load slows the run but adds little CPU to these processes.
   */
  cpuMicrosPerDoc: { server: number; postgres?: number };
  /** PostgreSQL only: rows inserted + updated + deleted in the run's schema per created document. */
  rowsWrittenPerDoc?: number;
};

/** The PostgreSQL backends of the server (its pool's connections carry `application_name`). */
async function backendCpuMicros(base: string, appName: string): Promise<number> {
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    const r = await c.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [appName]);
    return r.rows.reduce((sum, { pid }) => sum + (readCpuMicros(pid) ?? 0), 0);
  } finally {
    await c.end();
  }
}

async function rowsWritten(base: string, schema: string): Promise<number> {
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    const r = await c.query<{ w: string }>(
      'select coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::text as w from pg_stat_user_tables where schemaname = $1',
      [schema],
    );
    return Number(r.rows[0]!.w);
  } finally {
    await c.end();
  }
}

const PASSWORD = 'bench-pfx-password';

function body(): string {
  const detalle = [
    { nombre: 'Servicio de desarrollo', cantidad: 10, precioUnitario: 35000 },
    { nombre: 'Licencia anual', cantidad: 1.5, precioUnitario: 12990.5 },
    { nombre: 'Capacitación', cantidad: 2, precioUnitario: 45000, exento: true },
  ];
  const t = computeTotals(33, detalle);
  return JSON.stringify({
    tipoDte: 33,
    receptor: {
      rut: '77.777.777-7',
      razonSocial: 'Cliente de Prueba SpA',
      giro: 'Comercio',
      direccion: 'Calle 1',
      comuna: 'Santiago',
      ciudad: 'Santiago',
    },
    detalle: detalle.map((l, i) => ({ ...l, montoItem: t.lineas[i] })),
    montoTotal: t.montoTotal,
  });
}

export async function runDteHttpBench(opts: {
  backend: 'pglite' | 'postgres';
  seconds?: number;
  connections?: number;
}): Promise<DteHttpResult> {
  const seconds = opts.seconds ?? 10;
  const connections = opts.connections ?? 16;
  const pg =
    opts.backend === 'postgres'
      ? await freshPostgresUrl(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test')
      : undefined;
  const schema = pg ? /search_path=(\w+)/.exec(decodeURIComponent(pg.url))![1]! : undefined;
  const env: Record<string, string> = { ...UNLIMITED_RATES, EMULATOR_DELAY: '0' };
  // A CPU profile of the server (and of the CLI call that creates the account) lands there.
  if (process.env.BENCH_PROFILE_DIR) env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`;
  const pgBase = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const appName = `bench-dte-${process.pid}-${Date.now()}`;
  if (pg) {
    const u = new URL(pg.url);
    u.searchParams.set('application_name', appName);
    env.DATABASE_URL = u.toString();
    env.DATA_ENCRYPTION_KEY = `k1:${crypto.randomBytes(32).toString('base64')}`;
    env.SECRETS_ENCRYPTION_KEY = `k1:${crypto.randomBytes(32).toString('base64')}`;
  }
  const server = await startServer(env);
  try {
    const { apiKey } = await createAccount(server);
    const call = async (method: string, path: string, payload?: unknown, extra: RequestInit = {}) => {
      const r = await fetch(server.url + path, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(payload !== undefined ? { body: JSON.stringify(payload) } : {}),
        ...extra,
      });
      const json = (await r.json()) as Record<string, unknown>;
      if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
      return json;
    };
    const rutBody = 50_000_000 + crypto.randomInt(49_000_000);
    const tenant = await call('POST', '/api/v1/tenants', {
      rutEmpresa: formatRutDotted(`${rutBody}-${computeDv(rutBody)}`),
      razonSocial: 'Bench SpA',
      giro: 'Software',
      direccion: 'Calle 1',
      comuna: 'Santiago',
      ciudad: 'Santiago',
      numeroResolucion: 0,
      fechaResolucion: '2020-01-01',
      acteco: [620200],
    });
    const tenantId = tenant.id as string;
    await call('POST', `/api/v1/tenants/${tenantId}/credentials/api-key`, { apiKey: 'bench-sandbox-key-01' });
    const cert = createTestCertificate({ rut: '12345678-5', notBefore: new Date(Date.now() - 86_400_000) });
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(cert.toPfx(PASSWORD))]), 'bench.pfx');
    form.append('password', PASSWORD);
    form.append('rutCertificado', '12.345.678-5');
    form.append('nombreTitular', 'Titular de Prueba');
    form.append('fechaVencimiento', cert.notAfter.toISOString().slice(0, 10));
    await call('POST', `/api/v1/tenants/${tenantId}/credentials/certificate`, undefined, { body: form });
    // Enough folios for a fast machine; a run that uses them up shows as non-2xx (folios_exhausted).
    const cafs = Math.max(2, Math.ceil((seconds * 2000) / 1000));
    for (let i = 0; i < cafs; i++) await call('POST', `/api/v1/tenants/${tenantId}/folios/request`, { tipoDte: 33, cantidad: 1000 });

    const cpuBefore = readCpuMicros(server.pid) ?? NaN;
    const pgCpuBefore = pg ? await backendCpuMicros(pgBase, appName) : undefined;
    const rowsBefore = schema ? await rowsWritten(pgBase, schema) : undefined;
    // The load generator runs in a process of its own (bench/lib/load.ts).
    const result = await runLoad({
      url: `${server.url}/api/v1/tenants/${tenantId}/dte`,
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: body(),
      connections,
      duration: seconds,
    });
    // The inventory counts usable ranges only (a used-up CAF drops out): folios handed out =
    // everything requested minus what is left.
    // In-flight creates finish before these are read (the inventory call queues behind them).
    const inv = (await call('GET', `/api/v1/tenants/${tenantId}/folios`)) as { data: { disponibles: number }[] };
    const foliosUsed = cafs * 1000 - (inv.data[0]?.disponibles ?? 0);
    const serverCpu = (readCpuMicros(server.pid) ?? NaN) - cpuBefore;
    const pgCpu = pg ? (await backendCpuMicros(pgBase, appName)) - pgCpuBefore! : undefined;
    if (schema) await new Promise((r) => setTimeout(r, 1500)); // backends report table statistics within a second
    const rows = schema ? (await rowsWritten(pgBase, schema)) - rowsBefore! : undefined;
    const { peakRssMb } = await server.stop();
    const created = result['2xx'];
    return {
      backend: opts.backend,
      seconds,
      connections,
      documentsPerSecond: Math.round((created / (result.duration || seconds)) * 10) / 10,
      created,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      errors: result.errors,
      non2xx: result.non2xx,
      foliosUsed,
      peakRssMb,
      cpuMicrosPerDoc: {
        server: Math.round(serverCpu / foliosUsed),
        ...(pgCpu !== undefined ? { postgres: Math.round(pgCpu / foliosUsed) } : {}),
      },
      ...(rows !== undefined ? { rowsWrittenPerDoc: Math.round((rows / foliosUsed) * 100) / 100 } : {}),
    };
  } finally {
    await server.stop().catch(() => {});
    await pg?.drop();
  }
}

if (import.meta.main) {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
  const backends = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',') as ('pglite' | 'postgres')[];
  for (const backend of backends) console.log(await runDteHttpBench({ backend, seconds, connections }));
}
