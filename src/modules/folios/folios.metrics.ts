import type { Sql } from '../../db/types.ts';
import { usable } from './folios.inventory.store.ts';

/**
 * Folios left per tenant and type for the metrics scrape (docs/operations.md), in one statement,
 * with the allocation's own rule of what is usable (`usable`). Every tenant and type that has ever
 * had a CAF is listed, so a type that ran out reports 0 rather than disappearing. Tenant ids only:
 * never a RUT or a name.
 */
export async function folioStock(sql: Sql, today: string): Promise<{ tenantId: string; tipoDte: number; left: number }[]> {
  const r = await sql.query<{ tenant_id: string; tipo_dte: number; left_: number }>(
    `select g.tenant_id, g.tipo_dte,
       coalesce(sum(g.hasta - g.next_folio + 1) filter (where ${usable('g', '$1')}), 0)::float8 as left_
     from folio_ranges g group by g.tenant_id, g.tipo_dte`,
    [today],
  );
  return r.rows.map((row) => ({ tenantId: row.tenant_id, tipoDte: Number(row.tipo_dte), left: Number(row.left_) }));
}
