import type { KeyObject } from 'node:crypto';

import type { TipoDte } from './catalogue.ts';

/** Document types this engine builds: the catalogue's (catalogue.ts). */
export type { TipoDte } from './catalogue.ts';
export { SUPPORTED_TIPOS_DTE, isSupportedTipoDte } from './catalogue.ts';

/** Issuer data: from the tenant record. */
export interface EmisorInput {
  /** Any accepted RUT form; written in SII form. */
  rut: string;
  razonSocial: string;
  giro: string;
  /** 1–4 six-digit economic activity codes; required except for boletas (which have none). */
  acteco?: readonly (number | string)[] | undefined;
  direccion?: string | undefined;
  comuna?: string | undefined;
  ciudad?: string | undefined;
  telefono?: string | undefined;
  correo?: string | undefined;
  /** SII branch code (CdgSIISucur), up to 9 digits. */
  codigoSucursal?: number | undefined;
  /** Branch name (Sucursal, 20). */
  sucursal?: string | undefined;
  /** Seller code (CdgVendedor, 60). */
  vendedor?: string | undefined;
}

export interface ReceptorInput {
  rut: string;
  razonSocial?: string | undefined;
  giro?: string | undefined;
  direccion?: string | undefined;
  comuna?: string | undefined;
  ciudad?: string | undefined;
  contacto?: string | undefined;
  correo?: string | undefined;
  /** Foreign receptor of an export (Extranjero): nationality code (3) and foreign id (20). */
  extranjero?: { nacionalidad?: string | undefined; numeroId?: string | undefined } | undefined;
}

export interface DetalleInput {
  nombre: string;
  /** Omitted only on a guía that moves goods without a sale (then montoItem is 0). */
  cantidad?: number | undefined;
  precioUnitario?: number | undefined;
  /** If given it must equal round(cantidad × precioUnitario) − descuento + recargo. */
  montoItem?: number | undefined;
  /** Exempt line (IndExe 1); `indExe` gives the other indicators (2 no facturable, 6 no facturable negativo, …). */
  exento?: boolean | undefined;
  indExe?: 1 | 2 | 3 | 4 | 5 | 6 | undefined;
  unidad?: string | undefined;
  descripcion?: string | undefined;
  /** Item codes (CdgItem), up to 5. */
  codigos?: readonly { tipo: string; valor: string | number }[] | undefined;
  descuentoPct?: number | undefined;
  descuentoMonto?: number | undefined;
  recargoPct?: number | undefined;
  recargoMonto?: number | undefined;
  /** Additional tax or retention codes (CodImpAdic), one or two: tax-codes.ts. */
  impuestoAdicional?: number | string | readonly (number | string)[] | undefined;
  /** The issuer withholds as retention agent on this line (Retenedor/IndAgente R). */
  retenedor?: boolean | undefined;
  /** 43 only: type of the document liquidated on this line (TpoDocLiq, e.g. 33). */
  tipoDocLiquidado?: string | number | undefined;
}

/** DscRcgGlobal. */
export interface DescuentoGlobalInput {
  tipo: 'descuento' | 'recargo';
  valor: number;
  unidad: '%' | '$';
  glosa?: string | undefined;
  /** Applies to the exempt lines (IndExeDR 1) instead of the taxed ones. */
  exento?: boolean | undefined;
}

/** MntPagos. */
export interface PagoInput {
  fecha: string;
  monto: number;
  glosa?: string | undefined;
}

/** Transporte (guías; exports carry `exportacion.aduana` inside it). */
export interface TransporteInput {
  patente?: string | undefined;
  rutTransportista?: string | undefined;
  rutChofer?: string | undefined;
  nombreChofer?: string | undefined;
  direccion?: string | undefined;
  comuna?: string | undefined;
  ciudad?: string | undefined;
}

/** Transporte/Aduana of an export (codes from the SII/Aduana tables). */
export interface AduanaInput {
  modalidadVenta?: number | string | undefined;
  clausulaVenta?: number | string | undefined;
  totalClausulaVenta?: number | undefined;
  viaTransporte?: number | string | undefined;
  nombreTransporte?: string | undefined;
  rutCompaniaTransporte?: string | undefined;
  nombreCompaniaTransporte?: string | undefined;
  booking?: string | undefined;
  operador?: string | undefined;
  puertoEmbarque?: number | string | undefined;
  puertoDesembarque?: number | string | undefined;
  tara?: number | undefined;
  unidadTara?: number | string | undefined;
  pesoBruto?: number | undefined;
  unidadPesoBruto?: number | string | undefined;
  pesoNeto?: number | undefined;
  unidadPesoNeto?: number | string | undefined;
  totalItems?: number | undefined;
  totalBultos?: number | undefined;
  bultos?:
    | readonly {
        tipo: number | string;
        cantidad: number;
        marcas?: string | undefined;
        idContainer?: string | undefined;
        sello?: string | undefined;
        emisorSello?: string | undefined;
      }[]
    | undefined;
  flete?: number | undefined;
  seguro?: number | undefined;
  paisReceptor?: number | string | undefined;
  paisDestino?: number | string | undefined;
}

/** 110, 111, 112. */
export interface ExportacionInput {
  /** Currency of every amount of the document (TpoMoneda, SII table, e.g. "DOLAR USA"). */
  moneda: string;
  /** The totals again in another currency (OtraMoneda), e.g. {moneda: "PESO CL", tipoCambio: 950.5}. */
  otraMoneda?: { moneda: string; tipoCambio: number } | undefined;
  /** FmaPagExp: the export payment form, its code or its name in the Aduana table (e.g. 1 COB1, 11 ACRED, 21 sin pago). */
  formaPago?: number | string | undefined;
  aduana?: AduanaInput | undefined;
}

/** 43: commissions and other charges (Comisiones). */
export interface ComisionInput {
  tipo: 'comision' | 'otro';
  glosa: string;
  tasa?: number | undefined;
  montoNeto: number;
  montoExento?: number | undefined;
}

export interface ReferenciaInput {
  /** Referenced document type code (e.g. "33", 801, "SET"), up to 3 chars. */
  tipoDocRef: string | number;
  folioRef: string | number;
  /** YYYY-MM-DD (not written for boletas, whose schema has no FchRef). */
  fechaRef: string;
  /** 1 anula, 2 corrige texto, 3 corrige montos. Required for 56/61. */
  codRef?: 1 | 2 | 3 | undefined;
  razonRef?: string | undefined;
  /** The reference covers every document of its type (IndGlobal 1; folioRef 0). */
  indGlobal?: boolean | undefined;
  /** RUT of another taxpayer the reference is about (RUTOtr). */
  rutOtro?: string | undefined;
}

export interface DteInput {
  tipoDte: TipoDte;
  folio: number;
  /** YYYY-MM-DD. */
  fechaEmision: string;
  emisor: EmisorInput;
  /** Optional for boletas (anonymous consumer 66666666-6). */
  receptor?: ReceptorInput | undefined;
  detalle: readonly DetalleInput[];
  referencias?: readonly ReferenciaInput[] | undefined;
  /** 1 contado, 2 crédito, 3 sin costo (not for boletas). */
  formaPago?: 1 | 2 | 3 | undefined;
  /** If given it must equal the computed total. */
  montoTotal?: number | undefined;
  /** IndServicio: boletas 1–4 (default 3), facturas 1–3, exports 3–5. */
  indServicio?: 1 | 2 | 3 | 4 | 5 | undefined;
  /** Guía 52: IndTraslado 1..9, default 1 "operación constituye venta". */
  indTraslado?: 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | undefined;
  /** Guía 52: TipoDespacho 1 por cuenta del receptor, 2 del emisor a instalaciones del receptor, 3 del emisor a otras instalaciones. */
  tipoDespacho?: 1 | 2 | 3 | undefined;
  transporte?: TransporteInput | undefined;
  descuentosGlobales?: readonly DescuentoGlobalInput[] | undefined;
  /** 33/34/46/52/56/61: line prices include IVA (MntBruto 1). */
  montoBruto?: boolean | undefined;
  /** Boletas: line prices are net of IVA (IndMntNeto 2). */
  indMontoNeto?: boolean | undefined;
  fechaVencimiento?: string | undefined;
  medioPago?: 'CH' | 'CF' | 'LT' | 'EF' | 'PE' | 'TC' | 'OT' | undefined;
  /** Payment terms as text (TermPagoGlosa, 100). */
  terminosPago?: string | undefined;
  /** Payment terms in days (TermPagoDias). */
  terminosPagoDias?: number | undefined;
  pagos?: readonly PagoInput[] | undefined;
  exportacion?: ExportacionInput | undefined;
  comisiones?: readonly ComisionInput[] | undefined;
}

/** The tenant's signing credential. */
export interface SignerInput {
  /** The certificate's RSA private key (KeyObject, or PEM text). */
  privateKey: KeyObject | string;
  /** The X.509 certificate, DER bytes; or give `certificatePem`. */
  certificateDer?: Buffer | undefined;
  certificatePem?: string | undefined;
}

/** SII public keys that sign CAFs, by IDK (100 certificación, 300 producción, 666 emulator). */
export type SiiKeys = Readonly<Record<string, KeyObject>>;
