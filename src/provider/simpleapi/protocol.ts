/**
 * SimpleAPI's HTTP protocol as this service speaks it (docs/design.md §9), shared by the `simpleapi`
 * adapter (client) and the emulator's HTTP server, so both sides read one definition.
 *
 * Known from public integrations: the Authorization header carries the bare API key; every call
 * except the subscription status is multipart/form-data with a JSON text part `input` and file
 * parts `files` (the .pfx first, then the document); Ambiente 0 = certificación, 1 = producción;
 * XML answers are ISO-8859-1.
 * Not published, so chosen here and documented in docs/emulator.md: the JSON shape of the
 * envelope status (modelled on the SII's boleta REST answer: `estadistica` and per-document
 * `detalle`), and the routes for taxpayer lookup and folio annulment.
 */
export const ROUTES = {
  /** GET, api host. Answers `[{servicio, uso, maximo}]`. */
  subscription: '/api/v1/suscripcion/status',
  /** POST, servicios host, `/api/folios/get/{tipoDte}/{cantidad}`. Answers the CAF XML file. */
  folios: (tipoDte: number, cantidad: number) => `/api/folios/get/${tipoDte}/${cantidad}`,
  /** POST, servicios host. Answers `{ok, glosa}`. */
  annul: (tipoDte: number, desde: number, hasta: number) => `/api/folios/anular/${tipoDte}/${desde}/${hasta}`,
  /** POST, api host. Answers `EnvioResponse`. */
  send: '/api/v1/envio/enviar',
  /** POST, api host. Answers `EnvioStatusResponse`. */
  envioStatus: '/api/v1/consulta/envio',
  /** POST, api host. Answers `DteStatusResponse`. */
  dteStatus: '/api/v1/consulta/dte',
  /** POST, api host. Answers `TaxpayerResponse`. */
  taxpayer: '/api/v1/consulta/contribuyente',
} as const;

export const ambienteCode = (a: 'certificacion' | 'produccion'): 0 | 1 => (a === 'produccion' ? 1 : 0);

export interface CertificadoInput {
  Rut: string;
  Password: string;
}

export interface FoliosInput {
  RutCertificado: string;
  Password: string;
  RutEmpresa: string;
  Ambiente: 0 | 1;
}

export interface SendInput {
  Certificado: CertificadoInput;
  Ambiente: 0 | 1;
  /** 1 DTE (EnvioDTE), 2 boleta (EnvioBOLETA). */
  Tipo: 1 | 2;
}

export interface EnvioStatusInput {
  Certificado: CertificadoInput;
  RutEmpresa: string;
  TrackId: string;
  Ambiente: 0 | 1;
  /** Boletas are queried on the SII's REST server. */
  ServidorBoletaREST: boolean;
}

export interface DteStatusInput {
  Certificado: CertificadoInput;
  RutEmpresa: string;
  RutReceptor: string;
  Tipo: number;
  Folio: number;
  /** YYYY-MM-DD */
  FechaDte: string;
  Total: number;
  Ambiente: 0 | 1;
}

export interface TaxpayerInput {
  Certificado: CertificadoInput;
  RutEmpresa: string;
  Ambiente: 0 | 1;
}

export interface AnnulInput {
  Certificado: CertificadoInput;
  RutEmpresa: string;
  Ambiente: 0 | 1;
}

export interface EnvioResponse {
  trackId: string | null;
  /** SII reception state: REC on success. */
  estado: string;
  ok: boolean;
  glosa: string;
  errores: string[];
  /** The SII's RECEPCIONDTE answer as text. */
  responseXml: string | null;
}

export interface EnvioStatusResponse {
  trackId: string;
  /** REC, SOK, CRT, FOK, PRD (in process); EPR (processed); RSC, RFR, RCT (rejected whole). */
  estado: string;
  glosa: string;
  estadistica: { tipo: number; informados: number; aceptados: number; rechazados: number; reparos: number }[];
  /** Every document of the envelope once processed: estado DOK, RLV (reparos) or RCH. */
  detalle: { tipo: number; folio: number; estado: string; descripcion: string; errores: { codigo: string; descripcion: string }[] }[];
}

export interface DteStatusResponse {
  /** DOK, DNK, FAU, FNA, FAN, … (QueryEstDte). */
  estado: string;
  glosa: string;
}

export interface TaxpayerResponse {
  rut: string;
  razonSocial: string;
  actividades: { codigo: number; glosa: string }[];
}

/** Envelope states after which nothing changes. */
export const FINAL_ENVELOPE_STATES = new Set(['EPR', 'RSC', 'RFR', 'RCT', 'RCH', 'RCO', 'RPT', 'VOF']);
