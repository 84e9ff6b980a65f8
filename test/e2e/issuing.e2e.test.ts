import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPPORTED_TIPOS_DTE, type TipoDte } from '../../src/dte/index.ts';
import { runCheckSiiXml } from '../support/dte/check-sii-xml.ts';
import { readyTenantOverHttp } from '../support/bulk.ts';
import { dteBody, SANDBOX_API_KEY } from '../support/issuing.ts';
import { startE2eStack, type E2eStack, type EmulatorProc } from '../support/processes.ts';

/**
 * The typical flow across processes, as deployed: the service (`node src/main.ts`) on PostgreSQL
 * with PROVIDER=simpleapi, talking over real sockets to the standalone emulator
 * (`dte emulator --port P`). Everything goes through the public API, credentials included.
 */
const SKIP = !process.env.TEST_DATABASE_URL;
const title = SKIP
  ? 'issuing across processes — SKIPPED: set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run it'
  : 'issuing across processes: service on PostgreSQL + standalone emulator over HTTP';

describe.skipIf(SKIP)(title, () => {
  let stack: E2eStack;
  let emu: EmulatorProc;
  let api: E2eStack['api'];

  beforeAll(async () => {
    stack = await startE2eStack({
      // SimpleAPI's limits (1 folio request/s, 5/min per key) off, on both sides: the twelve types'
      // folio requests would wait two minutes for them. Pacing to them is tested on its own
      // (src/provider/simpleapi/pacing.test.ts, test/e2e/provider-limits.e2e.test.ts).
      env: { SIMPLEAPI_RETRIES: '2', SIMPLEAPI_RATE_LIMITS: 'off' },
      emulatorEnv: { SIMPLEAPI_RATE_LIMITS: 'off' },
    });
    ({ emu, api } = stack);
  }, 120_000);

  afterAll(() => stack?.stop());

  it('tenant → credentials → folios → one DTE of every type → send → final states; stored XML passes check-sii-xml', async () => {
    const tenantId = await readyTenantOverHttp(api, SANDBOX_API_KEY);
    expect((await api('GET', `/api/v1/tenants/${tenantId}/credentials/status`)).json.ready).toBe(true);

    for (const tipoDte of SUPPORTED_TIPOS_DTE) {
      const f = await api('POST', `/api/v1/tenants/${tenantId}/folios/request`, { tipoDte, cantidad: 3 });
      expect(f.status, f.body.toString()).toBe(201);
      expect(f.json).toMatchObject({ status: 'completed', rango: { desde: 1, hasta: 3 } });
    }

    const ids = new Map<number, string>();
    const create = async (tipo: TipoDte, over: Record<string, unknown> = {}) => {
      const r = await api('POST', `/api/v1/tenants/${tenantId}/dte`, dteBody(tipo, over));
      expect(r.status, r.body.toString()).toBe(201);
      ids.set(tipo, r.json.id as string);
      return r.json;
    };
    const factura = await create(33);
    const ref = [{ tipoDocRef: 33, folioRef: factura.folio, fechaRef: factura.fechaEmision, codRef: 1, razonRef: 'Anula factura' }];
    for (const tipo of [34, 39, 41, 46, 52] as const) await create(tipo);
    for (const tipo of [56, 61] as const) await create(tipo, { referencias: ref });

    const sent = await api('POST', `/api/v1/tenants/${tenantId}/dte/send`, { dteIds: [...ids.values()] });
    expect(sent.status, sent.body.toString()).toBe(202);
    const envios = sent.json.envios as { id: string; tipoEnvio: string; trackId: string | null }[];
    expect(envios.map((e) => e.tipoEnvio).sort()).toEqual(['EnvioBOLETA', 'EnvioDTE']);

    const deadline = Date.now() + 60_000;
    for (const [tipo, id] of ids) {
      let s;
      for (;;) {
        s = (await api('GET', `/dte/${id}/status`)).json;
        if (!['created', 'sending', 'sent'].includes(s.status as string) || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(s, `type ${tipo}`).toMatchObject({ id, tipoDte: tipo, folio: 1, status: 'accepted', sii: { estado: 'DOK' } });
      expect(s.trackId).toMatch(/^\d+$/);
    }

    const files: { name: string; bytes: Buffer }[] = [];
    for (const tipo of [33, 34, 46, 52, 56, 61]) {
      const r = await api('GET', `/api/v1/tenants/${tenantId}/dte/${ids.get(tipo)}/xml`);
      expect(r.headers.get('content-type')).toBe('application/xml; charset=ISO-8859-1');
      files.push({ name: `dte-${tipo}.xml`, bytes: r.body });
    }
    for (const e of envios)
      files.push({ name: `${e.tipoEnvio}.xml`, bytes: (await api('GET', `/api/v1/tenants/${tenantId}/dte/envios/${e.id}/xml`)).body });
    const check = runCheckSiiXml(files, { cafKeyPem: fs.readFileSync(emu.siiPublicKey, 'utf8') });
    expect(check.failures, check.output).toEqual([]);
    expect(check.exitCode).toBe(0);
  }, 300_000); // a whole flow across three processes, twelve types and their check: its own timeout
});
