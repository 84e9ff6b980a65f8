import { afterEach, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/support/db.ts';
import { foliosHarness, type FoliosHarness } from '../../../test/support/folios.ts';
import type { Db } from '../../db/types.ts';

/** Counts the statements containing `marker` that `db` runs from now on. */
function countStatements(db: Db, marker: string): () => number {
  let n = 0;
  const query = db.query.bind(db);
  db.query = ((text: string, params?: readonly unknown[]) => {
    if (text.includes(marker)) n++;
    return query(text, params);
  }) as Db['query'];
  return () => n;
}

/** The allocation invariant (folios.allocation.ts): a folio is handed out at most once, ever. */
describeEachDb('folio allocation', (backend) => {
  let h: FoliosHarness;
  afterEach(() => h?.close());

  const reserve = (tipoDte = 33) => h.folios.reserve(h.accountId, h.tenant.id, tipoDte);

  it('hands out 50 concurrent reserves as 50 distinct consecutive folios, across two ranges', async () => {
    h = await foliosHarness(backend);
    await h.grant(33, 30);
    await h.grant(33, 30);
    const statements = countStatements(h.db, 'folio_allocations (tenant_id');
    const all = await Promise.all(Array.from({ length: 50 }, () => reserve()));
    expect(all.map((r) => r.folio).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    // Concurrent reserves share statements (group commit): the first alone, then the rest, one per range.
    expect(statements()).toBeLessThanOrEqual(4);
    expect(new Set(all.map((r) => r.rangeId)).size).toBe(2);
    const rows = await h.db.query<{ n: number }>(`select count(*)::int as n from folio_allocations where status = 'reserved'`);
    expect(rows.rows[0]!.n).toBe(50);
    // The first range is used up, so it leaves the inventory.
    expect((await h.folios.inventory(h.tenant)).data[0]).toMatchObject({ total: 30, disponibles: 10, siguienteFolio: 51 });
  });

  it('comes with the CAF that stamps the folio, its private key decrypted', async () => {
    h = await foliosHarness(backend);
    await h.grant(39, 5);
    const r = await reserve(39);
    expect(r.caf).toMatchObject({ tipoDte: 39, desde: 1, hasta: 5, rutEmisor: '76192083-9' });
    expect(r.caf.privateKeyPem).toContain('PRIVATE KEY');
    expect((await reserve(39)).caf).toBe(r.caf); // parsed once per range
  });

  it('never hands out a released folio again, and a used one only once', async () => {
    h = await foliosHarness(backend);
    await h.grant(33, 10);
    const a = await reserve();
    await h.folios.release(h.accountId, h.tenant.id, 33, a.folio);
    const b = await reserve();
    expect(b.folio).toBe(a.folio + 1);
    // The step as the DTE store runs it: a CTE over the documents being stored (here one).
    const used = async (folio: number) =>
      (
        await h.db.query<{ n: number }>(
          `with docs as (select $1::uuid as account_id, $2::uuid as tenant_id, 33 as tipo_dte, $3::bigint as folio, $4::uuid as id),
             used as (${h.folios.markUsedSql('docs')})
           select count(*)::int as n from used`,
          [h.accountId, h.tenant.id, folio, crypto.randomUUID()],
        )
      ).rows[0]!.n === 1;
    expect(await used(a.folio)).toBe(false); // voided: no DTE may take it
    expect(await used(b.folio)).toBe(true);
    expect(await used(b.folio)).toBe(false);
  });

  it('skips folios handed out before when the counter is rewound', async () => {
    h = await foliosHarness(backend);
    await h.grant(33, 10);
    for (let i = 0; i < 3; i++) await reserve();
    await h.db.query('update folio_ranges set next_folio = desde');
    expect((await reserve()).folio).toBe(4);
  });

  it('skips folios handed out before within a group of concurrent reserves too', async () => {
    h = await foliosHarness(backend);
    await h.grant(33, 10);
    for (let i = 0; i < 3; i++) await reserve();
    await h.db.query('update folio_ranges set next_folio = desde');
    const all = await Promise.all(Array.from({ length: 5 }, () => reserve()));
    expect(all.map((r) => r.folio).sort((a, b) => a - b)).toEqual([4, 5, 6, 7, 8]);
  });

  it('a group larger than the stock: every folio left goes to one request each, the rest are refused', async () => {
    h = await foliosHarness(backend);
    await h.grant(33, 4);
    await h.grant(33, 3);
    const all = await Promise.allSettled(Array.from({ length: 10 }, () => reserve()));
    const ok = all.flatMap((r) => (r.status === 'fulfilled' ? [r.value.folio] : []));
    expect(ok.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const refused = all.flatMap((r) => (r.status === 'rejected' ? [r.reason as { code: string }] : []));
    expect(refused.map((e) => e.code)).toEqual(Array(3).fill('folios_exhausted'));
    expect(new Set(refused).size).toBe(3); // an error object of its own for each request
    const rows = await h.db.query<{ n: number }>(`select count(*)::int as n from folio_allocations`);
    expect(rows.rows[0]!.n).toBe(7);
  });

  it('a failure after a group took folios refuses only the requests left without one: none is left reserved and unused', async () => {
    h = await foliosHarness(backend);
    await h.grant(33, 5);
    await h.grant(33, 20);
    // The group's second statement (the next range) fails, as a lost connection would.
    const query = h.db.query.bind(h.db);
    let n = 0;
    h.db.query = ((text: string, params?: readonly unknown[]) => {
      if (text.includes('folio_allocations (tenant_id') && ++n === 2) return Promise.reject(new Error('connection lost'));
      return query(text, params);
    }) as Db['query'];
    const all = await Promise.allSettled(Array.from({ length: 10 }, () => reserve()));
    const got = all.flatMap((r) => (r.status === 'fulfilled' ? [r.value.folio] : []));
    // The failure happened, after the group had taken folios: some got one, some were refused.
    expect(n).toBeGreaterThanOrEqual(2);
    expect(all.some((r) => r.status === 'rejected')).toBe(true);
    expect(got.length).toBeGreaterThan(0);
    expect(new Set(got).size).toBe(got.length);
    // Every folio recorded as reserved was handed out to a request (a gap only where a create dies).
    const reserved = await query<{ folio: number }>(`select folio::int as folio from folio_allocations where status = 'reserved'`);
    expect(reserved.rows.map((r) => r.folio).sort((a, b) => a - b)).toEqual([...got].sort((a, b) => a - b));
    for (const r of all) if (r.status === 'rejected') expect((r.reason as Error).message).toBe('connection lost');
  });

  it('voids the reservations of creates that never finished, after the timeout', async () => {
    h = await foliosHarness(backend);
    await h.grant(33, 10);
    const a = await reserve();
    expect(await h.folios.sweepReservations()).toBe(0);
    h.clock.advance(600_001);
    const b = await reserve();
    expect(await h.folios.sweepReservations()).toBe(1);
    const status = await h.db.query<{ folio: number; status: string }>(
      'select folio::int as folio, status from folio_allocations order by folio',
    );
    expect(status.rows).toEqual([
      { folio: a.folio, status: 'void' },
      { folio: b.folio, status: 'reserved' },
    ]);
  });

  it('answers folios_exhausted when no usable folio is left, or the CAF expired', async () => {
    h = await foliosHarness(backend);
    await expect(reserve()).rejects.toMatchObject({ kind: 'conflict', code: 'folios_exhausted', param: 'tipoDte' });
    await h.grant(33, 1);
    await reserve();
    await expect(reserve()).rejects.toMatchObject({ code: 'folios_exhausted' });
    await h.grant(33, 5);
    h.clock.advance(181 * 86_400_000); // a type 33 CAF lasts 180 days
    await expect(reserve()).rejects.toMatchObject({ code: 'folios_exhausted' });
  });
});
