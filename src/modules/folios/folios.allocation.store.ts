import type { Sql } from '../../db/types.ts';
import { num, usable } from './folios.inventory.store.ts';

/**
 * `folio_allocations`: every folio ever handed out, once (its primary key is the folio). The
 * invariant these statements keep is described in folios.allocation.ts and docs/folios.md.
 */
export interface TakenFolios {
  rangeId: string;
  cafBlock: string;
  privateKeyEnc: Buffer;
  /** Folios now reserved for the caller, ascending. */
  folios: number[];
  /** Folios the counter passed that had been handed out before (a rewound counter): skipped, never handed out again. */
  skipped: number[];
  /** Stock left of the type after these folios, and the alarm's state, to tell whether it must change. */
  disponibles: number;
  lowThreshold: number | null;
  lowArmed: boolean | null;
}

export const allocationStore = {
  /**
   * Takes the next `count` folios (fewer if the range has fewer left) of the oldest usable range
   * and records them as reserved — one statement, atomic on its own, so the range's row lock is
   * held only while it runs. Concurrent callers queue on that lock and each gets the next numbers;
   * a range used up meanwhile is skipped (the locked row is re-checked, and the count is computed
   * from the row as locked) and the next one is taken. A folio handed out before (a rewound
   * counter) is refused by the primary key of folio_allocations and reported as skipped.
   * It also reports the stock left and the folio.low alarm's state, so the caller needs a second
   * statement only when the alarm must change (rarely).
   */
  async takeNext(
    sql: Sql,
    a: { accountId: string; tenantId: string; tipoDte: number; today: string; now: Date; datedOn?: string | undefined; count: number },
  ): Promise<TakenFolios | undefined> {
    const r = await sql.query<{
      id: string;
      first: number;
      n: number;
      reserved: number[] | null;
      caf_block: string;
      private_key_enc: Buffer;
      disponibles: number;
      low_threshold: number | null;
      low_armed: boolean | null;
    }>(
      `with pick as (
         select g.id, least($7::bigint, g.hasta - g.next_folio + 1) as n from folio_ranges g
         where g.account_id = $1 and g.tenant_id = $2 and g.tipo_dte = $3 and ${usable('g', '$4')}
           and ($6::date is null or g.fecha_autorizacion <= $6::date)
         order by g.desde limit 1 for update of g
       ), upd as (
         update folio_ranges g set next_folio = g.next_folio + pick.n
         from pick where g.id = pick.id and g.next_folio <= g.hasta
         returning g.id, g.next_folio - pick.n as first, pick.n, g.hasta - g.next_folio + 1 as left_here, g.caf_block, g.private_key_enc
       ), ins as (
         insert into folio_allocations (tenant_id, tipo_dte, folio, account_id, range_id, status, reserved_at)
         select $2, $3, f, $1, upd.id, 'reserved', $5 from upd, generate_series(upd.first, upd.first + upd.n - 1) f
         on conflict do nothing returning folio
       )
       select upd.id, upd.first::float8 as first, upd.n::float8 as n, upd.caf_block, upd.private_key_enc,
         array(select folio::float8 from ins order by folio) as reserved,
         (upd.left_here + coalesce((select sum(o.hasta - o.next_folio + 1) from folio_ranges o
            where o.account_id = $1 and o.tenant_id = $2 and o.tipo_dte = $3 and o.id <> upd.id and ${usable('o', '$4')}), 0))::float8 as disponibles,
         s.low_threshold, s.low_armed
       from upd left join folio_settings s on s.tenant_id = $2 and s.tipo_dte = $3`,
      [a.accountId, a.tenantId, a.tipoDte, a.today, a.now, a.datedOn ?? null, a.count],
    );
    const row = r.rows[0];
    if (!row) return undefined;
    const first = num(row.first);
    const reserved = new Set((row.reserved ?? []).map(num));
    const all = Array.from({ length: num(row.n) }, (_, i) => first + i);
    return {
      rangeId: row.id,
      cafBlock: row.caf_block,
      privateKeyEnc: row.private_key_enc,
      folios: all.filter((f) => reserved.has(f)),
      skipped: all.filter((f) => !reserved.has(f)),
      disponibles: num(row.disponibles),
      lowThreshold: row.low_threshold,
      lowArmed: row.low_armed,
    };
  },

  /**
   * reserved → used, as a data-modifying CTE for the statement that stores the DTEs: `docs` names a
   * relation with the columns account_id, tenant_id, tipo_dte, folio and id (the DTE's). It returns
   * `dte_id` for each folio it marked; a reservation voided meanwhile is not marked, and that DTE
   * must not be stored. Being part of the DTE's own statement, it commits with it or not at all.
   */
  markUsedSql: (docs: string): string =>
    `update folio_allocations a set status = 'used', dte_id = d.id from ${docs} d
     where a.account_id = d.account_id and a.tenant_id = d.tenant_id and a.tipo_dte = d.tipo_dte and a.folio = d.folio
       and a.status = 'reserved'
     returning a.dte_id`,

  async voidAllocation(sql: Sql, a: { accountId: string; tenantId: string; tipoDte: number; folio: number }) {
    await sql.query(
      `update folio_allocations set status = 'void' where account_id = $1 and tenant_id = $2 and tipo_dte = $3 and folio = $4 and status = 'reserved'`,
      [a.accountId, a.tenantId, a.tipoDte, a.folio],
    );
  },

  /** Reservations whose create never finished (its process died): voided, never handed out again. */
  async voidStale(sql: Sql, olderThan: Date): Promise<number> {
    const r = await sql.query(`update folio_allocations set status = 'void' where status = 'reserved' and reserved_at < $1`, [olderThan]);
    return r.rowCount;
  },
};
