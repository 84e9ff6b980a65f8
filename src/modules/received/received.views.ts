import type { EnvioDocument, ReceivedDteRow, ReceivedEnvioRow } from './received.store.ts';

/** The API's views of the module's rows (received.schemas.ts is their allow-list). */
export interface ReceivedDte {
  id: string;
  tenantId: string;
  envioId: string;
  tipoDte: number;
  folio: number;
  fechaEmision: string;
  emisor: { rut: string; razonSocial: string; giro: string | null };
  receptor: { rut: string };
  montoNeto: number | null;
  montoExento: number | null;
  iva: number | null;
  montoTotal: number;
  status: ReceivedDteRow['status'];
  receivedAt: string;
  acceptanceDeadline: string;
  acciones: { accion: string; glosa: string | null; at: string; registeredAtSii: boolean }[];
  createdAt: string;
  updatedAt: string;
}

export const toReceivedDte = (r: ReceivedDteRow): ReceivedDte => ({
  id: r.id,
  tenantId: r.tenant_id,
  envioId: r.envio_id,
  tipoDte: r.tipo_dte,
  folio: Number(r.folio),
  fechaEmision: r.fecha_emision,
  emisor: { rut: r.rut_emisor, razonSocial: r.razon_social_emisor, giro: r.giro_emisor },
  receptor: { rut: r.rut_receptor },
  montoNeto: r.monto_neto === null ? null : Number(r.monto_neto),
  montoExento: r.monto_exento === null ? null : Number(r.monto_exento),
  iva: r.iva === null ? null : Number(r.iva),
  montoTotal: Number(r.monto_total),
  status: r.status,
  receivedAt: r.received_at.toISOString(),
  acceptanceDeadline: r.acceptance_deadline.toISOString(),
  // Registration at the SII through the provider is not done yet (received.acceptance.ts).
  acciones: r.acciones.map((a) => ({ accion: a.accion, glosa: a.glosa, at: a.at, registeredAtSii: false })),
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
