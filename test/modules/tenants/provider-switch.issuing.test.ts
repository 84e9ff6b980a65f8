import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createInProcessEmulator, type InProcessEmulator } from '../../../src/provider/emulator/inprocess.ts';
import { schemaValidatorFrom } from '../../../src/provider/emulator/schemas.ts';
import { loadOrCreateSiiKey } from '../../../src/provider/emulator/sii-key.ts';
import type { Provider, ProviderCredentials } from '../../../src/provider/port.ts';
import { createRoutedProvider } from '../../../src/provider/routed.ts';
import { cafTrust } from '../../../src/provider/sii-keys.ts';
import { describeEachDb } from '../../support/db.ts';
import {
  dteBody,
  readyTenant,
  requestFolios,
  SANDBOX_API_KEY,
  startIssuingApp,
  waitFinal,
  type IssuingApp,
} from '../../support/issuing.ts';

type Op = Exclude<keyof Provider, 'name' | 'verifyApiKey'>;
const OPS: Op[] = ['requestCaf', 'upload', 'uploadStatus', 'documentStatus', 'annulFolios', 'registerAcceptance'];

/**
 * Changing a tenant's provider never touches its documents, and folios obtained one way stay
 * usable the other way (docs/decisions.md §14). The service's real routed provider (src/provider/routed.ts)
 * is wired with two slots over one in-process emulator: the SimpleAPI slot as the embedded default
 * has it, and an SII slot standing in for the SII adapter (src/provider/sii/, tested on its own) — it
 * records the credentials it is handed (no API key, `via: 'sii'`) and lets the emulator answer with
 * a sandbox key. Each call is recorded with the path it took.
 */
describeEachDb('switching a tenant between SimpleAPI and the direct SII path', (backend) => {
  let t: IssuingApp;
  let key: string;
  let emulator: InProcessEmulator | undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-provider-switch-'));
  const siiKey = loadOrCreateSiiKey(dir);
  const calls: { path: 'simpleapi' | 'sii'; op: Op; creds: ProviderCredentials }[] = [];

  const slot = (name: 'simpleapi' | 'sii'): Provider => {
    const forward =
      (op: Op) =>
      (creds: ProviderCredentials, req: never): Promise<never> => {
        calls.push({ path: name, op, creds });
        // The SII needs no provider key: the emulator's SimpleAPI face does, so the stand-in adds one.
        const asEmulator = name === 'sii' ? { ...creds, apiKey: SANDBOX_API_KEY } : creds;
        return (emulator![op] as (c: ProviderCredentials, r: never) => Promise<never>)(asEmulator, req);
      };
    return {
      name: 'emulator',
      verifyApiKey: (apiKey) => emulator!.verifyApiKey(apiKey),
      ...(Object.fromEntries(OPS.map((op) => [op, forward(op)])) as unknown as Pick<Provider, Op>),
    };
  };

  beforeAll(async () => {
    t = await startIssuingApp(backend, {
      provider: createRoutedProvider({ simpleapi: slot('simpleapi'), sii: slot('sii') }),
      cafKeys: cafTrust([{ idk: siiKey.idk, publicKey: siiKey.publicKey }]),
    });
    emulator = createInProcessEmulator({
      db: t.tdb.db,
      clock: t.clock,
      siiKey,
      processingDelayMs: 0,
      schemaValidator: schemaValidatorFrom(),
      timeoutMs: 30_000,
    });
    ({ key } = await t.account());
  });
  afterAll(async () => {
    await t?.close();
    await emulator?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const patchProvider = async (tenantId: string, provider: string) => {
    const r = await t.call(key, { method: 'PATCH', url: `/api/v1/tenants/${tenantId}`, payload: { provider } });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({ provider, status: 'active' });
  };
  const issueAndSend = async (tenantId: string) => {
    const created = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(33) });
    expect(created.statusCode, created.body).toBe(201);
    const dte = created.json() as { id: string; folio: number };
    const sent = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte/send`, payload: { dteIds: [dte.id] } });
    expect(sent.statusCode, sent.body).toBe(202);
    expect((await waitFinal(t, key, dte.id)).status).toBe('accepted');
    return dte;
  };
  const pathsSince = (from: number) => new Set(calls.slice(from).map((c) => c.path));
  const statusOf = async (dteId: string) => (await t.call(key, { method: 'GET', url: `/api/v1/dte/${dteId}/status` })).json();

  it('issues with the same CAF across switches, each send takes the current path, and earlier documents stay as they were', async () => {
    const tenantId = await readyTenant(t, key);

    // Through SimpleAPI: a CAF of five folios, and the first document.
    let mark = calls.length;
    const caf = await requestFolios(t, key, tenantId, 33, 5);
    expect(caf.rango).toMatchObject({ desde: 1, hasta: 5 });
    const first = await issueAndSend(tenantId);
    expect(first.folio).toBe(1);
    expect(pathsSince(mark)).toEqual(new Set(['simpleapi']));
    expect(calls.slice(mark).every((c) => c.creds.via === 'simpleapi' && c.creds.apiKey === SANDBOX_API_KEY)).toBe(true);
    const firstStatus = await statusOf(first.id);

    // Direct: the next folio of the same CAF, sent on the SII path with no API key.
    await patchProvider(tenantId, 'sii');
    mark = calls.length;
    const second = await issueAndSend(tenantId);
    expect(second.folio).toBe(2);
    expect(pathsSince(mark)).toEqual(new Set(['sii']));
    expect(calls.slice(mark).every((c) => c.creds.via === 'sii' && c.creds.apiKey === '')).toBe(true);
    expect(calls.slice(mark).map((c) => c.op)).toContain('upload');
    // A CAF obtained directly joins the same inventory.
    const directCaf = await requestFolios(t, key, tenantId, 33, 5);
    expect(directCaf.rango).toMatchObject({ desde: 6, hasta: 10 });
    expect(calls.at(-1)).toMatchObject({ path: 'sii', op: 'requestCaf' });

    // Back to SimpleAPI: the first CAF's folios are still the next ones handed out.
    await patchProvider(tenantId, 'simpleapi');
    mark = calls.length;
    const third = await issueAndSend(tenantId);
    expect(third.folio).toBe(3);
    expect(pathsSince(mark)).toEqual(new Set(['simpleapi']));

    // Nothing issued before moved: same state, track id and SII answer.
    expect(await statusOf(first.id)).toEqual(firstStatus);
    expect((await statusOf(second.id)).status).toBe('accepted');
    const inv = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/folios` })).json();
    expect(inv.data[0]).toMatchObject({ tipoDte: 33, total: 10, usados: 3, disponibles: 7 });
  });
});
