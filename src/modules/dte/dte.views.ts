import type { DteRow, EnvioRow, HistoryRow } from './dte.store.ts';
import type { StoredDocument } from '../../dte/index.ts';

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
  emisor: StoredDocument['extras']['emisor'] & { unidadSii: string | null };
  indServicio: number | null;
  indTraslado: number | null;
  tipoDespacho: number | null;
  montoBruto: boolean;
  indMontoNeto: boolean;
  fechaVencimiento: string | null;
  medioPago: string | null;
  terminosPago: string | null;
  terminosPagoDias: number | null;
  pagos: StoredDocument['extras']['pagos'];
  descuentosGlobales: StoredDocument['extras']['descuentosGlobales'];
  transporte: StoredDocument['extras']['transporte'];
  exportacion: StoredDocument['extras']['exportacion'];
  comisiones: StoredDocument['extras']['comisiones'];
  montoNeto: number;
  montoExento: number;
  iva: number;
  impuestos: StoredDocument['totales']['impuestos'];
  ivaRetenido: number;
  ivaNoRetenido: number;
  montoNoFacturable: number;
  otraMoneda: StoredDocument['totales']['otraMoneda'];
  montoTotal: number;
  trackId: string | null;
  sii: { estado: string | null; glosa: string | null };
  createdAt: string;
  updatedAt: string;
}

/** Rows stored before the full document model (docs/decisions.md §11) echo its fields at their defaults. */
const NO_EXTRAS: StoredDocument['extras'] = {
  emisor: { telefono: null, correo: null, sucursal: null, codigoSucursal: null, vendedor: null },
  indServicio: null,
  indTraslado: null,
  tipoDespacho: null,
  montoBruto: false,
  indMontoNeto: false,
  fechaVencimiento: null,
  medioPago: null,
  terminosPago: null,
  terminosPagoDias: null,
  pagos: [],
  descuentosGlobales: [],
  transporte: null,
  exportacion: null,
  comisiones: [],
};

export const toDte = (r: DteRow): Dte => {
  const x = { ...NO_EXTRAS, ...r.documento.extras };
  const t = r.documento.totales;
  return {
    id: r.id,
    tenantId: r.tenant_id,
    tipoDte: r.tipo_dte,
    folio: Number(r.folio),
    status: r.status,
    fechaEmision: r.fecha_emision,
    receptor: { contacto: null, correo: null, extranjero: null, ...r.receptor },
    detalle: r.detalle.map((l) => ({
      indExe: l.exento ? 1 : null,
      codigos: [],
      descuentoPct: null,
      descuentoMonto: null,
      recargoPct: null,
      recargoMonto: null,
      impuestoAdicional: [],
      retenedor: false,
      tipoDocLiquidado: null,
      ...l,
    })),
    referencias: r.referencias.map((x) => ({ indGlobal: false, rutOtro: null, ...x })),
    formaPago: r.forma_pago,
    ...x,
    emisor: { ...x.emisor, unidadSii: r.documento.unidadSii ?? null },
    montoNeto: Number(r.monto_neto),
    montoExento: Number(r.monto_exento),
    iva: Number(r.iva),
    impuestos: t?.impuestos ?? [],
    ivaRetenido: t?.ivaRetenido ?? 0,
    ivaNoRetenido: t?.ivaNoRetenido ?? 0,
    montoNoFacturable: t?.montoNoFacturable ?? 0,
    otraMoneda: t?.otraMoneda ?? null,
    montoTotal: Number(r.monto_total),
    trackId: r.track_id,
    sii: { estado: r.sii_estado, glosa: r.sii_glosa },
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
};

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
