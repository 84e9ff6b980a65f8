import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Sql } from '../../../src/db/types.ts';
import { dteStore } from '../../../src/modules/dte/dte.store.ts';
import { startTestApp, uniqueRut, validTenant, type TestApp } from '../../support/app.ts';
import { describeEachDb } from '../../support/db.ts';

/**
 * The dashboard's document search (docs/dashboard.md "Search and CSV export") reads through an
 * index for every filter. The store's own query is explained (EXPLAIN with the same parameters,
 * sequential scans priced out) over 5 000 documents of one tenant with statistics, rather than a
 * copy of its SQL: a change to the query that loses its index fails here.
 */
describeEachDb('dte list: every search filter has an index', (backend) => {
  let t: TestApp;
  let accountId: string;
  let tenantId: string;
  beforeAll(async () => {
    t = await startTestApp(backend);
    accountId = (await t.account()).accountId;
    tenantId = (await t.ctx.services.tenants.create(accountId, validTenant({ rutEmpresa: uniqueRut() }))).id;
    // 5 000 documents: 7 states, 8 types, a year of dates, 500 receptors.
    await t.tdb.db.query(
      `insert into dtes (id, account_id, tenant_id, tipo_dte, folio, status, fecha_emision, receptor, detalle, monto_neto, monto_exento,
         iva, monto_total, xml, created_at, updated_at)
       select gen_random_uuid(), $1, $2, (array[33,34,39,41,46,52,56,61])[1 + n % 8], n, (array['created','sending','sent','accepted',
         'accepted_with_objections','rejected','send_failed'])[1 + n % 7], date '2026-01-01' + (n % 365),
         jsonb_build_object('rut', (1000000 + n % 500)::text || '-0'), '[]'::jsonb, 1000, 0, 190, 1190, '\\x00'::bytea,
         timestamptz '2026-01-01' + n * interval '1 minute', now()
       from generate_series(1, 5000) as n`,
      [accountId, tenantId],
    );
    await t.tdb.db.query('analyze dtes');
  }, 60_000);
  afterAll(() => t?.close());

  /** The plan of dteStore.list for these filters, as text. */
  async function planOf(q: Parameters<typeof dteStore.list>[3]): Promise<string> {
    return t.tdb.db.transaction(async (tx) => {
      await tx.query('set local enable_seqscan = off');
      let plan = '';
      const explaining: Sql = {
        query: (async (text: string, params?: readonly unknown[]) => {
          const r = await tx.query<Record<string, string>>(`explain ${text}`, params);
          plan = r.rows.map((row) => Object.values(row)[0]).join('\n');
          return { rows: [], rowCount: 0 };
        }) as Sql['query'],
      };
      await dteStore.list(explaining, accountId, tenantId, q);
      return plan;
    });
  }

  it.each([
    ['folio', { folio: 42 }, 'dtes_tenant_folio'],
    ['folio and type', { folio: 42, tipoDte: 33 }, /dtes_tenant_folio|dtes_folio_once/],
    ['receptor RUT', { receptorRut: '1000042-0' }, 'dtes_tenant_receptor'],
    ['issue dates', { fechaDesde: '2026-11-01', fechaHasta: '2026-11-03' }, 'dtes_tenant_fecha'],
    ['state', { status: 'accepted' }, 'dtes_tenant_status'],
    ['no filter', {}, 'dtes_tenant_list'],
  ] as const)('%s', async (_name, filters, index) => {
    const plan = await planOf({ limit: 50, ...filters });
    expect(plan).not.toMatch(/Seq Scan on dtes/);
    expect(plan).toMatch(index);
  });
});
