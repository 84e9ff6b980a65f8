import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_ANNUL_ATTEMPTS } from '../../../src/modules/folios/folios.annul.ts';
import { ProviderError } from '../../../src/provider/port.ts';
import { describeEachDb } from '../../support/db.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, type IssuingApp } from '../../support/issuing.ts';

/**
 * Voided folios (creates that never finished) are annulled at the SII through the provider, in
 * runs of consecutive folios, once; outages are retried with backoff and never touch used folios.
 */
describeEachDb('annulment of voided folios', (backend) => {
  let t: IssuingApp;
  let acct: { accountId: string; key: string };

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    acct = await t.account();
  });
  afterAll(() => t?.close());

  const allocations = async (tenantId: string) =>
    (
      await t.ctx.db.query<{ folio: string; status: string; annulled_at: Date | null; annul_attempts: number; annul_error: string | null }>(
        'select folio, status, annulled_at, annul_attempts, annul_error from folio_allocations where tenant_id = $1 order by folio',
        [tenantId],
      )
    ).rows.map((r) => ({ ...r, folio: Number(r.folio) }));

  /** A create that reserved a folio and then failed: the folio is voided. */
  const voidOne = async (tenantId: string) => {
    const r = await t.ctx.services.folios.reserve(acct.accountId, tenantId, 33);
    await t.ctx.services.folios.release(acct.accountId, tenantId, 33, r.folio);
    return r.folio;
  };
  const create = async (tenantId: string) => {
    const r = await t.call(acct.key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(33) });
    expect(r.statusCode, r.body).toBe(201);
    return r.json().folio as number;
  };

  it('annuls each run of consecutive voided folios with one call, once, and leaves used folios alone', async () => {
    const tenantId = await readyTenant(t, acct.key);
    await requestFolios(t, acct.key, tenantId, 33, 10);
    // Only this test's explicit runs: the worker's periodic run would race the assertions.
    await t.stopBackground();
    expect(await create(tenantId)).toBe(1);
    const voided = [await voidOne(tenantId), await voidOne(tenantId), await voidOne(tenantId)];
    expect(await create(tenantId)).toBe(5);
    voided.push(await voidOne(tenantId));
    expect(voided).toEqual([2, 3, 4, 6]);

    expect(await t.ctx.services.folioAnnulment.annulVoided()).toEqual({ annulled: 2, failed: 0 });
    const rows = await allocations(tenantId);
    expect(rows.filter((r) => r.annulled_at).map((r) => r.folio)).toEqual([2, 3, 4, 6]);
    expect(rows.filter((r) => r.status === 'used').every((r) => r.annulled_at === null)).toBe(true);
    // What the SII (the emulator) recorded: two ranges for this issuer.
    const rut = (await t.ctx.db.query<{ rut_empresa: string }>('select rut_empresa from tenants where id = $1', [tenantId])).rows[0]!
      .rut_empresa;
    const siiRut = rut.replace(/\./g, '');
    const at = await t.ctx.db.query<{ desde: string; hasta: string }>(
      'select desde, hasta from emu_annulled where rut_emisor = $1 and tipo_dte = 33 order by desde',
      [siiRut],
    );
    expect(at.rows.map((r) => [Number(r.desde), Number(r.hasta)])).toEqual([
      [2, 4],
      [6, 6],
    ]);
    // Each annulled run is in the audit log, by the system (docs/audit.md).
    const audited = await t.ctx.services.audit.list(acct.accountId, { limit: 50, action: 'folio.annulled' });
    expect(audited.data.map((e) => [e.actor.type, e.details.desde, e.details.hasta]).sort()).toEqual([
      ['system', 2, 4],
      ['system', 6, 6],
    ]);
    // Nothing is annulled twice.
    expect(await t.ctx.services.folioAnnulment.annulVoided()).toEqual({ annulled: 0, failed: 0 });
  });

  it('keeps the error and retries with backoff while the provider is down, up to the attempt limit', async () => {
    let down = true;
    const calls: [number, number][] = [];
    const t2 = await startIssuingApp(backend, {
      manualClock: true,
      provider: {
        annulFolios: async (_creds, req) => {
          calls.push([req.desde, req.hasta]);
          if (down) throw new ProviderError('unavailable', 'SimpleAPI did not answer');
          return { ok: true, glosa: 'ok' };
        },
      },
    });
    try {
      const a2 = await t2.account();
      const tenantId = await readyTenant(t2, a2.key);
      await requestFolios(t2, a2.key, tenantId, 33, 5);
      await t2.stopBackground();
      const r = await t2.ctx.services.folios.reserve(a2.accountId, tenantId, 33);
      await t2.ctx.services.folios.release(a2.accountId, tenantId, 33, r.folio);
      const annul = () => t2.ctx.services.folioAnnulment.annulVoided();
      const row = async () =>
        (
          await t2.ctx.db.query<{ annulled_at: Date | null; annul_attempts: number; annul_error: string | null }>(
            'select annulled_at, annul_attempts, annul_error from folio_allocations where tenant_id = $1 and folio = $2',
            [tenantId, r.folio],
          )
        ).rows[0]!;

      expect(await annul()).toEqual({ annulled: 0, failed: 1 });
      expect(await row()).toMatchObject({
        annulled_at: null,
        annul_attempts: 1,
        annul_error: expect.stringMatching(/^provider_unavailable: /),
      });
      // Not due again until the backoff has passed.
      expect(await annul()).toEqual({ annulled: 0, failed: 0 });
      const clock = t2.clock as unknown as { advance(ms: number): void };
      clock.advance(5 * 60_000 + 1);
      expect(await annul()).toEqual({ annulled: 0, failed: 1 });
      expect((await row()).annul_attempts).toBe(2);
      down = false;
      clock.advance(10 * 60_000 + 1);
      expect(await annul()).toEqual({ annulled: 1, failed: 0 });
      expect(await row()).toMatchObject({ annulled_at: expect.any(Date), annul_attempts: 3, annul_error: null });
      expect(calls).toHaveLength(3);

      // A folio that keeps failing stops being tried after MAX_ANNUL_ATTEMPTS, keeping its last error.
      down = true;
      const r2 = await t2.ctx.services.folios.reserve(a2.accountId, tenantId, 33);
      await t2.ctx.services.folios.release(a2.accountId, tenantId, 33, r2.folio);
      for (let i = 0; i < MAX_ANNUL_ATTEMPTS + 2; i++) {
        await annul();
        clock.advance(13 * 3_600_000);
      }
      const last = (
        await t2.ctx.db.query<{ annul_attempts: number; annul_error: string | null }>(
          'select annul_attempts, annul_error from folio_allocations where tenant_id = $1 and folio = $2',
          [tenantId, r2.folio],
        )
      ).rows[0]!;
      expect(last.annul_attempts).toBe(MAX_ANNUL_ATTEMPTS);
      expect(last.annul_error).toMatch(/^provider_unavailable: /);
    } finally {
      await t2.close();
    }
  });
  it("annuls in the CAF's environment and issuer, once even with two workers, and never records under a lost lease", async () => {
    const calls: { rutEmpresa: string; ambiente: string; desde: number; hasta: number }[] = [];
    let during: (() => Promise<void>) | undefined;
    const t3 = await startIssuingApp(backend, {
      provider: {
        annulFolios: async (_creds, req) => {
          calls.push({ rutEmpresa: req.rutEmpresa, ambiente: req.ambiente, desde: req.desde, hasta: req.hasta });
          await new Promise((res) => setTimeout(res, 50)); // a real call takes a while: let the other worker try
          await during?.();
          return { ok: true, glosa: 'ok' };
        },
      },
    });
    try {
      const a3 = await t3.account();
      const tenantId = await readyTenant(t3, a3.key, { ambiente: 'certificacion' });
      await requestFolios(t3, a3.key, tenantId, 33, 10);
      await t3.stopBackground();
      const voidOne3 = async () => {
        const r = await t3.ctx.services.folios.reserve(a3.accountId, tenantId, 33);
        await t3.ctx.services.folios.release(a3.accountId, tenantId, 33, r.folio);
        return r.folio;
      };
      await voidOne3();
      await voidOne3();
      // A third create still running (reserved) when the tenant switches; it fails later.
      const pending = await t3.ctx.services.folios.reserve(a3.accountId, tenantId, 33);
      const rut = (await t3.ctx.db.query<{ rut_empresa: string }>('select rut_empresa from tenants where id = $1', [tenantId])).rows[0]!
        .rut_empresa;
      // The tenant moves to production after the CAF was granted in certification.
      const moved = await t3.call(a3.key, { method: 'PATCH', url: `/api/v1/tenants/${tenantId}`, payload: { ambiente: 'produccion' } });
      expect(moved.statusCode, moved.body).toBe(200);

      // Two workers at once: the claim lets only one of them call the provider for the run.
      const both = await Promise.all([t3.ctx.services.folioAnnulment.annulVoided(), t3.ctx.services.folioAnnulment.annulVoided()]);
      expect(both.map((x) => x.annulled).sort()).toEqual([0, 1]);
      expect(calls).toEqual([{ rutEmpresa: rut.replace(/\./g, ''), ambiente: 'certificacion', desde: 1, hasta: 2 }]);

      // A worker whose lease was taken over (another worker re-claimed the folios meanwhile)
      // records nothing: the new owner records its own outcome.
      await t3.ctx.services.folios.release(a3.accountId, tenantId, 33, pending.folio);
      const third = pending.folio;
      during = async () => {
        await t3.ctx.db.query(
          "update folio_allocations set annul_next_at = annul_next_at + interval '1 second' where tenant_id = $1 and folio = $2",
          [tenantId, third],
        );
      };
      expect(await t3.ctx.services.folioAnnulment.annulVoided()).toEqual({ annulled: 0, failed: 0 });
      const row = (
        await t3.ctx.db.query<{ annulled_at: Date | null; annul_attempts: number }>(
          'select annulled_at, annul_attempts from folio_allocations where tenant_id = $1 and folio = $2',
          [tenantId, third],
        )
      ).rows[0]!;
      expect(row).toEqual({ annulled_at: null, annul_attempts: 0 });
    } finally {
      await t3.close();
    }
  });
});
