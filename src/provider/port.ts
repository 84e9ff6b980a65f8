/**
 * The billing-provider port (docs/design.md §1, §9). The service builds and signs every document
 * itself; the provider only verifies the tenant's API key, issues CAFs, takes uploads and reports
 * their status. Adapters: `simpleapi` (HTTP) and `emulator` (SimpleAPI + SII, in-process or over
 * HTTP). Secrets (API key, .pfx, password) are passed per call and never kept by the adapter.
 */
export interface ProviderCredentials {
  apiKey: string;
  /** The tenant's .pfx and its password, decrypted only for the call. */
  pfx?: Buffer;
  pfxPassword?: string;
  /** RUT of the certificate holder (SII form 12345678-9). */
  rutCertificado?: string;
}

export type Ambiente = 'certificacion' | 'produccion';

export interface Quota {
  servicio: string;
  uso: number;
  maximo: number;
}

export interface UploadResult {
  trackId: string;
  /** SII reception state, e.g. REC. */
  estado: string;
  glosa: string;
  /** The raw response bytes (ISO-8859-1 XML or JSON), kept as received. */
  raw?: Buffer;
}

export interface DocumentOutcome {
  tipoDte: number;
  folio: number;
  /** accepted | accepted_with_objections | rejected */
  status: 'accepted' | 'accepted_with_objections' | 'rejected';
  /** SII document state: DOK (accepted), RLV/RPR (reparos), RCH (rejected). */
  estado: string;
  /** The SII's explanation; for reparos and rejections it starts with the code, e.g. "DTE-3-101 …". */
  glosa: string;
}

/** Per document type counts of a processed envelope (SII RESP_BODY / boleta `estadistica`). */
export interface TypeStatistics {
  tipoDte: number;
  informados: number;
  aceptados: number;
  rechazados: number;
  reparos: number;
}

export interface UploadStatus {
  trackId: string;
  /** SII envelope state: REC, SOK, CRT, FOK, PRD, EPR (final), RSC/RFR/RCT (rejected whole). */
  estado: string;
  glosa: string;
  final: boolean;
  /**
   * Per-document outcomes once final. The SII lists only reparos and rejections in some answers:
   * a document of the envelope with no entry here is judged by `estadistica` (all of its type
   * accepted) or, failing that, asked about with documentStatus. For RSC/RFR/RCT the whole
   * envelope is rejected and this may be empty.
   */
  documents: DocumentOutcome[];
  estadistica?: TypeStatistics[];
  raw?: Buffer;
}

export interface Provider {
  readonly name: 'simpleapi' | 'emulator';
  verifyApiKey(apiKey: string): Promise<{ quota: Quota[] }>;
  taxpayerLookup(creds: ProviderCredentials, rut: string): Promise<{ rut: string; razonSocial: string; acteco: number[] }>;
  requestCaf(
    creds: ProviderCredentials,
    req: { rutEmpresa: string; tipoDte: number; cantidad: number; ambiente: Ambiente },
  ): Promise<{ cafXml: Buffer }>;
  upload(
    creds: ProviderCredentials,
    req: { rutEmpresa: string; envelope: Buffer; tipo: 'dte' | 'boleta'; ambiente: Ambiente },
  ): Promise<UploadResult>;
  uploadStatus(
    creds: ProviderCredentials,
    req: { rutEmpresa: string; trackId: string; tipo: 'dte' | 'boleta'; ambiente: Ambiente },
  ): Promise<UploadStatus>;
  documentStatus(
    creds: ProviderCredentials,
    req: {
      rutEmpresa: string;
      tipoDte: number;
      folio: number;
      rutReceptor: string;
      fechaEmision: string;
      montoTotal: number;
      ambiente: Ambiente;
    },
  ): Promise<{ estado: string; glosa: string }>;
  annulFolios(
    creds: ProviderCredentials,
    req: { rutEmpresa: string; tipoDte: number; desde: number; hasta: number; ambiente: Ambiente },
  ): Promise<{ ok: boolean; glosa: string }>;
}

/**
 * Provider failures, mapped by the HTTP layer: invalid/expired key → 422, quota → 429/422,
 * unavailable/timeout → 502/504. `kind` is stable; `message` is safe to show (no secrets).
 */
export type ProviderErrorKind = 'invalid_api_key' | 'expired_api_key' | 'quota_exhausted' | 'unavailable' | 'timeout' | 'rejected';

export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly status: number | undefined;
  constructor(kind: ProviderErrorKind, message: string, status?: number) {
    super(message);
    this.name = 'ProviderError';
    this.kind = kind;
    this.status = status;
  }
  /** Transient failures are retried with backoff; the others are final. */
  get transient(): boolean {
    return this.kind === 'unavailable' || this.kind === 'timeout';
  }
}
