import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMany, readyTenantOverHttp, sendAndConfirm } from '../support/bulk.ts';
import { startE2eStack, type E2eStack, type EmulatorProc } from '../support/processes.ts';
import { callDeltas, emulatorCalls, type CallDeltas } from '../support/emulator-stats.ts';

/**
 * Issuing at SimpleAPI's production rate limits (docs/emulator.md, "Rate limits"): the service on
 * PostgreSQL with PROVIDER=simpleapi against the standalone emulator enforcing 3/s and 40/min on
 * the DTE host and 1/s, 5/min, 100/h on servicios, per key. Folio requests for five types go back
 * to back; 1,000 facturas and 500 boletas are created, sent in batches of 500 and all confirmed,
 * none failed or rejected because of a 429; the provider calls are counted by the emulator.
 */
const SKIP = !process.env.TEST_DATABASE_URL;
const title = SKIP
  ? 'issuing at production rate limits — SKIPPED: set TEST_DATABASE_URL to run it'
  : 'issuing at production rate limits: service on PostgreSQL + standalone emulator';

describe.skipIf(SKIP)(title, () => {
  let stack: E2eStack;
  let emu: EmulatorProc;
  let api: E2eStack['api'];
  let tenantId: string;

  beforeAll(async () => {
    stack = await startE2eStack({
      emulatorDelay: '1000',
      env: {
        SIMPLEAPI_RATE_LIMITS: 'production',
        FOLIO_REQUEST_WAIT: '30s',
        // Our own per-key limit is not what this test is about.
        RATE_LIMIT_PER_SECOND: '100000',
        RATE_LIMIT_BURST: '100000',
        ACCOUNT_RATE_LIMIT_PER_SECOND: '100000',
        ACCOUNT_RATE_LIMIT_BURST: '100000',
      },
    });
    ({ emu, api } = stack);
    tenantId = await readyTenantOverHttp(api, `sandbox-ok-limits-${crypto.randomUUID()}`);
  }, 120_000);

  afterAll(() => stack?.stop());

  it('five folio requests back to back all succeed (servicios allows 1/s and 5/min)', async () => {
    const before = await emulatorCalls(emu.url);
    const wanted: [number, number][] = [
      [33, 1000],
      [39, 500],
      [61, 10],
      [56, 10],
      [34, 10],
    ];
    for (const [tipoDte, cantidad] of wanted) {
      const f = await api('POST', `/api/v1/tenants/${tenantId}/folios/request`, { tipoDte, cantidad });
      expect(f.status, f.body.toString()).toBe(201);
      expect(f.json).toMatchObject({ status: 'completed', rango: { desde: 1, hasta: cantidad } });
    }
    const after = await emulatorCalls(emu.url);
    expect(after.route('folios') - before.route('folios')).toBe(5);
  }, 120_000);

  const report = (what: string, n: number, d: CallDeltas, ms: number) => {
    const per1000 = (d.calls / n) * 1000;
    console.log(
      `[provider-limits] ${n} ${what}: confirmed in ${(ms / 1000).toFixed(1)} s with ${d.calls} provider calls ` +
        `(${per1000.toFixed(1)} per 1,000; uploads ${d.uploads}, envelope queries ${d.envelopeQueries}, ` +
        `document queries ${d.documentQueries}, 429 answers ${d.tooMany})`,
    );
    return per1000;
  };

  it.each([
    { what: 'facturas', tipo: 33 as const, n: 1000 },
    { what: 'boletas', tipo: 39 as const, n: 500 },
  ])(
    '$n $what are created, sent in batches and all confirmed with at most 10 provider calls per 1,000 and no 429',
    async ({ what, tipo, n }) => {
      const ids = await createMany(api, tenantId, tipo, n);
      const before = await emulatorCalls(emu.url);
      const r = await sendAndConfirm(api, tenantId, ids);
      const d = callDeltas(before, await emulatorCalls(emu.url));
      expect(r.pending).toBe(0);
      expect(r.counts).toEqual({ accepted: n });
      expect(report(what, n, d, r.ms)).toBeLessThanOrEqual(10);
      // The pacer keeps under the limits: the provider never had to refuse a call.
      expect(d.tooMany).toBe(0);
    },
    300_000,
  );
});
