import type { Sql } from '../../db/types.ts';

/**
 * The tenant's answers to received documents (received_acciones; docs/received.md, "Accepting or
 * claiming"): one row per answer, with the signed document for the supplier and the state of its
 * registration at the SII. Every query is scoped by account, except the worker's claim of due
 * registrations, which is the system's own scan across accounts (like the folio annulment's).
 */
export const SII_STATES = ['pending', 'registered', 'refused', 'failed'] as const;
export type SiiState = (typeof SII_STATES)[number];

export interface AccionRow {
  id: string;
  account_id: string;
  tenant_id: string;
  received_dte_id: string;
  n: number;
  accion: string;
  glosa: string | null;
  recinto: string | null;
  respuesta_tipo: string | null;
  sii_state: SiiState;
  sii_codigo: number | null;
  sii_descripcion: string | null;
  sii_registered_at: Date | null;
  sii_attempts: number;
  sii_next_at: Date | null;
  sii_last_error: string | null;
  created_at: Date;
}

/** What a registration attempt needs about the document and its tenant (a join, read once). */
export interface DueRegistration extends AccionRow {
  rut_emisor: string;
  tipo_dte: number;
  folio: number;
}

// Never selects `respuesta`: the signed bytes are read only by the route that serves them.
const COLS = `a.id, a.account_id, a.tenant_id, a.received_dte_id, a.n, a.accion, a.glosa, a.recinto, a.respuesta_tipo, a.sii_state,
  a.sii_codigo, a.sii_descripcion, a.sii_registered_at, a.sii_attempts, a.sii_next_at, a.sii_last_error, a.created_at`;

export const accionesStore = {
  async insert(
    tx: Sql,
    a: {
      id: string;
      accountId: string;
      tenantId: string;
      receivedDteId: string;
      accion: string;
      glosa: string | null;
      recinto: string | null;
      respuesta: Buffer;
      respuestaTipo: string;
      now: Date;
    },
  ): Promise<AccionRow> {
    const r = await tx.query<AccionRow>(
      `insert into received_acciones as a (id, account_id, tenant_id, received_dte_id, n, accion, glosa, recinto, respuesta, respuesta_tipo,
         sii_state, sii_next_at, created_at, updated_at)
       values ($1, $2, $3, $4,
         (select coalesce(max(n), 0) + 1 from received_acciones where account_id = $2 and received_dte_id = $4),
         $5, $6, $7, $8, $9, 'pending', $10, $10, $10)
       returning ${COLS}`,
      [a.id, a.accountId, a.tenantId, a.receivedDteId, a.accion, a.glosa, a.recinto, a.respuesta, a.respuestaTipo, a.now],
    );
    return r.rows[0]!;
  },

  async listFor(sql: Sql, accountId: string, receivedDteId: string): Promise<AccionRow[]> {
    const r = await sql.query<AccionRow>(
      `select ${COLS} from received_acciones a where a.account_id = $1 and a.received_dte_id = $2 order by a.n`,
      [accountId, receivedDteId],
    );
    return r.rows;
  },

  async getRespuesta(
    sql: Sql,
    accountId: string,
    tenantId: string,
    receivedDteId: string,
    n: number,
  ): Promise<{ respuesta: Buffer | null; respuesta_tipo: string | null } | undefined> {
    const r = await sql.query<{ respuesta: Buffer | null; respuesta_tipo: string | null }>(
      `select respuesta, respuesta_tipo from received_acciones
       where account_id = $1 and tenant_id = $2 and received_dte_id = $3 and n = $4`,
      [accountId, tenantId, receivedDteId, n],
    );
    return r.rows[0];
  },

  /**
   * Takes the attempt on one action now (a request asked for it), unless another attempt holds it.
   * A `failed` action is taken again: asking is how it is retried.
   */
  async claimOne(
    sql: Sql,
    accountId: string,
    receivedDteId: string,
    n: number,
    now: Date,
    leaseUntil: Date,
  ): Promise<DueRegistration | undefined> {
    const r = await sql.query<DueRegistration>(
      `update received_acciones a set sii_lease_until = $5, sii_state = 'pending', updated_at = $4
       from received_dtes d
       where a.account_id = $1 and a.received_dte_id = $2 and a.n = $3 and d.account_id = a.account_id and d.id = a.received_dte_id
         and a.sii_state in ('pending', 'failed') and (a.sii_lease_until is null or a.sii_lease_until < $4)
       returning ${COLS}, d.rut_emisor, d.tipo_dte, d.folio::float8 as folio`,
      [accountId, receivedDteId, n, now, leaseUntil],
    );
    return r.rows[0];
  },

  /** The worker's scan: pending registrations whose time has come, claimed with a lease (SKIP LOCKED). */
  async claimDue(tx: Sql, now: Date, leaseUntil: Date, limit: number): Promise<DueRegistration[]> {
    const r = await tx.query<DueRegistration>(
      `update received_acciones a set sii_lease_until = $2, updated_at = $1
       from received_dtes d
       where a.id in (
           select id from received_acciones
           where sii_state = 'pending' and sii_next_at <= $1 and (sii_lease_until is null or sii_lease_until < $1)
           order by sii_next_at limit $3 for update skip locked)
         and d.account_id = a.account_id and d.id = a.received_dte_id
       returning ${COLS}, d.rut_emisor, d.tipo_dte, d.folio::float8 as folio`,
      [now, leaseUntil, limit],
    );
    return r.rows;
  },

  /** The outcome of an attempt; 0 rows when the lease was lost to another attempt. */
  async record(
    tx: Sql,
    a: {
      accountId: string;
      id: string;
      leaseUntil: Date;
      state: SiiState;
      codigo: number | null;
      descripcion: string | null;
      registeredAt: Date | null;
      nextAt: Date | null;
      error: string | null;
      now: Date;
    },
  ): Promise<number> {
    const r = await tx.query(
      `update received_acciones set sii_state = $4, sii_codigo = coalesce($5, sii_codigo), sii_descripcion = coalesce($6, sii_descripcion),
         sii_registered_at = $7, sii_attempts = sii_attempts + 1, sii_next_at = $8, sii_last_error = $9, sii_lease_until = null,
         updated_at = $10
       where account_id = $1 and id = $2 and sii_lease_until = $3`,
      [a.accountId, a.id, a.leaseUntil, a.state, a.codigo, a.descripcion, a.registeredAt, a.nextAt, a.error, a.now],
    );
    return r.rowCount;
  },
};
