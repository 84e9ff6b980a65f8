import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb, openTestDb, type TestDb } from '../../../test/support/db.ts';
import { systemClock } from '../../lib/clock.ts';
import { createKeyCache } from './api-keys.cache.ts';
import { createApiKeysService } from './api-keys.service.ts';

const key = { accountId: 'a', apiKeyId: 'k1', livemode: true, prefix: 'sk_live_k1' };

it('keeps active keys for ttlMs, bounded, oldest out first', () => {
  let t = 0;
  const c = createKeyCache({ query: async () => ({ rows: [], rowCount: 0 }) }, { ttlMs: 100, max: 2, now: () => t });
  c.set('h1', key, c.epoch());
  expect(c.get('h1')).toEqual(key);
  t = 101;
  expect(c.get('h1')).toBeUndefined();
  c.set('h1', key, c.epoch());
  c.set('h2', { accountId: 'a', apiKeyId: 'k2', livemode: true, prefix: 'sk_live_k2' }, c.epoch());
  c.set('h3', { accountId: 'a', apiKeyId: 'k3', livemode: true, prefix: 'sk_live_k3' }, c.epoch());
  expect([c.get('h1'), c.get('h2')?.apiKeyId, c.get('h3')?.apiKeyId]).toEqual([undefined, 'k2', 'k3']);
});

it('does not store a lookup that was in flight when a key was revoked', async () => {
  const c = createKeyCache({ query: async () => ({ rows: [], rowCount: 0 }) });
  const started = c.epoch();
  const r = await c.beginRevocation('other-key');
  await r.committed();
  c.set('h1', key, started);
  expect(c.get('h1')).toBeUndefined();
});

describeEachDb('API key cache in the service', (backend) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(backend);
  });
  afterAll(() => t.close());

  it('answers from the cache without a query, and a revoked key fails on the next request', async () => {
    let queries = 0;
    const db = { ...t.db, query: ((text: string, p?: readonly unknown[]) => (queries++, t.db.query(text, p))) as typeof t.db.query };
    const keys = createApiKeysService({ db, clock: systemClock });
    const accountId = '00000000-0000-4000-8000-000000000001';
    await t.db.query(`insert into accounts (id, name, email) values ($1, 'A', 'a@example.com')`, [accountId]);
    const created = await keys.create(accountId, { name: 'x' });
    await new Promise((r) => setTimeout(r, 300)); // on PostgreSQL the cache is used once its listener is up
    expect((await keys.authenticate(created.key)).apiKeyId).toBe(created.id);
    await new Promise((r) => setTimeout(r, 50)); // its last_used_at write
    queries = 0;
    for (let i = 0; i < 5; i++)
      expect(await keys.authenticate(created.key)).toEqual({ accountId, apiKeyId: created.id, livemode: true, prefix: created.prefix });
    expect(queries).toBe(0);
    await keys.revoke(accountId, created.id);
    await expect(keys.authenticate(created.key)).rejects.toMatchObject({ code: 'revoked_api_key' });
  });
});
