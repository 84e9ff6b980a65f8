import type { Sql } from '../../db/types.ts';
import { cursorCondition, type Cursor } from '../../lib/pagination.ts';

/**
 * Received envelopes and documents (docs/received.md). Every query is scoped by account, and by
 * tenant where the caller names one (another account's row is a 404).
 */
export const RECEIVED_STATUSES = ['received', 'accepted', 'claimed'] as const;
export type ReceivedStatus = (typeof RECEIVED_STATUSES)[number];

export interface ReceivedDteRow {
  id: string;
  account_id: string;
  tenant_id: string;
  envio_id: string;
  rut_emisor: string;
  tipo_dte: number;
  folio: number;
  fecha_emision: string;
  rut_receptor: string;
  razon_social_emisor: string;
  giro_emisor: string | null;
  /** The supplier's exchange address as its DTE carries it (Emisor/CorreoEmisor). */
  correo_emisor: string | null;
  monto_neto: number | null;
  monto_exento: number | null;
  iva: number | null;
  monto_total: number;
  fecha_resolucion: string;
  numero_resolucion: number;
  status: ReceivedStatus;
  received_at: Date;
  acceptance_deadline: Date;
  /** The tenant's answers (received_acciones), in order, aggregated by DTE_COLS. */
  acciones: AccionSummary[];
  created_at: Date;
  updated_at: Date;
}

/** One answer as DTE_COLS aggregates it (instants as epoch milliseconds). */
export interface AccionSummary {
  n: number;
  accion: string;
  glosa: string | null;
  atMs: number;
  state: 'pending' | 'registered' | 'refused' | 'failed';
  codigo: number | null;
  descripcion: string | null;
  registeredAtMs: number | null;
  attempts: number;
  nextAtMs: number | null;
  lastError: string | null;
  respuestaTipo: string | null;
}

/** What one document of an upload came to (kept with the envío, answered by the API as is). */
export interface EnvioDocument {
  index: number;
  tipoDte: number | null;
  folio: number | null;
  fechaEmision: string | null;
  rutEmisor: string | null;
  rutReceptor: string | null;
  montoTotal: number | null;
  estadoRecepDte: number;
  glosa: string;
  outcome: 'received' | 'repeated' | 'refused';
  receivedDteId: string | null;
  error: { code: string; message: string } | null;
}

export interface ReceivedEnvioRow {
  id: string;
  account_id: string;
  tenant_id: string;
  cod_envio: number;
  envio_dte_id: string;
  nombre_envio: string;
  rut_emisor: string;
  rut_envia: string;
  sha256: string;
  documents: EnvioDocument[];
  created_at: Date;
}

export interface NewReceivedDte {
  id: string;
  accountId: string;
  tenantId: string;
  envioId: string;
  rutEmisor: string;
  tipoDte: number;
  folio: number;
  fechaEmision: string;
  rutReceptor: string;
  razonSocialEmisor: string;
  giroEmisor: string | null;
  correoEmisor: string | null;
  montoNeto: number | null;
  montoExento: number | null;
  iva: number | null;
  montoTotal: number;
  fechaResolucion: string;
  numeroResolucion: number;
  xml: Buffer;
  receivedAt: Date;
  acceptanceDeadline: Date;
}

export interface ListFilters {
  limit: number;
  cursor?: Cursor | undefined;
  rutEmisor?: string | undefined;
  tipoDte?: number | undefined;
  status?: string | undefined;
  fechaDesde?: string | undefined;
  fechaHasta?: string | undefined;
  recibidoDesde?: string | undefined;
  recibidoHasta?: string | undefined;
}

// Never selects `xml`: the document's bytes are read only where they are needed.
const DTE_COLS = `id, account_id, tenant_id, envio_id, rut_emisor, tipo_dte, folio::float8 as folio,
  to_char(fecha_emision, 'YYYY-MM-DD') as fecha_emision, rut_receptor, razon_social_emisor, giro_emisor, correo_emisor,
  monto_neto::float8 as monto_neto, monto_exento::float8 as monto_exento, iva::float8 as iva, monto_total::float8 as monto_total,
  to_char(fecha_resolucion, 'YYYY-MM-DD') as fecha_resolucion, numero_resolucion, status, received_at, acceptance_deadline,
  coalesce((select jsonb_agg(jsonb_build_object('n', a.n, 'accion', a.accion, 'glosa', a.glosa,
      'atMs', (extract(epoch from a.created_at) * 1000)::float8, 'state', a.sii_state, 'codigo', a.sii_codigo,
      'descripcion', a.sii_descripcion, 'registeredAtMs', (extract(epoch from a.sii_registered_at) * 1000)::float8,
      'attempts', a.sii_attempts, 'nextAtMs', (extract(epoch from a.sii_next_at) * 1000)::float8, 'lastError', a.sii_last_error,
      'respuestaTipo', a.respuesta_tipo) order by a.n)
    from received_acciones a where a.account_id = received_dtes.account_id and a.received_dte_id = received_dtes.id), '[]'::jsonb)
    as acciones,
  created_at, updated_at`;
const ENVIO_COLS = `id, account_id, tenant_id, cod_envio::float8 as cod_envio, envio_dte_id, nombre_envio, rut_emisor, rut_envia, sha256,
  documents, created_at`;

const key = (rutEmisor: string, tipoDte: number, folio: number) => `${rutEmisor}/${tipoDte}/${folio}`;

export const receivedStore = {
  key,

  /** The next CodEnvio / IdRespuesta (a sequence: gaps are harmless, repeats impossible). */
  async nextCode(sql: Sql): Promise<number> {
    const r = await sql.query<{ n: number }>(`select nextval('received_envio_code_seq')::float8 as n`);
    return r.rows[0]!.n;
  },

  /** Which of these documents the tenant already has: key(rutEmisor, tipoDte, folio) → id. */
  async existing(
    sql: Sql,
    accountId: string,
    tenantId: string,
    docs: readonly { rutEmisor: string; tipoDte: number; folio: number }[],
  ): Promise<Map<string, string>> {
    if (docs.length === 0) return new Map();
    const r = await sql.query<{ id: string; rut_emisor: string; tipo_dte: number; folio: number }>(
      `select d.id, d.rut_emisor, d.tipo_dte, d.folio::float8 as folio
       from received_dtes d
       join unnest($3::text[], $4::int[], $5::bigint[]) as k(rut_emisor, tipo_dte, folio)
         on d.rut_emisor = k.rut_emisor and d.tipo_dte = k.tipo_dte and d.folio = k.folio
       where d.account_id = $1 and d.tenant_id = $2`,
      [accountId, tenantId, docs.map((d) => d.rutEmisor), docs.map((d) => d.tipoDte), docs.map((d) => d.folio)],
    );
    return new Map(r.rows.map((x) => [key(x.rut_emisor, x.tipo_dte, x.folio), x.id]));
  },

  async insertEnvio(
    tx: Sql,
    e: {
      id: string;
      accountId: string;
      tenantId: string;
      codEnvio: number;
      envioDteId: string;
      nombreEnvio: string;
      rutEmisor: string;
      rutEnvia: string;
      sha256: string;
      documents: EnvioDocument[];
      respuesta: Buffer;
      now: Date;
    },
  ): Promise<ReceivedEnvioRow> {
    const r = await tx.query<ReceivedEnvioRow>(
      `insert into received_envios (id, account_id, tenant_id, cod_envio, envio_dte_id, nombre_envio, rut_emisor, rut_envia, sha256,
         documents, respuesta, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       returning ${ENVIO_COLS}`,
      [
        e.id,
        e.accountId,
        e.tenantId,
        e.codEnvio,
        e.envioDteId,
        e.nombreEnvio,
        e.rutEmisor,
        e.rutEnvia,
        e.sha256,
        JSON.stringify(e.documents),
        e.respuesta,
        e.now,
      ],
    );
    return r.rows[0]!;
  },

  /** Inserts the document unless the tenant already has it; undefined when it did. */
  async insertDte(tx: Sql, d: NewReceivedDte): Promise<ReceivedDteRow | undefined> {
    const r = await tx.query<ReceivedDteRow>(
      `insert into received_dtes (id, account_id, tenant_id, envio_id, rut_emisor, tipo_dte, folio, fecha_emision, rut_receptor,
         razon_social_emisor, giro_emisor, monto_neto, monto_exento, iva, monto_total, fecha_resolucion, numero_resolucion, xml,
         status, received_at, acceptance_deadline, created_at, updated_at, correo_emisor)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, 'received', $19, $20, $19, $19, $21)
       on conflict (tenant_id, rut_emisor, tipo_dte, folio) do nothing
       returning ${DTE_COLS}`,
      [
        d.id,
        d.accountId,
        d.tenantId,
        d.envioId,
        d.rutEmisor,
        d.tipoDte,
        d.folio,
        d.fechaEmision,
        d.rutReceptor,
        d.razonSocialEmisor,
        d.giroEmisor,
        d.montoNeto,
        d.montoExento,
        d.iva,
        d.montoTotal,
        d.fechaResolucion,
        d.numeroResolucion,
        d.xml,
        d.receivedAt,
        d.acceptanceDeadline,
        d.correoEmisor,
      ],
    );
    return r.rows[0];
  },

  async get(sql: Sql, accountId: string, tenantId: string, id: string): Promise<ReceivedDteRow | undefined> {
    const r = await sql.query<ReceivedDteRow>(
      `select ${DTE_COLS} from received_dtes where account_id = $1 and tenant_id = $2 and id = $3`,
      [accountId, tenantId, id],
    );
    return r.rows[0];
  },

  async getForUpdate(tx: Sql, accountId: string, tenantId: string, id: string): Promise<ReceivedDteRow | undefined> {
    const r = await tx.query<ReceivedDteRow>(
      `select ${DTE_COLS} from received_dtes where account_id = $1 and tenant_id = $2 and id = $3 for update`,
      [accountId, tenantId, id],
    );
    return r.rows[0];
  },

  /** The status the tenant's answers lead to (received.acceptance.ts, statusOf). */
  async setStatus(tx: Sql, a: { accountId: string; id: string; status: ReceivedStatus; now: Date }): Promise<void> {
    await tx.query('update received_dtes set status = $3, updated_at = $4 where account_id = $1 and id = $2 and status <> $3', [
      a.accountId,
      a.id,
      a.status,
      a.now,
    ]);
  },

  /** CodEnvio of the upload a document arrived in (the ResultadoDTE names it). */
  async codEnvio(sql: Sql, accountId: string, envioId: string): Promise<number | undefined> {
    const r = await sql.query<{ cod_envio: number }>(
      'select cod_envio::float8 as cod_envio from received_envios where account_id = $1 and id = $2',
      [accountId, envioId],
    );
    return r.rows[0]?.cod_envio;
  },

  async getXml(sql: Sql, accountId: string, tenantId: string, id: string): Promise<Buffer | undefined> {
    const r = await sql.query<{ xml: Buffer }>('select xml from received_dtes where account_id = $1 and tenant_id = $2 and id = $3', [
      accountId,
      tenantId,
      id,
    ]);
    return r.rows[0]?.xml;
  },

  async list(sql: Sql, accountId: string, tenantId: string, q: ListFilters): Promise<ReceivedDteRow[]> {
    const c = cursorCondition(q.cursor, 11);
    const r = await sql.query<ReceivedDteRow>(
      `select ${DTE_COLS} from received_dtes
       where account_id = $1 and tenant_id = $2
         and ($3::text is null or rut_emisor = $3) and ($4::int is null or tipo_dte = $4) and ($5::text is null or status = $5)
         and ($6::date is null or fecha_emision >= $6) and ($7::date is null or fecha_emision <= $7)
         and ($8::timestamptz is null or received_at >= $8) and ($9::timestamptz is null or received_at < $9)
         and ${c.sql}
       order by created_at desc, id desc limit $10`,
      [
        accountId,
        tenantId,
        q.rutEmisor ?? null,
        q.tipoDte ?? null,
        q.status ?? null,
        q.fechaDesde ?? null,
        q.fechaHasta ?? null,
        q.recibidoDesde ?? null,
        q.recibidoHasta ?? null,
        q.limit + 1,
        ...c.params,
      ],
    );
    return r.rows;
  },

  async getEnvio(sql: Sql, accountId: string, tenantId: string, id: string): Promise<ReceivedEnvioRow | undefined> {
    const r = await sql.query<ReceivedEnvioRow>(
      `select ${ENVIO_COLS} from received_envios where account_id = $1 and tenant_id = $2 and id = $3`,
      [accountId, tenantId, id],
    );
    return r.rows[0];
  },

  async getRespuesta(sql: Sql, accountId: string, tenantId: string, id: string): Promise<Buffer | undefined> {
    const r = await sql.query<{ respuesta: Buffer }>(
      'select respuesta from received_envios where account_id = $1 and tenant_id = $2 and id = $3',
      [accountId, tenantId, id],
    );
    return r.rows[0]?.respuesta;
  },
};
