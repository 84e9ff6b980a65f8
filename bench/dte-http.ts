/**
 * End-to-end DTE creation throughput over HTTP: POST /api/v1/tenants/{id}/dte against the service
 * running as its own process (embedded emulator as provider), measured with autocannon. Every
 * request allocates a folio, builds the XML, stamps the TED with the CAF key and signs with the
 * tenant's RSA-2048 certificate, and commits the DTE with its folio.
 *
 *   node bench/dte-http.ts                      both backends, 10 s each
 *   BENCH_SECONDS=30 BENCH_CONNECTIONS=32 node bench/dte-http.ts
 *   BENCH_DATABASE_URL=postgres://… for the PostgreSQL run (default postgres://postgres@127.0.0.1:5432/test)
 */
import crypto from 'node:crypto';
import autocannon from 'autocannon';
import { computeDv, computeTotals, formatRutDotted } from '../src/dte/index.ts';
import { createTestCertificate } from '../test/support/dte/test-certificate.ts';
import { createAccount, freshPostgresUrl, startServer, UNLIMITED_RATES } from './lib/server.ts';

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
};

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
  const env: Record<string, string> = { ...UNLIMITED_RATES, EMULATOR_DELAY: '0' };
  if (pg) {
    env.DATABASE_URL = pg.url;
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

    const result = await autocannon({
      url: `${server.url}/api/v1/tenants/${tenantId}/dte`,
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: body(),
      connections,
      duration: seconds,
    });
    // The inventory counts usable ranges only (a used-up CAF drops out): folios handed out =
    // everything requested minus what is left.
    const inv = (await call('GET', `/api/v1/tenants/${tenantId}/folios`)) as { data: { disponibles: number }[] };
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
      foliosUsed: cafs * 1000 - (inv.data[0]?.disponibles ?? 0),
      peakRssMb,
    };
  } finally {
    await server.stop().catch(() => {});
    await pg?.drop();
  }
}

if (import.meta.main) {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
  for (const backend of ['pglite', 'postgres'] as const) console.log(await runDteHttpBench({ backend, seconds, connections }));
}
