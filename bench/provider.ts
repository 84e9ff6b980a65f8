/**
 * Confirming documents at SimpleAPI's documented rate limits (docs/emulator.md, "Rate limits"):
 * the service (PGlite, PROVIDER=simpleapi) against the standalone emulator enforcing them, 1,000
 * facturas created, sent in two batches of 500 and followed to their verdict. Reports the provider
 * calls per 1,000 documents confirmed (counted by the emulator) and the time from the first send to
 * the last verdict. The emulator takes EMULATOR_DELAY (here 1 s) to process an envelope; the SII
 * itself takes from seconds to minutes, so the time is a floor for production.
 */
import crypto from 'node:crypto';
import { createMany, readyTenantOverHttp, sendAndConfirm } from '../test/support/bulk.ts';
import { callDeltas, emulatorCalls } from '../test/support/emulator-stats.ts';
import { apiClient, startEmulatorProcess } from '../test/support/processes.ts';
import { createAccount, startServer, UNLIMITED_RATES } from './lib/server.ts';

export interface ProviderBenchResult {
  documents: number;
  confirmed: number;
  callsPer1000: number;
  uploads: number;
  envelopeQueries: number;
  documentQueries: number;
  tooMany: number;
  secondsToConfirm: number;
}

export async function runProviderBench(opts: { documents?: number } = {}): Promise<ProviderBenchResult> {
  const n = opts.documents ?? 1000;
  const emu = await startEmulatorProcess({ delay: '1000' });
  const server = await startServer({
    ...UNLIMITED_RATES,
    PROVIDER: 'simpleapi',
    SIMPLEAPI_BASE_URL: emu.url,
    SIMPLEAPI_SERVICIOS_URL: emu.url,
    EMULATOR_SII_PUBLIC_KEY: emu.siiPublicKey,
    SIMPLEAPI_RATE_LIMITS: 'production',
  });
  try {
    const api = apiClient(server.url, (await createAccount(server)).apiKey);
    const tenantId = await readyTenantOverHttp(api, `bench-limits-${crypto.randomUUID()}`);
    for (let left = n; left > 0; left -= 1000) {
      const f = await api('POST', `/api/v1/tenants/${tenantId}/folios/request`, { tipoDte: 33, cantidad: Math.min(1000, left) });
      if (f.status !== 201) throw new Error(`folios: ${f.status} ${f.body.toString()}`);
    }
    const ids = await createMany(api, tenantId, 33, n);
    const before = await emulatorCalls(emu.url);
    const r = await sendAndConfirm(api, tenantId, ids);
    const after = await emulatorCalls(emu.url);
    const { calls, ...byRoute } = callDeltas(before, after);
    return {
      documents: n,
      confirmed: r.counts.accepted ?? 0,
      callsPer1000: Math.round((calls / n) * 1000 * 10) / 10,
      ...byRoute,
      secondsToConfirm: Math.round(r.ms / 100) / 10,
    };
  } finally {
    await server.stop();
    await emu.stop();
  }
}
