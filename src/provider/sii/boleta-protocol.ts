import { MAX_DTE_PER_ENVIO_BOLETA } from '../../dte/index.ts';

/**
 * The SII's boleta REST API as both sides of this repository speak it: the adapter
 * (boleta-rest.ts) and the emulator's SII face (emulator/sii/boleta-rest.ts). One home for its
 * paths, limits, answer shapes and texts (docs/sources.md §1.5; docs/sources.md §9.6; the SII's
 * OpenAPI "API SII – V1" 1.0.5 as transcribed there). Where no source gives a shape, the comment
 * says "ours" and docs/emulator.md lists it.
 */

/** Upload (multipart), on the restUpload origin (rahue / pangal: the only hosts where it works, §1.5). */
export const BOLETA_ENVIO_PATH = '/recursos/v1/boleta.electronica.envio';

/** Status of one envío: `{rut}-{dv}-{trackid}` on the rest origin (api / apicert) (§1.5). */
export const boletaEnvioStatusPath = (rut: string, dv: string, trackId: string | number): string =>
  `${BOLETA_ENVIO_PATH}/${rut}-${dv}-${trackId}`;

/**
 * At most 500 boletas per envío (Instructivo 28/10/2021, docs/sources.md §1.5; the engine's
 * MAX_DTE_PER_ENVIO_BOLETA, the schema's bound); the SII recommends batches of 50.
 */
export const MAX_BOLETAS_PER_ENVIO = MAX_DTE_PER_ENVIO_BOLETA;

/** The boletas in an envelope's bytes, counted without parsing it. */
export const countDtes = (envelope: Buffer): number => envelope.toString('latin1').match(/<(?:\w+:)?DTE[\s>]/g)?.length ?? 0;

/**
 * The gateway's refusal when the request is not authenticated: no TOKEN cookie, an unknown or
 * expired token, or a User-Agent not in the Mozilla format even with a valid token (§1.5,
 * ruraldte, seen live). HTTP 401; the body's exact bytes beyond these words are not recorded (ours:
 * text/plain).
 */
export const NOT_AUTHENTICATED = 'NO ESTA AUTENTICADO';

/**
 * A chunked body is cut at about 4 KB by the gateway, which answers this (§1.5, ruraldte, seen
 * live). The HTTP status is not recorded (ours: 400).
 */
export const CHUNKED_TRUNCATED = 'CHR-00002 Line too long (4090)';

/** The User-Agent the gateway takes: the Mozilla format (§1.5; Odoo and ruraldte send `Mozilla/4.0 (compatible; …)`). */
export const isGatewayUserAgent = (ua: string | undefined): boolean => /^Mozilla\/\d/.test(ua ?? '');

/** HTTP 200 of the upload (§1.5): `estado` is always "REC". */
export interface BoletaEnvioReception {
  rut_emisor: string;
  rut_envia: string;
  trackid: number;
  /** `YYYY-MM-DD HH:mm:ss`, Chile (as SimpleAPI relays it [C "Enviar EnvioBoleta"]). */
  fecha_recepcion: string;
  estado: string;
  file: string;
}

/** One finding of a boleta (`detalle_rep_rech[].error[]`, §1.5). */
export interface BoletaError {
  seccion: string;
  linea: number;
  nivel: number;
  codigo: number;
  descripcion: string;
  detalle: string | null;
}

/** A boleta with reparos (RPR) or rejected (RCH); `folio` null when the whole envío was rejected (Odoo, docs/sources.md §9.6). */
export interface BoletaDetalleRepRech {
  tipo: number | null;
  folio: number | null;
  estado: string;
  descripcion: string;
  error: BoletaError[];
}

/** HTTP 200 of the status (§1.5). `estadistica` and `detalle_rep_rech` are filled once processed (EPR). */
export interface BoletaEnvioStatusAnswer {
  rut_emisor: string | null;
  rut_envia: string | null;
  trackid: number;
  fecha_recepcion: string | null;
  estado: string;
  estadistica: { tipo: number; informados: number; aceptados: number; rechazados: number; reparos: number }[];
  detalle_rep_rech: BoletaDetalleRepRech[];
}

/**
 * A refusal with data the SII will not take: HTTP 400 on the upload ("bad data", §1.5) and, ours,
 * HTTP 404 on the status of an envío this company does not have. The SII's bodies are not
 * recorded; ours is this JSON.
 */
export interface BoletaRefusal {
  error: string;
}

export const BOLETA_REFUSAL = {
  missingFields: 'Faltan campos: rutSender, dvSender, rutCompany, dvCompany y archivo son obligatorios',
  badRut: 'RUT con digito verificador erroneo',
  empty: 'Archivo vacio',
  notEnvioBoleta: 'El archivo no es un EnvioBOLETA',
  tooMany: (n: number) => `El envio contiene ${n} boletas; el maximo por envio es ${MAX_BOLETAS_PER_ENVIO}`,
  senderNotToken: 'rutSender no corresponde al titular del token',
  companyNotFile: 'rutCompany no corresponde al RutEmisor del archivo',
  badId: 'Identificador de envio erroneo: se espera {rut}-{dv}-{trackid}',
  unknownTrack: 'No existe el envio para la empresa indicada',
} as const;
