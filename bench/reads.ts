/**
 * Authenticated-read throughput: GET /api/v1/tenants/{id} with an API key, measured with
 * autocannon (a real HTTP load generator) against the service running as its own process.
 */
import autocannon from 'autocannon';
import { createAccount, freshPostgresUrl, startServer, UNLIMITED_RATES } from './lib/server.ts';

export interface ReadsResult {
  backend: 'pglite' | 'postgres';
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  peakRssMb: number | undefined;
}

export async function runReadsBench(opts: {
  backend: 'pglite' | 'postgres';
  seconds?: number;
  connections?: number;
}): Promise<ReadsResult> {
  const pg =
    opts.backend === 'postgres'
      ? await freshPostgresUrl(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test')
      : undefined;
  const env: Record<string, string> = { ...UNLIMITED_RATES };
  if (pg) {
    env.DATABASE_URL = pg.url;
    const crypto = await import('node:crypto');
    env.DATA_ENCRYPTION_KEY = `k1:${crypto.randomBytes(32).toString('base64')}`;
    env.SECRETS_ENCRYPTION_KEY = `k1:${crypto.randomBytes(32).toString('base64')}`;
  }
  const server = await startServer(env);
  try {
    const { apiKey } = await createAccount(server);
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const created = await fetch(`${server.url}/api/v1/tenants`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        rutEmpresa: '76.192.083-9',
        razonSocial: 'Bench SpA',
        giro: 'Software',
        direccion: 'Calle 1',
        comuna: 'Santiago',
        ciudad: 'Santiago',
        numeroResolucion: 0,
        fechaResolucion: '2020-01-01',
      }),
    });
    const tenant = (await created.json()) as { id: string };
    const result = await autocannon({
      url: `${server.url}/api/v1/tenants/${tenant.id}`,
      headers,
      connections: opts.connections ?? 32,
      duration: opts.seconds ?? 10,
    });
    const { peakRssMb } = await server.stop();
    return {
      backend: opts.backend,
      requestsPerSecond: Math.round(result.requests.average),
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      errors: result.errors,
      non2xx: result.non2xx,
      peakRssMb,
    };
  } finally {
    await server.stop().catch(() => {});
    await pg?.drop();
  }
}

if (import.meta.main) {
  for (const backend of ['pglite', 'postgres'] as const)
    console.log(await runReadsBench({ backend, seconds: Number(process.env.BENCH_SECONDS ?? 10) }));
}
