import type { Sql } from '../../db/types.ts';

/**
 * Folio requests and the CAF ranges they bring. Every query is scoped by account: another
 * account's tenant has no requests here.
 */
export interface FolioRequestRow {
  id: string;
  account_id: string;
  tenant_id: string;
  tipo_dte: number;
  cantidad: number;
  status: 'pending' | 'completed' | 'failed';
  range_id: string | null;
  /** An ErrorKind (src/errors.ts), never an HTTP status: the HTTP layer maps it. */
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

export interface NewRange {
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
}

export const requestStore = {
  async insertRequest(tx: Sql, r: { id: string; accountId: string; tenantId: string; tipoDte: number; cantidad: number; now: Date }) {
    await tx.query(
      `insert into folio_requests (id, account_id, tenant_id, tipo_dte, cantidad, status, created_at, updated_at)
       values ($1, $2, $3, $4, $5, 'pending', $6, $6)`,
      [r.id, r.accountId, r.tenantId, r.tipoDte, r.cantidad, r.now],
    );
  },

  /** `tenantId` null: any tenant of the account (the job knows only the request). */
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

  /** Every range the tenant has of a type, whatever its state: what a retried request must not take as its lost grant. */
  async heldRanges(sql: Sql, accountId: string, tenantId: string, tipoDte: number): Promise<{ desde: number; hasta: number }[]> {
    const r = await sql.query<{ desde: number; hasta: number }>(
      `select desde::float8 as desde, hasta::float8 as hasta from folio_ranges
       where account_id = $1 and tenant_id = $2 and tipo_dte = $3 order by desde`,
      [accountId, tenantId, tipoDte],
    );
    return r.rows.map((x) => ({ desde: Number(x.desde), hasta: Number(x.hasta) }));
  },

  /** A verified CAF becomes a range; its counter starts at `desde`. */
  async insertRange(tx: Sql, g: NewRange): Promise<boolean> {
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
};
