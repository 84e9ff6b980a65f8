import crypto from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { manualClock } from '../../../src/lib/clock.ts';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import { PageClient } from '../../support/page-client.ts';
import { makeCert, modernPfx } from '../../support/pfx.ts';

const DAY = 86_400_000;

describeEachDb('the orphan sweep', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { manualClock: true, env: { PAGE_RATE_LIMIT_BURST: '100' } });
  });
  afterAll(() => t.close());
  const clock = () => t.clock as ReturnType<typeof manualClock>;
  const refs = async () => (await t.sdb.db.query<{ ref: string }>('select ref from secrets order by ref')).rows.map((r) => r.ref);

  it('deletes unreferenced secrets after a day, keeps live ones, and clears what expired links staged', async () => {
    const { key, accountId } = await t.account();
    const tenantId = (await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id;
    await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/credentials/api-key`, payload: { apiKey: 'sk-sweep-valid-1' } });
    // A secret left behind by a crash between the two stores.
    const orphan = `tenant/${crypto.randomUUID()}/provider-api-key/${crypto.randomUUID()}`;
    await t.ctx.secrets.store.put(orphan, 'left behind', 'owner');
    // A half-done activation: staged key, password and .pfx.
    const other = (await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id;
    const token = (await t.call(key, { method: 'POST', url: `/api/v1/tenants/${other}/activation-link` })).json().token;
    const c = new PageClient(t.app);
    await c.get(`/activate/${token}`);
    await c.postForm(`/activate/${token}/api-key`, { _csrf: c.csrf(), apiKey: 'sk-sweep-valid-2' });
    await c.get(`/activate/${token}`);
    await c.postMultipart(
      `/activate/${token}/certificate`,
      { _csrf: c.csrf(), password: 'p' },
      { name: 'file', filename: 'f.pfx', data: modernPfx(makeCert({ rut: '12345678-5' }), 'p') },
    );
    const all = await refs();
    expect(all).toHaveLength(4);

    // Younger than the grace period: nothing goes.
    expect(await t.ctx.services.credentials.sweep()).toEqual({ secretsDeleted: 0, stagedCleared: 0 });
    clock().advance(2 * DAY);
    expect(await t.ctx.services.credentials.sweep()).toEqual({ secretsDeleted: 1, stagedCleared: 0 });
    expect(await refs()).toEqual(all.filter((r) => r !== orphan));

    // The link expires: what it staged goes too; the tenant's own key stays.
    clock().advance(6 * DAY);
    expect(await t.ctx.services.credentials.sweep()).toEqual({ secretsDeleted: 2, stagedCleared: 1 });
    expect(await refs()).toEqual([expect.stringMatching(new RegExp(`^tenant/${tenantId}/provider-api-key/`))]);
    const link = (await t.tdb.db.query('select staged_pfx, staged_certificate from activation_links where tenant_id = $1', [other]))
      .rows[0];
    expect(link).toEqual({ staged_pfx: null, staged_certificate: null });
    // The live key still reads back, and another account still cannot read it.
    expect(await t.ctx.services.credentials.getProviderApiKey(accountId, tenantId)).toBe('sk-sweep-valid-1');
    expect(
      await t.ctx.services.credentials.getProviderApiKey((await t.account()).accountId, tenantId).catch((e: { code: string }) => e.code),
    ).toBe('api_key_not_configured');
  });
});
