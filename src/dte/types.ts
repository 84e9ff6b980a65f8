import type { KeyObject } from 'node:crypto';

/** Document types this engine builds. */
export type TipoDte = 33 | 34 | 39 | 41 | 46 | 52 | 56 | 61;
export const SUPPORTED_TIPOS_DTE: readonly TipoDte[] = [33, 34, 39, 41, 46, 52, 56, 61];

export function isSupportedTipoDte(n: unknown): n is TipoDte {
  return typeof n === 'number' && (SUPPORTED_TIPOS_DTE as readonly number[]).includes(n);
}

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
}

export interface DetalleInput {
  nombre: string;
  cantidad: number;
  precioUnitario: number;
  /** If given it must equal round(cantidad × precioUnitario). */
  montoItem?: number | undefined;
  exento?: boolean | undefined;
  unidad?: string | undefined;
  descripcion?: string | undefined;
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
  /** Boletas: IndServicio (mandatory in their schema), default 3 "ventas y servicios". */
  indServicio?: 1 | 2 | 3 | 4 | undefined;
  /** Guía 52: IndTraslado 1..9, default 1 "operación constituye venta". */
  indTraslado?: 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | undefined;
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
