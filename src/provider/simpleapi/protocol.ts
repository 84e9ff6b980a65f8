/**
 * SimpleAPI's HTTP protocol as the provider publishes it (docs/emulator.md, "SimpleAPI as it
 * really answers"), shared by the `simpleapi` adapter and the emulator's HTTP face so both read one
 * definition. Sources, cited per item below:
 *  - [C] the provider's Postman collection, `Simple API.postman_collection.json` in the public
 *    repository alefvaras/archivos (commit 6dace73): request docs and recorded real responses;
 *  - [SDK] the official SDK chilesystems/SimpleSDK (commit d2adf2f): Services/ApiBase.cs,
 *    Helpers/FoliosHelper.cs, Models/Estados/*, Models/Envios/EnvioResult.cs;
 *  - [D9] `docs/decisions.md` §9, which summarises both.
 * Where they are silent the choice is ours and says so ("not published").
 */

/** The two hosts [SDK ApiBase.cs]: DTE, envío and consultas on `api`; folios (and RCV) on `servicios`. */
export type Host = 'api' | 'servicios';

export const ROUTES = {
  /** GET, api host [C "Suscripción / Status"]. `[{servicio, uso, maximo}]` [D9]; does not consume the plan's quota. */
  subscription: '/api/v1/suscripcion/status',
  /** POST, servicios host [C "Folios / Get Folios"]: the SII's CAF, re-indented, `application/xml; charset=iso-8859-1`. */
  folios: (tipoDte: number, cantidad: number) => `/api/folios/get/${tipoDte}/${cantidad}`,
  /** POST, servicios host [C "Folios / Consulta Disponibles"]: a bare JSON number (folios the SII would still grant). */
  foliosAvailable: (tipoDte: number) => `/api/folios/get/${tipoDte}/`,
  /** POST, servicios host [C "Folios / Anulacion"]: `AnnulEntry[]`; HTTP 400 when an entry failed. */
  annul: (tipoDte: number, desde: number, hasta: number) => `/api/folios/anulacion/${tipoDte}/${desde}/${hasta}`,
  /** POST, api host [C "Enviar al SII"]: `EnvioResponse`. */
  send: '/api/v1/envio/enviar',
  /** POST, api host [C "Consultar Estado Envio"]: `EnvioDteStatusResponse` or, with ServidorBoletaREST, `EnvioBoletaStatusResponse`. */
  envioStatus: '/api/v1/consulta/envio',
  /** POST, api host [C "Consultar Estado DTE"]: `DteStatusResponse`. */
  dteStatus: '/api/v1/consulta/dte',
  /**
   * POST, api host [C "Compras / Aceptar - Rechazar en SII": `{{base_url_ventas}}/api/v1/compras/aceptacionreclamo`,
   * recorded at `https://api.simpleapi.cl/api/v1/compras/aceptacionreclamo`]: the SII's registro de
   * aceptación o reclamo (its web service `ingresarAceptacionReclamoDoc`). On the DTE host, not on
   * servicios (where the collection has only the RCV listings, `/api/RCV/…`). `AceptacionReclamoResponse`.
   */
  acceptance: '/api/v1/compras/aceptacionreclamo',
} as const;

/** `Ambiente` [C, every request doc]: 0 certificación, 1 producción. */
export const ambienteCode = (a: 'certificacion' | 'produccion'): 0 | 1 => (a === 'produccion' ? 1 : 0);

/**
 * Multipart [C "Enviar al SII" description]: a JSON text part `input`, then the file parts in this
 * order: the certificate (.pfx) first, then the document. The collection names the file parts
 * `files` (and once `files2`); the server reads them by position.
 */
export const INPUT_PART = 'input';
export const FILE_PART = 'files';

/** `Certificado` of the DTE host's inputs [C "Enviar al SII", "Consultar Estado Envio"]. */
export interface CertificadoInput {
  Rut: string;
  Password: string;
}

/** Folios and annulment (servicios) [C "Get Folios", "Anulacion"; SDK FoliosData.cs]. */
export interface FoliosInput {
  RutCertificado: string;
  Password: string;
  RutEmpresa: string;
  Ambiente: 0 | 1;
}

export interface AnnulInput extends FoliosInput {
  /** [C "Anulacion"]: the reason, free text. */
  MotivoAnulacion: string;
}

export interface SendInput {
  Certificado: CertificadoInput;
  Ambiente: 0 | 1;
  /** [C "Enviar al SII"]: 1 EnvioDTE, 2 EnvioBoleta; anything else is a 400 text/plain `TIPO_INCORRECTO`. */
  Tipo: 1 | 2;
}

export interface EnvioStatusInput {
  Certificado: CertificadoInput;
  RutEmpresa: string;
  TrackId: number;
  Ambiente: 0 | 1;
  /** Boletas are asked on the SII's REST server, and answer per-document `detalles`. */
  ServidorBoletaREST: boolean;
}

export interface DteStatusInput {
  Certificado: CertificadoInput;
  RutEmpresa: string;
  RutReceptor: string;
  Folio: number;
  Total: number;
  /** YYYY-MM-DD [C "Consultar Estado DTE"] — spelled `FechaDTE`. */
  FechaDTE: string;
  Tipo: number;
  Ambiente: 0 | 1;
  ServidorBoletaREST: boolean;
}

/** The actions of the registro [C "Aceptar - Rechazar en SII" description; SDK Enum/TipoAceptacion.cs]. */
export const ACCIONES_REGISTRO = ['ACD', 'RCD', 'ERM', 'RFP', 'RFT'] as const;
export type AccionRegistro = (typeof ACCIONES_REGISTRO)[number];

/**
 * [C "Aceptar - Rechazar en SII", request and its description]: `Tipo` of the document, its
 * `Folio`, the `Accion` (ACD, RCD, ERM, RFP, RFT as text; the SDK's enum TipoAceptacion numbers
 * them 0–4 but the collection sends the letters) and `RutEmpresa`, "Rut de la empresa proveedora que
 * emitió el documento" — the issuer, not the receptor: the receptor is whoever the certificate
 * authenticates at the SII. Multipart like every DTE-host call: `input`, then the certificate.
 */
export interface AceptacionReclamoInput {
  Certificado: CertificadoInput;
  Tipo: number;
  Folio: number;
  Accion: AccionRegistro;
  RutEmpresa: string;
  Ambiente: 0 | 1;
}

/**
 * [C "Aceptar - Rechazar en SII", "Exito" and "No ha registrado Aceptación Previa o los datos no
 * coinciden", both HTTP 200]: the SII's SOAP answer as text in `response`, its `codResp` in
 * `codRespuesta` and `descResp` in `descripcion`; `fechaRecepcion` was .NET's DateTime.MinValue and
 * `detalles` empty in both. A refusal by the SII is still HTTP 200: read `codRespuesta`.
 */
export interface AceptacionReclamoResponse {
  response: string;
  codRespuesta: number;
  descripcion: string;
  fechaRecepcion: string;
  detalles: unknown[];
}

/**
 * `codResp` of ingresarAceptacionReclamoDoc (docs/sources.md [RR],
 * "Parámetros de salida"): 0 recorded now; 7 recorded before (the action stands at the SII); -1 the
 * SII's internal error, "debe reintentar enviar la transacción más tarde"; every other code is a
 * refusal that asking again will not change.
 */
export const REGISTRO_OK = 0;
export const REGISTRO_ALREADY = 7;
export const REGISTRO_RETRY = -1;

/** [C "Folios / Anulacion", 200 and 400]: one entry per CAF the range touches. */
export interface AnnulEntry {
  exito: boolean;
  mensaje: string;
  folioInicialCAF: number;
  folioFinalCAF: number;
}

/**
 * [C "Enviar al SII"; SDK EnvioResult.cs]. EnvioDTE answers `estado "0"`, `glosa "Upload OK"` and the
 * SII's RECEPCIONDTE XML (TRACKID zero-padded to 10 digits); EnvioBOLETA answers `estado "REC"`,
 * `glosa ""` and the boleta server's JSON as text. `errores` is a single string (or null). A failed
 * upload is HTTP 400 with `ok:false`, `trackId -999999` [D9].
 */
export interface EnvioResponse {
  rutEnvia: string | null;
  rutEmpresa: string | null;
  file: string | null;
  fecha: string;
  estado: string | null;
  ok: boolean;
  glosa: string | null;
  errores: string | null;
  trackId: number;
  responseXml: string | null;
}

export const FAILED_TRACK_ID = -999999;
export const TIPO_INCORRECTO = 'Tipo incorrecto. 1.EnvioDTE - 2.EnvioBoleta.';

/** [C "Consultar Estado Envio", "Consulta Exitosa"; SDK EstadoDTETrackIdResult.cs]: counts only, never per document. */
export interface EnvioDteCounts {
  tipoDocumento: number;
  cantidadInformados: number;
  cantidadAceptados: number;
  cantidadRechazados: number;
  cantidadReparos: number;
}

export interface EnvioDteStatusResponse {
  estados: EnvioDteCounts[];
  responseXml: string | null;
  trackId: number;
  /** EPR once processed; REC, SOK, CRT, FOK, PDR before; RSC, RFR, RCT rejected whole; on errors the SII's code ("106", "-11", "007") or null. */
  estado: string | null;
  ok: boolean;
  numeroAtencion: number;
  fechaAtencion: string;
  srV_CODE: string | null;
  sqL_CODE: string | null;
  erR_CODE: string | null;
  glosa: string | null;
}

/** [C "Consulta Exitosa Boleta", "Envio con boletas rechazadas", "… aceptado con reparo"; SDK EstadoBoletaTrackIdResult.cs]. */
export interface EnvioBoletaStatusResponse {
  rutEmisor: string | null;
  rutEnvia: string | null;
  trackId: number;
  /** dd/MM/yyyy HH:mm:ss */
  fechaRecepcion: string | null;
  estado: string | null;
  /** "Error de Permiso" and the like when the query itself failed. */
  response: string | null;
  estadistica: { tipo: number; informados: number; aceptados: number; rechazados: number; reparos: number }[] | null;
  /** Only the documents with reparos (RPR) or rejections (RCH): accepted ones are not listed. */
  detalles:
    | {
        tipo: number;
        folio: number;
        estado: string;
        descripcion: string;
        errores: { seccion: string; linea: number; nivel: number; codigo: number; descripcion: string; detalle: string | null }[];
      }[]
    | null;
  errores?: string;
}

/**
 * [C "Consultar Estado DTE"; SDK EstadoDTEResult.cs]. DTEs answer `estado` (DOK, DNK, FAU, FNA, FAN,
 * EMP, TMD, TMC, MMD, MMC, AND, ANC) and `glosaEstado`, with the SII's ERR_CODE/GLOSA_ERR only inside
 * `responseXml` (the JSON's `erR_CODE`/`glosa_ERR_CODE` were null in every recorded answer);
 * boletas answer `estado: null` and the state in `codigo`/`descripcion`.
 */
export interface DteStatusResponse {
  responseXml: string | null;
  estado: string | null;
  ok: boolean;
  glosaEstado: string | null;
  erR_CODE: string | null;
  glosa_ERR_CODE: string | null;
  numeroAtencion: number;
  fechaAtencion: string;
  codigo: string | null;
  descripcion: string | null;
}

/** [C "Get Folios" description]: the servicios host's error body. */
export interface MensajeBody {
  Mensaje: string;
}

/** Envelope states after which the SII changes nothing [C "Consultar Estado Envio", "Posibles códigos"]. */
export const FINAL_ENVELOPE_STATES = new Set(['EPR', 'RSC', 'RFR', 'RCT']);

/**
 * Rate limits [C, collection description "Limites de uso (RateLimit)"; D9]: per API key, 3/s and
 * 40/min on the DTE host; 1/s, 5/min and 100/h on servicios. Excess → 429 `text/plain`
 * "API calls quota exceeded! maximum admitted {n} per {period}" with `Retry-After` (seconds) [D9].
 * Accepted calls carry `X-Rate-Limit-Limit` (the rule's period, e.g. "1m"), `-Remaining` and
 * `-Reset` (ISO time) [C, recorded headers of 2025].
 */
export interface RateRule {
  limit: number;
  periodMs: number;
  /** As the provider prints it: 1s, 1m, 1h. */
  label: string;
}
export type RateLimits = Record<Host, RateRule[]>;

export const PRODUCTION_RATE_LIMITS: RateLimits = {
  api: [
    { limit: 3, periodMs: 1_000, label: '1s' },
    { limit: 40, periodMs: 60_000, label: '1m' },
  ],
  servicios: [
    { limit: 1, periodMs: 1_000, label: '1s' },
    { limit: 5, periodMs: 60_000, label: '1m' },
    { limit: 100, periodMs: 3_600_000, label: '1h' },
  ],
};

export const quotaExceededText = (r: RateRule): string => `API calls quota exceeded! maximum admitted ${r.limit} per ${r.label}.`;

/** Which host a route path belongs to (the emulator serves both on one port). */
export const hostOfPath = (path: string): Host => (/^\/api\/folios\//i.test(path) ? 'servicios' : 'api');

/**
 * Parses `SIMPLEAPI_RATE_LIMITS`: `production` (the default), `off`, or rules per host such as
 * `api=3/1s,40/1m;servicios=1/1s,5/1m,100/1h` (for a plan with other limits, or a faster test).
 */
export function parseRateLimits(text: string | undefined): RateLimits | null {
  const v = (text ?? 'production').trim();
  if (v === '' || v === 'production') return PRODUCTION_RATE_LIMITS;
  if (v === 'off') return null;
  const out: RateLimits = { api: [], servicios: [] };
  const unit: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
  for (const part of v.split(';')) {
    const [host, rules] = part.split('=').map((s) => s.trim());
    if (host !== 'api' && host !== 'servicios') throw new Error(`unknown host '${host}' (api or servicios)`);
    for (const rule of (rules ?? '').split(',')) {
      const m = /^(\d+)\/(\d*)(ms|s|m|h)$/.exec(rule.trim());
      if (!m) throw new Error(`rule '${rule}' is not like 3/1s or 40/1m`);
      const n = m[2] === '' ? 1 : Number(m[2]);
      out[host].push({ limit: Number(m[1]), periodMs: n * unit[m[3]!]!, label: `${n}${m[3]}` });
    }
  }
  return out;
}
