import type { Sql } from '../../db/types.ts';

/** Folio rows. Every query is scoped by account: another account's tenant has no folios here. */
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

export interface FolioRequestRow {
  id: string;
  account_id: string;
  tenant_id: string;
  tipo_dte: number;
  cantidad: number;
  status: 'pending' | 'completed' | 'failed';
  range_id: string | null;
  error_kind: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  // joined from the range, when completed
  desde: number | null;
  hasta: number | null;
  fecha_autorizacion: string | null;
  vencimiento: string | null;
}

export interface SettingsRow {
  tipo_dte: number;
  low_threshold: number;
  low_armed: boolean;
}

export interface Allocation {
  rangeId: string;
  folio: number;
  cafBlock: string;
  privateKeyEnc: Buffer;
}

const DEFAULT_THRESHOLD = 10;
const RANGE_COLS = `id, tenant_id, tipo_dte, desde::float8 as desde, hasta::float8 as hasta, next_folio::float8 as next_folio,
  to_char(fecha_autorizacion, 'YYYY-MM-DD') as fecha_autorizacion, to_char(vencimiento, 'YYYY-MM-DD') as vencimiento`;

// bigint columns come back as numbers on PostgreSQL (int8 parser) and as bigint on PGlite.
const n = (v: unknown): number => Number(v);

/**
 * A range folios can still come from, as SQL on the range alias `g` with `today` in parameter
 * `todayParam`: not used up, not expired, and granted in the tenant's current SII environment (a
 * certification CAF must not number production documents, nor the other way round; ranges from
 * before the environment was recorded have none and stay usable).
 */
const usable = (g: string, todayParam: string) =>
  `${g}.next_folio <= ${g}.hasta and (${g}.vencimiento is null or ${g}.vencimiento > ${todayParam}::date)
   and (${g}.ambiente is null or ${g}.ambiente = (select t.ambiente from tenants t where t.id = ${g}.tenant_id))`;

/** A voided folio waiting to be annulled at the SII. */
export interface VoidedFolio {
  accountId: string;
  tenantId: string;
  tipoDte: number;
  folio: number;
  rangeId: string;
  attempts: number;
  /** The SII environment of the folio's CAF (where the annulment must go). */
  ambiente: 'certificacion' | 'produccion';
}

export const foliosStore = {
  async insertRequest(tx: Sql, r: { id: string; accountId: string; tenantId: string; tipoDte: number; cantidad: number; now: Date }) {
    await tx.query(
      `insert into folio_requests (id, account_id, tenant_id, tipo_dte, cantidad, status, created_at, updated_at)
       values ($1, $2, $3, $4, $5, 'pending', $6, $6)`,
      [r.id, r.accountId, r.tenantId, r.tipoDte, r.cantidad, r.now],
    );
  },

  async getRequest(sql: Sql, accountId: string, tenantId: string | null, id: string): Promise<FolioRequestRow | undefined> {
    const r = await sql.query<FolioRequestRow>(
      `select q.*, g.desde::float8 as desde, g.hasta::float8 as hasta,
         to_char(g.fecha_autorizacion, 'YYYY-MM-DD') as fecha_autorizacion, to_char(g.vencimiento, 'YYYY-MM-DD') as vencimiento
       from folio_requests q left join folio_ranges g on g.id = q.range_id
       where q.account_id = $1 and ($2::uuid is null or q.tenant_id = $2) and q.id::text = $3`,
      [accountId, tenantId, id],
    );
    return r.rows[0];
  },

  async lockPendingRequest(tx: Sql, accountId: string, id: string): Promise<boolean> {
    const r = await tx.query(`select 1 from folio_requests where account_id = $1 and id = $2 and status = 'pending' for update`, [
      accountId,
      id,
    ]);
    return r.rowCount === 1;
  },

  async completeRequest(tx: Sql, accountId: string, id: string, rangeId: string, now: Date): Promise<boolean> {
    const r = await tx.query(
      `update folio_requests set status = 'completed', range_id = $3, updated_at = $4, completed_at = $4
       where account_id = $1 and id = $2 and status = 'pending'`,
      [accountId, id, rangeId, now],
    );
    return r.rowCount === 1;
  },

  async failRequest(sql: Sql, accountId: string, id: string, e: { kind: string; code: string; message: string }, now: Date) {
    await sql.query(
      `update folio_requests set status = 'failed', error_kind = $3, error_code = $4, error_message = $5, updated_at = $6, completed_at = $6
       where account_id = $1 and id = $2 and status = 'pending'`,
      [accountId, id, e.kind, e.code, e.message, now],
    );
  },

  async insertRange(
    tx: Sql,
    g: {
      id: string;
      accountId: string;
      tenantId: string;
      tipoDte: number;
      desde: number;
      hasta: number;
      fechaAutorizacion: string;
      vencimiento: string | null;
      idk: number;
      cafBlock: string;
      privateKeyEnc: Buffer;
      requestId: string | null;
      /** The SII environment the CAF was granted in. */
      ambiente: string;
      now: Date;
    },
  ): Promise<boolean> {
    const r = await tx.query(
      `insert into folio_ranges (id, account_id, tenant_id, tipo_dte, desde, hasta, next_folio, fecha_autorizacion, vencimiento,
         idk, caf_block, private_key_enc, request_id, created_at, ambiente)
       values ($1, $2, $3, $4, $5, $6, $5, $7, $8, $9, $10, $11, $12, $13, $14) on conflict do nothing`,
      [
        g.id,
        g.accountId,
        g.tenantId,
        g.tipoDte,
        g.desde,
        g.hasta,
        g.fechaAutorizacion,
        g.vencimiento,
        g.idk,
        g.cafBlock,
        g.privateKeyEnc,
        g.requestId,
        g.now,
        g.ambiente,
      ],
    );
    return r.rowCount === 1;
  },

  /** Usable ranges (not used up, not expired on `today`, of the tenant's environment), oldest first. */
  async usableRanges(sql: Sql, accountId: string, tenantId: string, today: string, tipoDte?: number): Promise<FolioRangeRow[]> {
    const r = await sql.query<FolioRangeRow>(
      `select ${RANGE_COLS} from folio_ranges g
       where g.account_id = $1 and g.tenant_id = $2 and ${usable('g', '$3')}
         and ($4::int is null or g.tipo_dte = $4)
       order by tipo_dte, desde`,
      [accountId, tenantId, today, tipoDte ?? null],
    );
    return r.rows.map((x) => ({ ...x, desde: n(x.desde), hasta: n(x.hasta), next_folio: n(x.next_folio) }));
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
      [tenantId, tipoDte, accountId, DEFAULT_THRESHOLD, now],
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
    return { disponibles: n(row.disponibles), fired: row.low_armed === false, lowThreshold: row.low_threshold };
  },

  /**
   * Takes the next folio of the oldest usable range and records it as reserved — one statement,
   * atomic on its own, so the range's row lock is held only while it runs. Concurrent callers
   * queue on that lock and each gets the next number; a range used up meanwhile is skipped (the
   * locked row is re-checked) and the next one is taken. `reserved` is false when that folio had
   * been handed out before (a rewound counter): the primary key of folio_allocations refuses it,
   * and the caller takes the next one.
   * It also reports the stock left and the folio.low alarm's state, so the caller needs a second
   * statement only when the alarm must change (rarely).
   */
  async takeNext(
    sql: Sql,
    a: { accountId: string; tenantId: string; tipoDte: number; today: string; now: Date },
  ): Promise<(Allocation & { reserved: boolean; disponibles: number; lowThreshold: number | null; lowArmed: boolean | null }) | undefined> {
    const r = await sql.query<{
      id: string;
      folio: number;
      caf_block: string;
      private_key_enc: Buffer;
      reserved: boolean;
      disponibles: number;
      low_threshold: number | null;
      low_armed: boolean | null;
    }>(
      `with pick as (
         select g.id from folio_ranges g
         where g.account_id = $1 and g.tenant_id = $2 and g.tipo_dte = $3 and ${usable('g', '$4')}
         order by g.desde limit 1 for update of g
       ), upd as (
         update folio_ranges g set next_folio = g.next_folio + 1
         from pick where g.id = pick.id and g.next_folio <= g.hasta
         returning g.id, g.next_folio - 1 as folio, g.hasta - g.next_folio + 1 as left_here, g.caf_block, g.private_key_enc
       ), ins as (
         insert into folio_allocations (tenant_id, tipo_dte, folio, account_id, range_id, status, reserved_at)
         select $2, $3, upd.folio, $1, upd.id, 'reserved', $5 from upd
         on conflict do nothing returning folio
       )
       select upd.id, upd.folio::float8 as folio, upd.caf_block, upd.private_key_enc, exists (select 1 from ins) as reserved,
         (upd.left_here + coalesce((select sum(o.hasta - o.next_folio + 1) from folio_ranges o
            where o.account_id = $1 and o.tenant_id = $2 and o.tipo_dte = $3 and o.id <> upd.id and ${usable('o', '$4')}), 0))::float8 as disponibles,
         s.low_threshold, s.low_armed
       from upd left join folio_settings s on s.tenant_id = $2 and s.tipo_dte = $3`,
      [a.accountId, a.tenantId, a.tipoDte, a.today, a.now],
    );
    const row = r.rows[0];
    return row
      ? {
          rangeId: row.id,
          folio: n(row.folio),
          cafBlock: row.caf_block,
          privateKeyEnc: row.private_key_enc,
          reserved: row.reserved,
          disponibles: n(row.disponibles),
          lowThreshold: row.low_threshold,
          lowArmed: row.low_armed,
        }
      : undefined;
  },

  /** reserved → used, in the DTE's own transaction. False if the reservation was voided meanwhile. */
  async markUsed(tx: Sql, a: { accountId: string; tenantId: string; tipoDte: number; folio: number; dteId: string }): Promise<boolean> {
    const r = await tx.query(
      `update folio_allocations set status = 'used', dte_id = $5
       where account_id = $1 and tenant_id = $2 and tipo_dte = $3 and folio = $4 and status = 'reserved'`,
      [a.accountId, a.tenantId, a.tipoDte, a.folio, a.dteId],
    );
    return r.rowCount === 1;
  },

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

  /**
   * Claims voided folios still to be annulled at the SII: due, under the attempt limit, and not
   * claimed by another worker (SKIP LOCKED), pushing `annul_next_at` ahead as a lease.
   */
  async claimVoidedToAnnul(tx: Sql, a: { now: Date; leaseUntil: Date; maxAttempts: number; limit: number }): Promise<VoidedFolio[]> {
    const r = await tx.query<{
      account_id: string;
      tenant_id: string;
      tipo_dte: number;
      folio: string | number;
      range_id: string;
      annul_attempts: number;
      ambiente: string;
    }>(
      `update folio_allocations f set annul_next_at = $2
       from (select a.tenant_id, a.tipo_dte, a.folio, g.ambiente from folio_allocations a join folio_ranges g on g.id = a.range_id
             where a.status = 'void' and a.annulled_at is null and a.annul_attempts < $3 and (a.annul_next_at is null or a.annul_next_at <= $1)
               and g.ambiente is not null
             order by a.tenant_id, a.tipo_dte, a.folio limit $4 for update of a skip locked) c
       where f.tenant_id = c.tenant_id and f.tipo_dte = c.tipo_dte and f.folio = c.folio
       returning f.account_id, f.tenant_id, f.tipo_dte, f.folio, f.range_id, f.annul_attempts, c.ambiente`,
      [a.now, a.leaseUntil, a.maxAttempts, a.limit],
    );
    return r.rows.map((x) => ({
      accountId: x.account_id,
      tenantId: x.tenant_id,
      tipoDte: x.tipo_dte,
      folio: n(x.folio),
      rangeId: x.range_id,
      attempts: x.annul_attempts,
      ambiente: x.ambiente as 'certificacion' | 'produccion',
    }));
  },

  /**
   * Records the provider's answer for folios desde..hasta of one tenant and type, only while the
   * claim (`leaseUntil`) is still ours: a worker whose lease ran out leaves the record to the one
   * that took over. Returns how many folios were recorded.
   */
  async recordAnnulment(
    sql: Sql,
    a: {
      accountId: string;
      tenantId: string;
      tipoDte: number;
      desde: number;
      hasta: number;
      leaseUntil: Date;
      now: Date;
      error: string | null;
      nextAt: Date | null;
    },
  ): Promise<number> {
    const r = await sql.query(
      `update folio_allocations
       set annulled_at = case when $6::text is null then $5::timestamptz else null end, annul_error = $6,
           annul_attempts = annul_attempts + 1, annul_next_at = $7
       where account_id = $1 and tenant_id = $2 and tipo_dte = $3 and folio between $4 and $8 and status = 'void' and annulled_at is null
         and annul_next_at = $9`,
      [a.accountId, a.tenantId, a.tipoDte, a.desde, a.now, a.error, a.nextAt, a.hasta, a.leaseUntil],
    );
    return r.rowCount;
  },

  async getRangeKey(sql: Sql, accountId: string, rangeId: string) {
    const r = await sql.query<{ tenant_id: string; caf_block: string; private_key_enc: Buffer }>(
      'select tenant_id, caf_block, private_key_enc from folio_ranges where account_id = $1 and id = $2',
      [accountId, rangeId],
    );
    return r.rows[0];
  },
};
