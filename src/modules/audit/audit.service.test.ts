import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb, openTestDb, type TestDb } from '../../../test/support/db.ts';
import { manualClock } from '../../lib/clock.ts';
import { cleanDetails } from './audit.details.ts';
import { createAuditService } from './audit.service.ts';
import type { AuditActor } from './audit.types.ts';

it('keeps plain facts and drops what looks secret, by name or by value', () => {
  const out = cleanDetails({
    name: 'Producción',
    prefix: 'sk_live_abc123',
    password: 'Clave-Firma-1',
    apiKey: 'sandbox-ok-key-0001',
    secret: 'whsec_x',
    token: 'act_x',
    note: `leaked sk_live_${'A'.repeat(43)}`,
    webhook: 'whsec_AAAAAAAAAAAAAAAA',
    pem: '-----BEGIN PRIVATE KEY-----',
    nested: { ok: 1, pfxPassword: 'x' },
    count: 3,
    long: 'x'.repeat(500),
  });
  expect(out).toEqual({
    name: 'Producción',
    prefix: 'sk_live_abc123',
    note: '[redacted]',
    webhook: '[redacted]',
    pem: '[redacted]',
    nested: { ok: 1 },
    count: 3,
    long: 'x'.repeat(200),
  });
});

describeEachDb('audit service', (backend) => {
  let t: TestDb;
  const clock = manualClock('2026-12-05T12:00:00.000Z');
  const accountA = '00000000-0000-4000-8000-0000000000a1';
  const accountB = '00000000-0000-4000-8000-0000000000b1';
  const member: AuditActor = {
    type: 'member',
    id: 'm1',
    label: 'ana@example.com',
    ip: '198.51.100.1',
    userAgent: 'x'.repeat(400),
    livemode: true,
  };
  const key: AuditActor = { type: 'api_key', id: 'k1', label: 'sk_live_abcdef', ip: '203.0.113.9', userAgent: null, livemode: false };
  let audit: ReturnType<typeof createAuditService>;

  beforeAll(async () => {
    t = await openTestDb(backend);
    for (const id of [accountA, accountB])
      await t.db.query(`insert into accounts (id, name, email) values ($1, 'X', $2)`, [id, `${id}@example.com`]);
    audit = createAuditService({ db: t.db, clock });
    const changes: [AuditActor | undefined, string, string][] = [
      [member, 'tenant.created', accountA],
      [key, 'tenant.updated', accountA],
      [key, 'api_key.created', accountA],
      [undefined, 'folio.annulled', accountA],
      [member, 'tenant.created', accountB],
    ];
    for (const [actor, action, accountId] of changes) {
      await audit.recorder.record(actor, { accountId, action, target: { type: 'tenant', id: 't1' }, details: { a: 1 } });
      clock.advance(60_000);
    }
  });
  afterAll(() => t.close());

  it('lists one account newest first, with actor, mode and a bounded user agent', async () => {
    const page = await audit.list(accountA, { limit: 50 });
    expect(page.data.map((e) => e.action)).toEqual(['folio.annulled', 'api_key.created', 'tenant.updated', 'tenant.created']);
    expect(page.data[3]).toMatchObject({
      actor: { type: 'member', id: 'm1', label: 'ana@example.com' },
      ip: '198.51.100.1',
      livemode: true,
    });
    expect(page.data[3]!.userAgent).toHaveLength(256);
    expect(page.data[2]!.livemode).toBe(false);
    expect(page.data[0]!.actor).toEqual({ type: 'system', id: null, label: 'system' });
    expect((await audit.list(accountB, { limit: 50 })).data).toHaveLength(1);
  });

  it('filters by actor (label or id), action (exact or prefix) and time, and pages', async () => {
    const actions = async (q: Parameters<typeof audit.list>[1]) => (await audit.list(accountA, q)).data.map((e) => e.action);
    expect(await actions({ limit: 50, actor: 'sk_live_abcdef' })).toEqual(['api_key.created', 'tenant.updated']);
    expect(await actions({ limit: 50, actor: 'ANA@example.com' })).toEqual(['tenant.created']);
    expect(await actions({ limit: 50, actor: 'k1' })).toEqual(['api_key.created', 'tenant.updated']);
    expect(await actions({ limit: 50, action: 'tenant.' })).toEqual(['tenant.updated', 'tenant.created']);
    expect(await actions({ limit: 50, action: 'tenant.created' })).toEqual(['tenant.created']);
    expect(await actions({ limit: 50, since: '2026-12-05T12:01:00Z', until: '2026-12-05T12:03:00Z' })).toEqual([
      'api_key.created',
      'tenant.updated',
    ]);
    const first = await audit.list(accountA, { limit: 3 });
    expect(first.done).toBe(false);
    const second = await audit.list(accountA, { limit: 3, iterator: first.iterator! });
    expect([...first.data, ...second.data].map((e) => e.action)).toEqual(await actions({ limit: 50 }));
    expect(second.done).toBe(true);
  });

  it('refuses filters it cannot read, saying which', async () => {
    await expect(audit.list(accountA, { limit: 5, action: "tenant'; drop" })).rejects.toMatchObject({
      code: 'invalid_audit_filter',
      param: 'action',
    });
    await expect(audit.list(accountA, { limit: 5, since: 'yesterday' })).rejects.toMatchObject({
      code: 'invalid_audit_filter',
      param: 'since',
    });
    await expect(audit.list(accountA, { limit: 5, since: '2026-12-06T00:00:00Z', until: '2026-12-05T00:00:00Z' })).rejects.toMatchObject({
      code: 'invalid_audit_filter',
    });
  });

  it('records inside the caller transaction: a rollback leaves no event', async () => {
    const before = (await audit.list(accountB, { limit: 50 })).data.length;
    await expect(
      t.db.transaction(async (tx) => {
        await audit.recorder.recordIn(tx, member, { accountId: accountB, action: 'tenant.created', target: { type: 'tenant', id: 'x' } });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect((await audit.list(accountB, { limit: 50 })).data).toHaveLength(before);
  });

  it('sweeps events older than the retention, and only those', async () => {
    clock.set('2026-12-07T12:01:30.000Z'); // cutoff 2026-12-05T12:01:30: the first two events of A are older
    expect(await audit.sweep(2, 1)).toBe(2); // batch of 1: the loop runs until nothing is left
    expect((await audit.list(accountA, { limit: 50 })).data.map((e) => e.action)).toEqual(['folio.annulled', 'api_key.created']);
  });
});
