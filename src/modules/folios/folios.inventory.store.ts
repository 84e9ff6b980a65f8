import type { Sql } from '../../db/types.ts';

/**
 * Folio stock: the usable ranges, the per-type settings, and the folio.low alarm's state. Every
 * query is scoped by account: another account's tenant has no folios here.
 */
export interface FolioRangeRow {
  id: string;
  tenant_id: string;
  tipo_dte: number;
  desde: number;
  hasta: number;
  next_folio: number;
  fecha_autorizacion: string;
  vencimiento: string | null;
}

export interface SettingsRow {
  tipo_dte: number;
  low_threshold: number;
  low_armed: boolean;
}

/** The folio.low threshold of a type nobody has set one for (docs/folios.md, "The folio.low event"). */
export const DEFAULT_LOW_THRESHOLD = 10;

const RANGE_COLS = `id, tenant_id, tipo_dte, desde::float8 as desde, hasta::float8 as hasta, next_folio::float8 as next_folio,
  to_char(fecha_autorizacion, 'YYYY-MM-DD') as fecha_autorizacion, to_char(vencimiento, 'YYYY-MM-DD') as vencimiento`;

/** bigint columns come back as numbers on PostgreSQL (int8 parser) and as bigint on PGlite. */
export const num = (v: unknown): number => Number(v);

/**
 * A range folios can still come from, as SQL on the range alias `g` with `today` in parameter
 * `todayParam`: not used up, not expired, and granted in the tenant's current SII environment (a
 * certification CAF must not number production documents, nor the other way round; ranges from
 * before the environment was recorded have none and stay usable). The allocation uses the same
 * rule, so the inventory never counts a folio that cannot be handed out.
 */
export const usable = (g: string, todayParam: string) =>
  `${g}.next_folio <= ${g}.hasta and (${g}.vencimiento is null or ${g}.vencimiento > ${todayParam}::date)
   and (${g}.ambiente is null or ${g}.ambiente = (select t.ambiente from tenants t where t.id = ${g}.tenant_id))`;

export const inventoryStore = {
  /** Usable ranges (not used up, not expired on `today`, of the tenant's environment), oldest first. */
  async usableRanges(sql: Sql, accountId: string, tenantId: string, today: string, tipoDte?: number): Promise<FolioRangeRow[]> {
    const r = await sql.query<FolioRangeRow>(
      `select ${RANGE_COLS} from folio_ranges g
       where g.account_id = $1 and g.tenant_id = $2 and ${usable('g', '$3')}
         and ($4::int is null or g.tipo_dte = $4)
       order by tipo_dte, desde`,
      [accountId, tenantId, today, tipoDte ?? null],
    );
    return r.rows.map((x) => ({ ...x, desde: num(x.desde), hasta: num(x.hasta), next_folio: num(x.next_folio) }));
  },

  async settings(sql: Sql, accountId: string, tenantId: string): Promise<SettingsRow[]> {
    const r = await sql.query<SettingsRow>(
      'select tipo_dte, low_threshold, low_armed from folio_settings where account_id = $1 and tenant_id = $2 order by tipo_dte',
      [accountId, tenantId],
    );
    return r.rows;
  },

  async ensureSettings(tx: Sql, accountId: string, tenantId: string, tipoDte: number, now: Date) {
    await tx.query(
      `insert into folio_settings (tenant_id, tipo_dte, account_id, low_threshold, low_armed, updated_at)
       values ($1, $2, $3, $4, true, $5) on conflict do nothing`,
      [tenantId, tipoDte, accountId, DEFAULT_LOW_THRESHOLD, now],
    );
  },

  async setThreshold(tx: Sql, accountId: string, tenantId: string, tipoDte: number, threshold: number, now: Date) {
    await tx.query(
      `insert into folio_settings (tenant_id, tipo_dte, account_id, low_threshold, low_armed, updated_at)
       values ($1, $2, $3, $4, true, $5)
       on conflict (tenant_id, tipo_dte) do update set low_threshold = $4, updated_at = $5`,
      [tenantId, tipoDte, accountId, threshold, now],
    );
  },

  /**
   * Stock of a type and the folio.low alarm in one statement: the alarm disarms when stock is
   * below the threshold (only if `mayFire`) and re-arms when it is back at or above it.
   * `fired` is true exactly when this call disarmed it: the caller emits folio.low then.
   */
  async evaluateAlarm(
    tx: Sql,
    a: { accountId: string; tenantId: string; tipoDte: number; today: string; now: Date; mayFire: boolean },
  ): Promise<{ disponibles: number; fired: boolean; lowThreshold: number | null }> {
    const r = await tx.query<{ disponibles: number; low_armed: boolean | null; low_threshold: number | null }>(
      `with d as (
         select coalesce(sum(g.hasta - g.next_folio + 1), 0)::float8 as disponibles from folio_ranges g
         where g.account_id = $1 and g.tenant_id = $2 and g.tipo_dte = $3 and ${usable('g', '$4')}
       ), s as (
         update folio_settings f set low_armed = (d.disponibles >= f.low_threshold), updated_at = $5
         from d
         where f.account_id = $1 and f.tenant_id = $2 and f.tipo_dte = $3
           and f.low_armed <> (d.disponibles >= f.low_threshold)
           and ($6::boolean or d.disponibles >= f.low_threshold)
         returning f.low_armed, f.low_threshold
       )
       select d.disponibles, s.low_armed, s.low_threshold from d left join s on true`,
      [a.accountId, a.tenantId, a.tipoDte, a.today, a.now, a.mayFire],
    );
    const row = r.rows[0]!;
    return { disponibles: num(row.disponibles), fired: row.low_armed === false, lowThreshold: row.low_threshold };
  },
};
