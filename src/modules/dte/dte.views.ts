import type { DteRow, EnvioRow, HistoryRow } from './dte.store.ts';

/** The API's views of the DTE module's rows (the response schemas in dte.schemas.ts are their allow-list). */
export interface Dte {
  id: string;
  tenantId: string;
  tipoDte: number;
  folio: number;
  status: DteRow['status'];
  fechaEmision: string;
  receptor: DteRow['receptor'];
  detalle: DteRow['detalle'];
  referencias: DteRow['referencias'];
  formaPago: number | null;
  montoNeto: number;
  montoExento: number;
  iva: number;
  montoTotal: number;
  trackId: string | null;
  sii: { estado: string | null; glosa: string | null };
  createdAt: string;
  updatedAt: string;
}

export const toDte = (r: DteRow): Dte => ({
  id: r.id,
  tenantId: r.tenant_id,
  tipoDte: r.tipo_dte,
  folio: Number(r.folio),
  status: r.status,
  fechaEmision: r.fecha_emision,
  receptor: r.receptor,
  detalle: r.detalle,
  referencias: r.referencias,
  formaPago: r.forma_pago,
  montoNeto: Number(r.monto_neto),
  montoExento: Number(r.monto_exento),
  iva: Number(r.iva),
  montoTotal: Number(r.monto_total),
  trackId: r.track_id,
  sii: { estado: r.sii_estado, glosa: r.sii_glosa },
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

export const toStatus = (r: DteRow) => ({
  id: r.id,
  tenantId: r.tenant_id,
  tipoDte: r.tipo_dte,
  folio: Number(r.folio),
  status: r.status,
  trackId: r.track_id,
  sii: { estado: r.sii_estado, glosa: r.sii_glosa },
  updatedAt: r.updated_at.toISOString(),
});

export const toEnvio = (e: EnvioRow) => ({
  id: e.id,
  trackId: e.track_id,
  tipoEnvio: e.tipo_envio,
  dteIds: e.dte_ids,
  status: e.status,
  sii: { estado: e.sii_estado, glosa: e.sii_glosa },
  createdAt: e.created_at.toISOString(),
  updatedAt: e.updated_at.toISOString(),
});

export const toHistory = (h: HistoryRow) => ({
  status: h.status,
  previousStatus: h.previous_status,
  trackId: h.track_id,
  sii: { estado: h.sii_estado, glosa: h.sii_glosa },
  createdAt: h.created_at.toISOString(),
});
