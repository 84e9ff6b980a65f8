import { afterEach, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/support/db.ts';
import { AppError } from '../../errors.ts';
import { ProviderError } from '../../provider/index.ts';
import { createTestCaf, createTestSii } from '../../../test/support/dte/test-caf.ts';
import { foliosHarness, type FoliosHarness } from '../../../test/support/folios.ts';
import { requestStore } from './folios.request.store.ts';

/** Requests as durable jobs: the bounded wait answers completed or pending; failures keep their kind. */
describeEachDb('folio requests', (backend) => {
  let h: FoliosHarness;
  afterEach(() => h?.close());

  it('answers completed with the range when the job finishes within the wait', async () => {
    let sleeps = 0;
    // The wait's first pause is when a worker picks the job up.
    h = await foliosHarness(backend, {
      requestWaitMs: 10_000,
      sleep: async () => {
        sleeps++;
        await h.runJobs();
      },
    });
    const r = await h.folios.request(h.tenant, { tipoDte: 33, cantidad: 5 });
    expect(r.state).toBe('completed');
    expect(r.request).toMatchObject({ tenantId: h.tenant.id, tipoDte: 33, cantidad: 5, status: 'completed', error: null });
    expect(r.request.rango).toMatchObject({ desde: 1, hasta: 5, fechaAutorizacion: '2026-03-02' });
    expect(sleeps).toBe(1);
    expect(await h.folios.getRequest(h.tenant, r.request.id)).toEqual(r.request);
  });

  it('answers pending when the job is still running after the wait, and the request completes later', async () => {
    h = await foliosHarness(backend, { requestWaitMs: 60 });
    const started = Date.now();
    const r = await h.folios.request(h.tenant, { tipoDte: 39, cantidad: 3 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    expect(r).toMatchObject({ state: 'pending', request: { status: 'pending', rango: null, completedAt: null } });
    await h.runJobs();
    expect(await h.folios.getRequest(h.tenant, r.request.id)).toMatchObject({ status: 'completed', rango: { desde: 1, hasta: 3 } });
  });

  it('throws the stored error of a request that failed within the wait, kept as a kind and not a status', async () => {
    h = await foliosHarness(backend, {
      requestWaitMs: 10_000,
      sleep: () => h.runJobs(),
      provider: {
        requestCaf: async () => {
          throw new ProviderError('quota_exhausted', 'no calls left', 402);
        },
      },
    });
    const err = await h.folios.request(h.tenant, { tipoDte: 33, cantidad: 5 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ kind: 'unprocessable', code: 'provider_quota_exhausted' });
    const requestId = (err as AppError).details!.requestId as string;
    const row = (await h.db.query<{ error_kind: string }>('select error_kind from folio_requests where id = $1', [requestId])).rows[0];
    expect(row).toEqual({ error_kind: 'unprocessable' });
    expect(await h.folios.getRequest(h.tenant, requestId)).toMatchObject({ status: 'failed', error: { code: 'provider_quota_exhausted' } });
  });

  it('keeps retrying a transient provider failure until the last attempt', async () => {
    h = await foliosHarness(backend, {
      provider: {
        requestCaf: async () => {
          throw new ProviderError('unavailable', 'down');
        },
      },
    });
    const { request } = await h.folios.request(h.tenant, { tipoDte: 33, cantidad: 5 });
    const payload = { requestId: request.id, accountId: h.accountId };
    await expect(h.folios.runRequestJob(payload, { attempts: 1, max_attempts: 5 })).rejects.toBeInstanceOf(ProviderError);
    expect((await h.folios.getRequest(h.tenant, request.id)).status).toBe('pending');
    await h.folios.runRequestJob(payload, { attempts: 5, max_attempts: 5 });
    expect(await h.folios.getRequest(h.tenant, request.id)).toMatchObject({ status: 'failed', error: { code: 'provider_unavailable' } });
  });

  it('refuses a CAF for another company or signed by an unknown key (caf_untrusted)', async () => {
    const stranger = createTestSii();
    let caf = createTestCaf({ sii: stranger, tipoDte: 33, desde: 1, hasta: 5, fechaAutorizacion: '2026-03-02' });
    h = await foliosHarness(backend, { provider: { requestCaf: async () => ({ cafXml: caf.xml }) } });
    const unknownKey = await h.folios.request(h.tenant, { tipoDte: 33, cantidad: 5 });
    await h.runJobs();
    expect(await h.folios.getRequest(h.tenant, unknownKey.request.id)).toMatchObject({
      status: 'failed',
      error: { code: 'caf_untrusted', message: expect.stringContaining('does not verify') },
    });
    caf = createTestCaf({ sii: stranger, rutEmisor: '11111111-1', tipoDte: 33 });
    const otherRut = await h.folios.request(h.tenant, { tipoDte: 33, cantidad: 5 });
    await h.runJobs();
    expect(await h.folios.getRequest(h.tenant, otherRut.request.id)).toMatchObject({
      status: 'failed',
      error: { code: 'caf_untrusted', message: expect.stringContaining('not for the tenant 76192083-9') },
    });
    expect((await h.db.query('select 1 from folio_ranges')).rowCount).toBe(0);
  });

  it('refuses a tenant that is not ready, and records nothing', async () => {
    h = await foliosHarness(backend);
    const notReady = { ...h.tenant, status: 'pending_credentials' as const };
    await expect(h.folios.request(notReady, { tipoDte: 33, cantidad: 5 })).rejects.toMatchObject({ code: 'tenant_not_ready' });
    await expect(h.folios.request(h.tenant, { tipoDte: 99, cantidad: 5 })).rejects.toMatchObject({ code: 'unsupported_tipo_dte' });
    expect((await h.db.query('select 1 from folio_requests')).rowCount).toBe(0);
  });

  it("answers not found for an unknown id, a malformed one, or another tenant's request", async () => {
    h = await foliosHarness(backend);
    const { request } = await h.folios.request(h.tenant, { tipoDte: 33, cantidad: 1 });
    const otherTenant = { ...h.tenant, id: crypto.randomUUID() };
    for (const [tenant, id] of [
      [h.tenant, crypto.randomUUID()],
      [h.tenant, 'not-a-uuid'],
      [otherTenant, request.id],
    ] as const)
      await expect(h.folios.getRequest(tenant, id)).rejects.toMatchObject({ kind: 'not_found', code: 'folio_request_not_found' });
  });

  it("tells the provider what a retry may resume (since the request's creation, the tenant's ranges of the type), never a first run", async () => {
    const seen: unknown[] = [];
    h = await foliosHarness(backend, {
      provider: {
        requestCaf: async (_c, r) => {
          seen.push(r.resume);
          throw new ProviderError('unavailable', 'asked');
        },
      },
    });
    for (const [tipoDte, desde, hasta] of [
      [33, 1, 10],
      [33, 21, 30],
      [61, 1, 5],
    ] as const) {
      await requestStore.insertRange(h.db, {
        id: crypto.randomUUID(),
        accountId: h.accountId,
        tenantId: h.tenant.id,
        tipoDte,
        desde,
        hasta,
        fechaAutorizacion: '2026-03-01',
        vencimiento: null,
        idk: 100,
        cafBlock: '<CAF/>',
        privateKeyEnc: Buffer.alloc(1),
        requestId: null,
        ambiente: 'certificacion',
        now: h.clock.now(),
      });
    }
    const { request } = await h.folios.request(h.tenant, { tipoDte: 33, cantidad: 5 });
    const payload = { accountId: h.accountId, requestId: request.id };
    // Transient: the queue would run it again (attempt 2), which may resume.
    await expect(h.folios.runRequestJob(payload, { attempts: 1, max_attempts: 5 })).rejects.toThrow('asked');
    await expect(h.folios.runRequestJob(payload, { attempts: 2, max_attempts: 5 })).rejects.toThrow('asked');
    expect(seen).toEqual([
      undefined,
      {
        since: new Date(request.createdAt),
        held: [
          { desde: 1, hasta: 10 },
          { desde: 21, hasta: 30 },
        ],
      },
    ]);
  });
});
