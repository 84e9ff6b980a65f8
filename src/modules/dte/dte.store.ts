import type { Sql } from '../../db/types.ts';
import type { StoredDocument } from '../../dte/index.ts';
import { cursorCondition, type Cursor } from '../../lib/pagination.ts';
import { UUID_RE } from '../../lib/tokens.ts';

/**
 * Ids are compared as uuids so that the primary key finds them (`id::text = …` scanned every row
 * of the account); a malformed id cannot be a row, and would not cast.
 */
const onlyUuids = (ids: readonly string[]): string[] => ids.filter((id) => UUID_RE.test(id));

/** DTE, history and envío rows. Every query is scoped by account (another account's row is a 404). */
export type DteStatus = 'created' | 'sending' | 'sent' | 'accepted' | 'accepted_with_objections' | 'rejected' | 'send_failed';

// What a DTE record keeps of the document is what the engine's prepare step says it is.
export type StoredReceptor = StoredDocument['receptor'];
export type StoredLine = StoredDocument['detalle'][number];
export type StoredReferencia = StoredDocument['referencias'][number];
export interface StoredDteDocument {
  extras: StoredDocument['extras'];
  totales: StoredDocument['totales'];
  /** The SII office printed on the document, as resolved when it was issued (docs/dte.md, "Issuer data"). */
  unidadSii?: string | null;
}

export interface DteRow {
  id: string;
  account_id: string;
  tenant_id: string;
  tipo_dte: number;
  folio: number;
  status: DteStatus;
  fecha_emision: string;
  receptor: StoredReceptor;
  detalle: StoredLine[];
  referencias: StoredReferencia[];
  forma_pago: number | null;
  /** The rest of the document model and of the computed totals (docs/decisions.md §11); `{}` on rows from before it. */
  documento: Partial<StoredDteDocument>;
  monto_neto: number;
  monto_exento: number;
  iva: number;
  monto_total: number;
  envio_id: string | null;
  track_id: string | null;
  sii_estado: string | null;
  sii_glosa: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewDte {
  id: string;
  accountId: string;
  tenantId: string;
  tipoDte: number;
  folio: number;
  fechaEmision: string;
  receptor: StoredReceptor;
  detalle: StoredLine[];
  referencias: StoredReferencia[];
  formaPago: number | null;
  documento: StoredDteDocument;
  montoNeto: number;
  montoExento: number;
  iva: number;
  montoTotal: number;
  xml: Buffer;
  now: Date;
}

export interface EnvioRow {
  id: string;
  account_id: string;
  tenant_id: string;
  tipo_envio: 'EnvioDTE' | 'EnvioBOLETA';
  status: 'pending' | 'sent' | 'processed' | 'failed';
  dte_ids: string[];
  track_id: string | null;
  sii_estado: string | null;
  sii_glosa: string | null;
  error_code: string | null;
  polls: number;
  created_at: Date;
  updated_at: Date;
}

export interface HistoryRow {
  previous_status: DteStatus | null;
  status: DteStatus;
  sii_estado: string | null;
  sii_glosa: string | null;
  track_id: string | null;
  created_at: Date;
}

// Never selects `xml`: the signed bytes are read only where they are needed.
const DTE_COLS = `id, account_id, tenant_id, tipo_dte, folio::float8 as folio, status, to_char(fecha_emision, 'YYYY-MM-DD') as fecha_emision,
  receptor, detalle, referencias, forma_pago, documento, monto_neto::float8 as monto_neto, monto_exento::float8 as monto_exento,
  iva::float8 as iva, monto_total::float8 as monto_total, envio_id, track_id, sii_estado, sii_glosa, created_at, updated_at`;
const ENVIO_COLS =
  'id, account_id, tenant_id, tipo_envio, status, dte_ids, track_id, sii_estado, sii_glosa, error_code, polls, created_at, updated_at';

export const dteStore = {
  /**
   * Issued DTEs, any number in one statement: each with its signed XML and its first history entry,
   * and only if `markUsed` (the folios module's step, as a data-modifying CTE over the relation
   * `docs`) turns its folio's reservation into `used` in the same statement. Returns the rows it
   * stored; a document whose reservation lapsed is not among them. One statement is atomic on its
   * own: it needs no transaction, and its documents are stored together or not at all.
   */
  async insertIssued(sql: Sql, docs: readonly NewDte[], markUsed: (docs: string) => string): Promise<DteRow[]> {
    // Each document's XML is a bytea parameter of its own, not base64 inside the JSON: on PGlite
    // bytes go in binary (src/db/pglite-statements.ts), so ~5 KB per document are neither encoded,
    // measured, escaped nor parsed as JSON text (docs/performance.md, "Fifth round: PGlite
    // creation"). One text per batch size (the group commit's batches are at most 32).
    const payload = docs.map((d, i) => ({
      i: i + 1,
      id: d.id,
      account_id: d.accountId,
      tenant_id: d.tenantId,
      tipo_dte: d.tipoDte,
      folio: d.folio,
      fecha_emision: d.fechaEmision,
      receptor: d.receptor,
      detalle: d.detalle,
      referencias: d.referencias,
      forma_pago: d.formaPago,
      documento: d.documento,
      monto_neto: d.montoNeto,
      monto_exento: d.montoExento,
      iva: d.iva,
      monto_total: d.montoTotal,
      now: d.now.toISOString(),
    }));
    const xmlParams = docs.map((_, i) => `$${i + 2}::bytea`).join(', ');
    const r = await sql.query<DteRow>(
      `with docs as (
         select x.*, b.xml from jsonb_to_recordset($1::jsonb) as x(i bigint, id uuid, account_id uuid, tenant_id uuid, tipo_dte integer,
           folio bigint, fecha_emision date, receptor jsonb, detalle jsonb, referencias jsonb, forma_pago integer, documento jsonb,
           monto_neto numeric, monto_exento numeric, iva numeric, monto_total numeric, now timestamptz)
         join unnest(array[${xmlParams}]) with ordinality as b(xml, i) on b.i = x.i
       ), used as (
         ${markUsed('docs')}
       ), ins as (
         insert into dtes (id, account_id, tenant_id, tipo_dte, folio, status, fecha_emision, receptor, detalle, referencias, forma_pago,
           monto_neto, monto_exento, iva, monto_total, xml, created_at, updated_at, documento)
         select d.id, d.account_id, d.tenant_id, d.tipo_dte, d.folio, 'created', d.fecha_emision, d.receptor, d.detalle, d.referencias,
           d.forma_pago, d.monto_neto, d.monto_exento, d.iva, d.monto_total, d.xml, d.now, d.now, d.documento
         from docs d join used u on u.dte_id = d.id
         returning ${DTE_COLS}
       ), h as (
         insert into dte_status_history (dte_id, account_id, previous_status, status, created_at)
         select id, account_id, null, 'created', created_at from ins
       )
       select * from ins`,
      [JSON.stringify(payload), ...docs.map((d) => d.xml)],
    );
    return r.rows;
  },

  async get(sql: Sql, accountId: string, id: string, tenantId?: string): Promise<DteRow | undefined> {
    if (!UUID_RE.test(id)) return undefined;
    const r = await sql.query<DteRow>(
      `select ${DTE_COLS} from dtes where account_id = $1 and id = $2 and ($3::uuid is null or tenant_id = $3)`,
      [accountId, id, tenantId ?? null],
    );
    return r.rows[0];
  },

  /** The total of one of the tenant's own documents, by type and folio (the unique dtes_folio_once). */
  async totalOf(sql: Sql, accountId: string, tenantId: string, tipoDte: number, folio: number): Promise<string | undefined> {
    const r = await sql.query<{ monto_total: string }>(
      `select monto_total::text as monto_total from dtes where account_id = $1 and tenant_id = $2 and tipo_dte = $3 and folio = $4`,
      [accountId, tenantId, tipoDte, folio],
    );
    return r.rows[0]?.monto_total;
  },

  /** The signed XML and what the printed document needs beside it. */
  async getPrintable(
    sql: Sql,
    accountId: string,
    tenantId: string,
    id: string,
  ): Promise<{ xml: Buffer; unidadSii: string | null } | undefined> {
    if (!UUID_RE.test(id)) return undefined;
    const r = await sql.query<{ xml: Buffer; unidad_sii: string | null }>(
      `select xml, documento->>'unidadSii' as unidad_sii from dtes where account_id = $1 and tenant_id = $2 and id = $3`,
      [accountId, tenantId, id],
    );
    const row = r.rows[0];
    return row && { xml: row.xml, unidadSii: row.unidad_sii };
  },

  async getXml(sql: Sql, accountId: string, tenantId: string, id: string): Promise<Buffer | undefined> {
    if (!UUID_RE.test(id)) return undefined;
    const r = await sql.query<{ xml: Buffer }>('select xml from dtes where account_id = $1 and tenant_id = $2 and id = $3', [
      accountId,
      tenantId,
      id,
    ]);
    return r.rows[0]?.xml;
  },

  /**
   * A tenant's DTEs, newest first, with the optional filters of the dashboard's search. Each
   * filter has an index that starts with tenant_id (migration 202611301000_dte_search_indexes):
   * folio, receptor RUT, date of issue, state; the plain list walks dtes_tenant_list.
   */
  async list(
    sql: Sql,
    accountId: string,
    tenantId: string,
    q: {
      limit: number;
      cursor?: Cursor | undefined;
      status?: string | undefined;
      tipoDte?: number | undefined;
      folio?: number | undefined;
      receptorRut?: string | undefined;
      fechaDesde?: string | undefined;
      fechaHasta?: string | undefined;
    },
  ): Promise<DteRow[]> {
    const c = cursorCondition(q.cursor, 10);
    const r = await sql.query<DteRow>(
      `select ${DTE_COLS} from dtes
       where account_id = $1 and tenant_id = $2 and ($3::text is null or status = $3) and ($4::int is null or tipo_dte = $4)
         and ($6::bigint is null or folio = $6) and ($7::text is null or receptor->>'rut' = $7)
         and ($8::date is null or fecha_emision >= $8) and ($9::date is null or fecha_emision <= $9) and ${c.sql}
       order by created_at desc, id desc limit $5`,
      [
        accountId,
        tenantId,
        q.status ?? null,
        q.tipoDte ?? null,
        q.limit + 1,
        q.folio ?? null,
        q.receptorRut ?? null,
        q.fechaDesde ?? null,
        q.fechaHasta ?? null,
        ...c.params,
      ],
    );
    return r.rows;
  },

  /** The DTEs to send, locked for the state change, in the order asked. */
  async lockForSend(tx: Sql, accountId: string, tenantId: string, ids: string[]): Promise<DteRow[]> {
    const r = await tx.query<DteRow>(
      `select ${DTE_COLS} from dtes where account_id = $1 and tenant_id = $2 and id = any($3::uuid[]) order by id for update`,
      [accountId, tenantId, onlyUuids(ids)],
    );
    return r.rows;
  },

  async xmlsOf(sql: Sql, accountId: string, ids: string[]): Promise<Map<string, Buffer>> {
    const r = await sql.query<{ id: string; xml: Buffer }>('select id, xml from dtes where account_id = $1 and id = any($2::uuid[])', [
      accountId,
      onlyUuids(ids),
    ]);
    return new Map(r.rows.map((x) => [x.id, x.xml]));
  },

  async rowsOf(sql: Sql, accountId: string, ids: string[], forUpdate = false): Promise<DteRow[]> {
    const r = await sql.query<DteRow>(
      `select ${DTE_COLS} from dtes where account_id = $1 and id = any($2::uuid[]) order by id${forUpdate ? ' for update' : ''}`,
      [accountId, onlyUuids(ids)],
    );
    return r.rows;
  },

  async setStatus(
    tx: Sql,
    d: {
      id: string;
      accountId: string;
      status: DteStatus;
      envioId?: string | null;
      trackId: string | null;
      estado: string | null;
      glosa: string | null;
      now: Date;
    },
  ) {
    await tx.query(
      `update dtes set status = $3, envio_id = coalesce($4, envio_id), track_id = $5, sii_estado = $6, sii_glosa = $7, updated_at = $8
       where account_id = $1 and id = $2`,
      [d.accountId, d.id, d.status, d.envioId ?? null, d.trackId, d.estado, d.glosa, d.now],
    );
  },

  async addHistory(
    tx: Sql,
    h: {
      dteId: string;
      accountId: string;
      previous: DteStatus | null;
      status: DteStatus;
      trackId: string | null;
      estado: string | null;
      glosa: string | null;
      now: Date;
    },
  ) {
    await tx.query(
      `insert into dte_status_history (dte_id, account_id, previous_status, status, sii_estado, sii_glosa, track_id, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [h.dteId, h.accountId, h.previous, h.status, h.estado, h.glosa, h.trackId, h.now],
    );
  },

  async history(sql: Sql, accountId: string, dteId: string): Promise<HistoryRow[]> {
    const r = await sql.query<HistoryRow>(
      'select previous_status, status, sii_estado, sii_glosa, track_id, created_at from dte_status_history where account_id = $1 and dte_id = $2 order by id',
      [accountId, dteId],
    );
    return r.rows;
  },

  async insertEnvio(tx: Sql, e: { id: string; accountId: string; tenantId: string; tipoEnvio: string; dteIds: string[]; now: Date }) {
    await tx.query(
      `insert into dte_envios (id, account_id, tenant_id, tipo_envio, status, dte_ids, created_at, updated_at)
       values ($1, $2, $3, $4, 'pending', $5, $6, $6)`,
      [e.id, e.accountId, e.tenantId, e.tipoEnvio, JSON.stringify(e.dteIds), e.now],
    );
  },

  async getEnvio(sql: Sql, accountId: string, id: string, tenantId?: string): Promise<EnvioRow | undefined> {
    if (!UUID_RE.test(id)) return undefined;
    const r = await sql.query<EnvioRow>(
      `select ${ENVIO_COLS} from dte_envios where account_id = $1 and id = $2 and ($3::uuid is null or tenant_id = $3)`,
      [accountId, id, tenantId ?? null],
    );
    return r.rows[0];
  },

  async getEnvioForUpdate(tx: Sql, accountId: string, id: string): Promise<EnvioRow | undefined> {
    const r = await tx.query<EnvioRow>(`select ${ENVIO_COLS} from dte_envios where account_id = $1 and id = $2 for update`, [
      accountId,
      id,
    ]);
    return r.rows[0];
  },

  /**
   * The documents among `ids` that went through an upload that failed: the SII may have received
   * them then, so a later envelope can report them as repeated (DTE-3-100) though they are accepted.
   */
  async sentBefore(sql: Sql, accountId: string, ids: string[]): Promise<Set<string>> {
    const r = await sql.query<{ dte_id: string }>(
      `select distinct dte_id from dte_status_history where account_id = $1 and dte_id = any($2::uuid[]) and status = 'send_failed'`,
      [accountId, ids],
    );
    return new Set(r.rows.map((x) => String(x.dte_id)));
  },

  async envios(sql: Sql, accountId: string, ids: string[]): Promise<EnvioRow[]> {
    const r = await sql.query<EnvioRow>(`select ${ENVIO_COLS} from dte_envios where account_id = $1 and id = any($2::uuid[])`, [
      accountId,
      onlyUuids(ids),
    ]);
    return r.rows;
  },

  async getEnvelope(sql: Sql, accountId: string, tenantId: string, id: string): Promise<Buffer | null | undefined> {
    if (!UUID_RE.test(id)) return undefined;
    const r = await sql.query<{ envelope: Buffer | null }>(
      'select envelope from dte_envios where account_id = $1 and tenant_id = $2 and id = $3',
      [accountId, tenantId, id],
    );
    return r.rows[0] ? r.rows[0].envelope : undefined;
  },

  async saveEnvelope(sql: Sql, accountId: string, id: string, envelope: Buffer, now: Date) {
    await sql.query(`update dte_envios set envelope = $3, updated_at = $4 where account_id = $1 and id = $2 and status = 'pending'`, [
      accountId,
      id,
      envelope,
      now,
    ]);
  },

  async updateEnvio(
    tx: Sql,
    e: {
      id: string;
      accountId: string;
      status: EnvioRow['status'];
      trackId?: string | null;
      estado: string | null;
      glosa: string | null;
      errorCode?: string | null;
      uploadResponse?: Buffer | null;
      statusResponse?: Buffer | null;
      pollsIncrement?: number;
      now: Date;
    },
  ) {
    await tx.query(
      `update dte_envios set status = $3, track_id = coalesce($4, track_id), sii_estado = $5, sii_glosa = $6, error_code = coalesce($7, error_code),
         upload_response = coalesce($8, upload_response), status_response = coalesce($9, status_response), polls = polls + $10, updated_at = $11
       where account_id = $1 and id = $2`,
      [
        e.accountId,
        e.id,
        e.status,
        e.trackId ?? null,
        e.estado,
        e.glosa,
        e.errorCode ?? null,
        e.uploadResponse ?? null,
        e.statusResponse ?? null,
        e.pollsIncrement ?? 0,
        e.now,
      ],
    );
  },
};
