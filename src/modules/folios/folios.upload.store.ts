import type { Sql } from '../../db/types.ts';
import { num } from './folios.inventory.store.ts';

/**
 * The ranges an uploaded CAF is checked against. Every query is scoped by account. A tenant's
 * folios are one sequence per document type whatever the environment (folio_allocations' key is
 * the folio), so overlaps are looked for among all its ranges of the type.
 */
export interface StoredRangeRow {
  id: string;
  tipo_dte: number;
  desde: number;
  hasta: number;
  next_folio: number;
  fecha_autorizacion: string;
  vencimiento: string | null;
  idk: number;
  ambiente: string | null;
  caf_block: string;
  created_at: Date;
}

const COLS = `id, tipo_dte, desde::float8 as desde, hasta::float8 as hasta, next_folio::float8 as next_folio,
  to_char(fecha_autorizacion, 'YYYY-MM-DD') as fecha_autorizacion, to_char(vencimiento, 'YYYY-MM-DD') as vencimiento,
  idk, ambiente, caf_block, created_at`;

const row = (r: StoredRangeRow): StoredRangeRow => ({ ...r, desde: num(r.desde), hasta: num(r.hasta), next_folio: num(r.next_folio) });

export const uploadStore = {
  /**
   * Serialises the checks and the insert of ranges of one tenant and type until the transaction
   * ends, so two uploads of overlapping CAFs cannot both pass the overlap check.
   */
  async lockTenantType(tx: Sql, tenantId: string, tipoDte: number): Promise<void> {
    await tx.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`folio_ranges:${tenantId}:${tipoDte}`]);
  },

  async overlapping(tx: Sql, a: { accountId: string; tenantId: string; tipoDte: number; desde: number; hasta: number }) {
    const r = await tx.query<StoredRangeRow>(
      `select ${COLS} from folio_ranges
       where account_id = $1 and tenant_id = $2 and tipo_dte = $3 and desde <= $5 and hasta >= $4
       order by desde`,
      [a.accountId, a.tenantId, a.tipoDte, a.desde, a.hasta],
    );
    return r.rows.map(row);
  },

  async byId(sql: Sql, accountId: string, id: string): Promise<StoredRangeRow | undefined> {
    const r = await sql.query<StoredRangeRow>(`select ${COLS} from folio_ranges where account_id = $1 and id = $2`, [accountId, id]);
    return r.rows[0] ? row(r.rows[0]) : undefined;
  },
};
