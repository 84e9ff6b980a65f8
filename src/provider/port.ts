/**
 * The billing-provider port (docs/design.md §1, §9). The service builds and signs every document
 * itself; the provider only verifies the tenant's API key, issues CAFs, takes uploads and reports
 * their status. Adapters: `simpleapi` (HTTP) and `emulator` (SimpleAPI + SII, in-process or over
 * HTTP). Secrets (API key, .pfx, password) are passed per call and never kept by the adapter.
 */
/**
 * The path a tenant's provider calls take, from its `provider` field (docs/decisions.md §14,
 * docs/credentials.md "A provider per tenant"): through the billing provider (SimpleAPI, or the emulator's SimpleAPI face),
 * or straight to the SII's own services with the tenant's certificate (src/provider/routed.ts).
 */
export type ProviderRoute = 'simpleapi' | 'sii';

export interface ProviderCredentials {
  /** The tenant's billing-provider API key; '' for a direct tenant (`via: 'sii'`), which has none. */
  apiKey: string;
  /** Which path serves the call (routed.ts); absent means 'simpleapi'. */
  via?: ProviderRoute;
  /**
   * The tenant's mode (docs/design.md "Test mode"): `false` sends the call to the built-in emulator
   * whatever the installation's provider (routed.ts), so a test tenant's calls never leave the
   * machine. Absent means live.
   */
  livemode?: boolean;
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
  /** SII envelope state: REC, SOK, CRT, FOK, PDR (in process), EPR (processed), RSC/RFR/RCT (rejected whole); '' or the SII's error code when the query failed. */
  estado: string;
  glosa: string;
  /** The SII will not change its answer: EPR, RSC, RFR, RCT. A failed query is never final. */
  final: boolean;
  /** Per document type counts once processed (EnvioDTE `estados`, EnvioBOLETA `estadistica`). */
  estadistica: TypeStatistics[];
  /**
   * The documents the SII lists: only boletas, and only those with reparos or rejections
   * (`detalles`). For an EnvioDTE the SII answers counts only; a document's own state is asked
   * with documentStatus.
   */
  documents: DocumentOutcome[];
  /** True when `documents` lists every document that was not plainly accepted (boletas). */
  documentsListed: boolean;
  raw?: Buffer;
}

/**
 * One document as the SII's QueryEstDte answers it (consulta/dte): DOK received; DNK received with
 * other data; FAU not received (yet, or rejected); FAN annulled; FNA not authorised; TMC/TMD/MMC/
 * MMD/ANC/AND a note modifies it. Not a verdict by itself: the caller judges it with the envelope's
 * counts (docs/dte.md, "Sending").
 */
export interface DocumentState {
  estado: string;
  glosa: string;
}

/**
 * The SII's answer to registering an acceptance or claim (registro de aceptación o reclamo, through
 * SimpleAPI `compras/aceptacionreclamo`). `registered`: the SII holds the action now (its code 0)
 * or held it before (7); `refused`: the SII will not record it and says why in `codigo` (its
 * codResp, e.g. 8 past the eight days, 9 no such document, 11–13 conflicts) and `descripcion`.
 * The SII's "retry later" (-1) is thrown as an `unavailable` ProviderError.
 */
export interface AcceptanceRegistration {
  outcome: 'registered' | 'refused';
  codigo: number;
  descripcion: string;
  raw?: Buffer;
}

/** What the SII's QueryEstDte needs to find one document (documentStatus). */
export interface DocumentStatusRequest {
  rutEmpresa: string;
  tipoDte: number;
  folio: number;
  rutReceptor: string;
  fechaEmision: string;
  montoTotal: number;
  ambiente: Ambiente;
}

/** A book's review (docs/sii-direct.md, "Books"): accepted LOK/LSO, rejected LRH (glosa says why), else pending. */
export interface BookStatus {
  trackId: string;
  estado: string;
  glosa: string;
  outcome: 'accepted' | 'rejected' | 'pending';
}

export interface Provider {
  readonly name: 'simpleapi' | 'emulator' | 'sii';
  /** `livemode: false` (a test tenant's key) is checked by the built-in emulator (routed.ts). */
  verifyApiKey(apiKey: string, opts?: { livemode?: boolean }): Promise<{ quota: Quota[] }>;
  /**
   * Asks the SII for a CAF. Not idempotent: a second call is a second grant. `resume` (the SII's
   * forms, sii/caf-forms.ts) makes a retry safe: before asking anew, a range of this type granted
   * since `since` that is not among `held` (the ranges the tenant has) is taken as the grant whose
   * answer was lost, and downloaded instead. Adapters that cannot look ignore it.
   */
  requestCaf(
    creds: ProviderCredentials,
    req: {
      rutEmpresa: string;
      tipoDte: number;
      cantidad: number;
      ambiente: Ambiente;
      resume?: { since: Date; held: { desde: number; hasta: number }[] } | undefined;
    },
  ): Promise<{ cafXml: Buffer }>;
  upload(
    creds: ProviderCredentials,
    req: { rutEmpresa: string; envelope: Buffer; tipo: 'dte' | 'boleta'; ambiente: Ambiente },
  ): Promise<UploadResult>;
  uploadStatus(
    creds: ProviderCredentials,
    req: { rutEmpresa: string; trackId: string; tipo: 'dte' | 'boleta'; ambiente: Ambiente },
  ): Promise<UploadStatus>;
  documentStatus(creds: ProviderCredentials, req: DocumentStatusRequest): Promise<DocumentState>;
  /**
   * Optional: sends a signed book (LibroCompraVenta, LibroGuia) to the SII. Only a path that can
   * (the direct SII adapter, DTEUpload); absent where the provider takes no books (SimpleAPI, no
   * source says it does: docs/certification.md "Books").
   */
  uploadBook?(creds: ProviderCredentials, req: { rutEmpresa: string; book: Buffer; ambiente: Ambiente }): Promise<UploadResult>;
  /** Optional, with uploadBook: the SII's review of a book (QueryEstUp: LOK/LSO, LRH…). */
  bookStatus?(creds: ProviderCredentials, req: { rutEmpresa: string; trackId: string; ambiente: Ambiente }): Promise<BookStatus>;
  annulFolios(
    creds: ProviderCredentials,
    req: { rutEmpresa: string; tipoDte: number; desde: number; hasta: number; ambiente: Ambiente },
  ): Promise<{ ok: boolean; glosa: string }>;
  /** Registers the receptor's acceptance or claim of a document `rutEmisor` issued (the certificate is the receptor's). */
  registerAcceptance(
    creds: ProviderCredentials,
    req: { rutEmisor: string; tipoDte: number; folio: number; accion: 'ACD' | 'RCD' | 'ERM' | 'RFP' | 'RFT'; ambiente: Ambiente },
  ): Promise<AcceptanceRegistration>;
}

/**
 * Provider failures, mapped by the HTTP layer: invalid/expired key → 422, quota → 429/422,
 * unavailable/timeout → 502/504. `kind` is stable; `message` is safe to show (no secrets).
 */
export type ProviderErrorKind =
  | 'invalid_api_key'
  | 'expired_api_key'
  | 'quota_exhausted'
  /** A 429, or our own pacing would wait too long: wait `retryAfterMs` and ask again. Never a failure. */
  | 'rate_limited'
  /** An empty 401 while the key itself is fine: the SII refused the certificate (password, RUT, authorisation). */
  | 'certificate_rejected'
  | 'unavailable'
  | 'timeout'
  | 'rejected';

export class ProviderError extends Error {
  readonly kind: ProviderErrorKind;
  readonly status: number | undefined;
  /** For `rate_limited`: how long to wait before asking again. */
  readonly retryAfterMs: number | undefined;
  /** Who failed: the billing provider, or the SII itself (a direct tenant's call; routed.ts sets it). */
  readonly origin: 'provider' | 'sii';
  constructor(
    kind: ProviderErrorKind,
    message: string,
    status?: number,
    opts: { retryAfterMs?: number | undefined; origin?: 'provider' | 'sii' } = {},
  ) {
    super(message);
    this.name = 'ProviderError';
    this.kind = kind;
    this.status = status;
    this.retryAfterMs = opts.retryAfterMs;
    this.origin = opts.origin ?? 'provider';
  }
  /** Transient failures are retried with backoff (rate limits after their wait); the others are final. */
  get transient(): boolean {
    return this.kind === 'unavailable' || this.kind === 'timeout' || this.kind === 'rate_limited';
  }
}
