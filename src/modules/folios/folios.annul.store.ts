import type { Sql } from '../../db/types.ts';
import { num } from './folios.inventory.store.ts';

/** Voided folios on their way to being annulled at the SII (folios.annul.ts). */
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

export const annulStore = {
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
      folio: num(x.folio),
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

  /** The CAF of a range: its issuer is who the annulment is sent for. */
  async getRangeKey(sql: Sql, accountId: string, rangeId: string) {
    const r = await sql.query<{ tenant_id: string; caf_block: string; private_key_enc: Buffer }>(
      'select tenant_id, caf_block, private_key_enc from folio_ranges where account_id = $1 and id = $2',
      [accountId, rangeId],
    );
    return r.rows[0];
  },
};
