import type { SiiKeys } from '../types.ts';

/** What verification reports (codes: see index.ts). */
export interface VerificationIssue {
  /** SII-style code. */
  code: string;
  /** Stable snake_case name of the failed check. */
  check: string;
  message: string;
}

export type SchemaKind = 'DTE' | 'EnvioDTE' | 'EnvioBOLETA' | 'LibroCompraVenta' | 'LibroGuia';

export interface SchemaValidationResult {
  valid: boolean;
  errors: string[];
}

/** Injected schema validation (I/O or wasm lives with the caller), see schema-validator.ts. */
export type SchemaValidator = (xml: Buffer, kind: SchemaKind) => SchemaValidationResult | Promise<SchemaValidationResult>;

export interface VerifyOptions {
  siiKeys: SiiKeys;
  /** When given, a CAF whose vencimiento is on or before this (Chile) date is CAF-3-517. */
  now?: Date;
  schemaValidator?: SchemaValidator;
  /** Envelope only: the expected Caratula/RutReceptor (60803000-K for the SII). */
  expectedRutReceptor?: string;
}

export interface DteVerification {
  valid: boolean;
  documentId: string | null;
  tipoDte: number | null;
  folio: number | null;
  rutEmisor: string | null;
  rutReceptor: string | null;
  fechaEmision: string | null;
  montoTotal: number | null;
  /** Signature needed the SiiDte namespace the DTE had inherited from its envelope. */
  namespaceInherited: boolean;
  caf: { idk: number; desde: number; hasta: number; vencimiento: string | null } | null;
  errors: VerificationIssue[];
  warnings: VerificationIssue[];
}

export interface EnvelopeVerification {
  valid: boolean;
  kind: 'EnvioDTE' | 'EnvioBOLETA' | null;
  /** Envelope-level problems (the whole upload is rejected). */
  errors: VerificationIssue[];
  warnings: VerificationIssue[];
  caratula: {
    rutEmisor: string | null;
    rutEnvia: string | null;
    rutReceptor: string | null;
    fechaResolucion: string | null;
    numeroResolucion: number | null;
    subTotales: { tipoDte: number; cantidad: number }[];
  } | null;
  dtes: DteVerification[];
}

export interface BookVerification {
  valid: boolean;
  kind: 'LibroCompraVenta' | 'LibroGuia' | null;
  errors: VerificationIssue[];
  warnings: VerificationIssue[];
  caratula: {
    rutEmisor: string | null;
    rutEnvia: string | null;
    periodo: string | null;
    tipoOperacion: string | null;
    tipoLibro: string | null;
    tipoEnvio: string | null;
    folioNotificacion: number | null;
  } | null;
}

export function issue(code: string, check: string, message: string): VerificationIssue {
  return { code, check, message };
}
