import type { AccionSummary, EnvioDocument, ReceivedDteRow, ReceivedEnvioRow } from './received.store.ts';

/** The API's views of the module's rows (received.schemas.ts is their allow-list). */
export interface ReceivedDte {
  id: string;
  tenantId: string;
  envioId: string;
  tipoDte: number;
  folio: number;
  fechaEmision: string;
  emisor: { rut: string; razonSocial: string; giro: string | null; correo: string | null };
  receptor: { rut: string };
  montoNeto: number | null;
  montoExento: number | null;
  iva: number | null;
  montoTotal: number;
  status: ReceivedDteRow['status'];
  receivedAt: string;
  acceptanceDeadline: string;
  acciones: ReceivedAccion[];
  createdAt: string;
  updatedAt: string;
}

/** One of the tenant's answers and its registration at the SII (docs/received.md, "Accepting or claiming"). */
export interface ReceivedAccion {
  n: number;
  accion: string;
  glosa: string | null;
  at: string;
  registeredAtSii: boolean;
  sii: {
    state: AccionSummary['state'];
    codigo: number | null;
    descripcion: string | null;
    registeredAt: string | null;
    attempts: number;
    nextAttemptAt: string | null;
    lastError: string | null;
  };
  /** The signed document for the supplier: RespuestaDTE (ResultadoDTE) or EnvioRecibos; null for answers recorded before it existed. */
  respuesta: { tipo: string; path: string } | null;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(Math.round(ms)).toISOString());

export const toReceivedAccion = (r: Pick<ReceivedDteRow, 'tenant_id' | 'id'>, a: AccionSummary): ReceivedAccion => ({
  n: a.n,
  accion: a.accion,
  glosa: a.glosa,
  at: iso(a.atMs)!,
  registeredAtSii: a.state === 'registered',
  sii: {
    state: a.state,
    codigo: a.codigo,
    descripcion: a.descripcion,
    registeredAt: iso(a.registeredAtMs),
    attempts: a.attempts,
    nextAttemptAt: a.state === 'pending' ? iso(a.nextAtMs) : null,
    lastError: a.state === 'registered' || a.state === 'refused' ? null : a.lastError,
  },
  respuesta: a.respuestaTipo
    ? { tipo: a.respuestaTipo, path: `/api/v1/tenants/${r.tenant_id}/received/${r.id}/acceptance/${a.n}/xml` }
    : null,
});

export const toReceivedDte = (r: ReceivedDteRow): ReceivedDte => ({
  id: r.id,
  tenantId: r.tenant_id,
  envioId: r.envio_id,
  tipoDte: r.tipo_dte,
  folio: Number(r.folio),
  fechaEmision: r.fecha_emision,
  emisor: { rut: r.rut_emisor, razonSocial: r.razon_social_emisor, giro: r.giro_emisor, correo: r.correo_emisor },
  receptor: { rut: r.rut_receptor },
  montoNeto: r.monto_neto === null ? null : Number(r.monto_neto),
  montoExento: r.monto_exento === null ? null : Number(r.monto_exento),
  iva: r.iva === null ? null : Number(r.iva),
  montoTotal: Number(r.monto_total),
  status: r.status,
  receivedAt: r.received_at.toISOString(),
  acceptanceDeadline: r.acceptance_deadline.toISOString(),
  acciones: r.acciones.map((a) => toReceivedAccion(r, a)),
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

export interface ReceivedEnvio {
  id: string;
  tenantId: string;
  codEnvio: number;
  envioDteId: string;
  nombreEnvio: string;
  rutEmisor: string;
  rutEnvia: string;
  estadoRecepEnv: number;
  glosa: string;
  documents: EnvioDocument[];
  receivedAt: string;
}

/** RecepEnvGlosa: the schema's text for EstadoRecepEnv 0 and what became of the documents. */
export function envioGlosa(documents: readonly EnvioDocument[]): string {
  const n = (o: EnvioDocument['outcome']) => documents.filter((d) => d.outcome === o).length;
  return `Envio Recibido Conforme: ${n('received')} DTE recibidos, ${n('repeated')} repetidos, ${n('refused')} no recibidos`;
}

export const toReceivedEnvio = (e: ReceivedEnvioRow): ReceivedEnvio => ({
  id: e.id,
  tenantId: e.tenant_id,
  codEnvio: Number(e.cod_envio),
  envioDteId: e.envio_dte_id,
  nombreEnvio: e.nombre_envio,
  rutEmisor: e.rut_emisor,
  rutEnvia: e.rut_envia,
  // Only envelopes that pass are stored (docs/received.md): refused ones are a 4xx, not an answer.
  estadoRecepEnv: 0,
  glosa: envioGlosa(e.documents),
  documents: e.documents,
  receivedAt: e.created_at.toISOString(),
});
