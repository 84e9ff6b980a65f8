import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InProcessEmulator } from '../../../src/provider/emulator/inprocess.ts';
import { ProviderError, type Provider } from '../../../src/provider/port.ts';
import { describeEachDb } from '../../support/db.ts';
import { dteBody, readyTenant, startIssuingApp, waitFinal, type IssuingApp } from '../../support/issuing.ts';

/**
 * A direct tenant (provider "sii", docs/sii-direct.md) on the embedded default: the service's real
 * provider routes its calls to the SII adapter, which talks to the in-process emulator's SII face
 * (the CAF forms over a local HTTPS listener with the tenant's certificate). Folios requested
 * through the forms, facturas and boletas sent and accepted, a rejection with the SII's code,
 * one token of each kind for the whole run, and an upload whose answer was lost resolved by the
 * SII recognising the same file (STATUS 99), never a second envelope.
 */
describeEachDb('a direct tenant on the embedded default', (backend) => {
  let t: IssuingApp;
  let key: string;
  let tenantId: string;
  let emulator: InProcessEmulator;
  let loseNextUploadAnswer = false;

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
    // The service's own provider object (the services call it by property), with one upload whose
    // answer is lost after the SII received it.
    const provider = t.ctx.provider as Provider;
    const upload = provider.upload.bind(provider);
    provider.upload = async (creds, req) => {
      const up = await upload(creds, req);
      if (!loseNextUploadAnswer) return up;
      loseNextUploadAnswer = false;
      throw new ProviderError('timeout', 'the answer was lost on the way back');
    };
    emulator = t.ctx.provider as unknown as InProcessEmulator;
  }, 120_000);
  afterAll(() => t?.close());

  it('requests CAFs through the forms and issues and sends facturas, boletas and a credit note', async () => {
    tenantId = await readyTenant(t, key, { provider: 'sii' });
    const status = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/credentials/status` })).json();
    expect(status).toMatchObject({ provider: 'sii', ready: true });
    for (const tipoDte of [33, 39, 61]) {
      const r = await t.call(key, {
        method: 'POST',
        url: `/api/v1/tenants/${tenantId}/folios/request`,
        payload: { tipoDte, cantidad: 10 },
      });
      expect(r.statusCode, r.body).toBe(201);
      expect(r.json()).toMatchObject({ status: 'completed', rango: { desde: 1, hasta: 10 } });
    }
    const before = emulator.stats().sii.tokensIssued;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await create(33));
    for (let i = 0; i < 3; i++) ids.push(await create(39));
    const sent = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte/send`, payload: { dteIds: ids } });
    expect(sent.statusCode, sent.body).toBe(202);
    for (const id of ids) expect((await waitFinal(t, key, id)).status).toBe('accepted');
    const factura = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${ids[0]}` })).json();
    const nc = await create(61, {
      referencias: [{ tipoDocRef: 33, folioRef: factura.folio, fechaRef: factura.fechaEmision, codRef: 1, razonRef: 'Anula factura' }],
    });
    await send([nc]);
    expect((await waitFinal(t, key, nc)).status).toBe('accepted');
    // The CAF forms log in with the certificate (no token); uploads and queries reuse one token of each kind.
    const after = emulator.stats().sii.tokensIssued;
    expect(after.soap - before.soap).toBeLessThanOrEqual(1);
    expect(after.rest - before.rest).toBeLessThanOrEqual(1);
    expect(after.soap + after.rest).toBeLessThanOrEqual(2);
    expect(emulator.stats().sii.routes['DTEUpload']?.total).toBeGreaterThanOrEqual(2);
    // The service's own count of its SII calls (/metrics, docs/operations.md) agrees with the SII's.
    const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    const count = (service: string, operation: string) =>
      [...metrics.matchAll(/^dte_sii_calls_total\{([^}]*)\} (\d+)$/gm)]
        .filter(([, labels]) => labels!.includes(`service="${service}"`) && labels!.includes(`operation="${operation}"`))
        .reduce((n, m) => n + Number(m[2]), 0);
    expect(count('dtews', 'DTEUpload')).toBe(emulator.stats().sii.routes['DTEUpload']?.total);
    expect(count('dtews', 'GetTokenFromSeed.getToken') + count('rest', 'boleta.token')).toBe(after.soap + after.rest);
    expect(metrics).not.toMatch(/TOKEN=|sk_live_/);
  });

  it("shows the SII's rejection on the document: a factura found with QueryEstDte, a boleta from the envío's detail", async () => {
    const factura = await create(33, { receptor: { ...(dteBody(33).receptor as object), razonSocial: 'Cliente RECHAZO SpA' } });
    const boleta = await create(39, { receptor: { rut: '77.777.777-7', razonSocial: 'Cliente RECHAZO SpA' } });
    await send([factura, boleta]);
    const f = await waitFinal(t, key, factura);
    const b = await waitFinal(t, key, boleta);
    // For an EnvioDTE the SII answers counts only; the reason is in its validation e-mail.
    expect(f).toMatchObject({
      status: 'rejected',
      sii: { estado: 'RCH', glosa: expect.stringMatching(/^DTE Rechazado por el SII \(1 de 1/) },
    });
    expect(b).toMatchObject({ status: 'rejected', sii: { glosa: expect.stringMatching(/^SBX-3-001/) } });
  });

  it('an upload whose answer was lost is sent again byte for byte: the SII answers STATUS 99 with the first track id', async () => {
    const id = await create(33);
    const uploadsBefore = emulator.stats().sii.routes['DTEUpload']?.total ?? 0;
    loseNextUploadAnswer = true;
    await send([id]);
    const done = await waitFinal(t, key, id, 60_000);
    expect(done.status).toBe('accepted');
    // Two uploads of the same file, one envío at the SII: the document was received once.
    expect((emulator.stats().sii.routes['DTEUpload']?.total ?? 0) - uploadsBefore).toBe(2);
    const history = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${id}/history` })).json().data;
    expect(history.map((h: { status: string }) => h.status)).toEqual(['created', 'sending', 'sent', 'accepted']);
  });

  async function create(tipo: 33 | 39 | 61, over: Record<string, unknown> = {}): Promise<string> {
    const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(tipo, over, t.clock.now()) });
    expect(r.statusCode, r.body).toBe(201);
    return r.json().id as string;
  }
  async function send(ids: string[]) {
    const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte/send`, payload: { dteIds: ids } });
    expect(r.statusCode, r.body).toBe(202);
    return r.json();
  }
});
