import { XML_DECLARATION, NS_SII } from './dte-xml.ts';
import { siiTimestamp, SII_TIME_ZONE } from './dates.ts';
import { DteEngineError } from './errors.ts';
import { isReceivable, typesWhere } from './catalogue.ts';
import { toSiiRut } from './rut.ts';
import { sourceText } from './verify/values.ts';
import { detectEncoding } from './xml-decode.ts';
import { el } from './xml-escape.ts';
import { breakLines } from './xml-lines.ts';
import { assertSignerValidAt, buildSignature, prepareSigner, type PreparedSigner } from './xmldsig.ts';
import type { SignerInput } from './types.ts';

/**
 * Document exchange between companies (intercambio; docs/decisions.md §13, docs/received.md): the parts of
 * a supplier's EnvioDTE the receptor answers about, and the receptor's signed answer, the
 * RespuestaEnvioDTE (root `RespuestaDTE`, RespuestaEnvioDTE_v10.xsd) with its `RecepcionEnvio`
 * section. Codes and their texts are the schema's own enumerations (EstadoRecepEnv,
 * EstadoRecepDTE).
 *
 * The answer is signed the way envelope.ts signs: we write `Resultado` in canonical form and digest
 * our own string with the default namespace it inherits from the root. The bytes are pure ASCII:
 * any non-ASCII character (a supplier's SetDTE ID may have one) is written as a character
 * reference, which parses to the same canonical text that was digested — so the answer survives
 * being carried inside JSON or re-encoded.
 */

/** EstadoRecepEnv: the whole envelope. */
export const ESTADO_RECEP_ENV = {
  0: 'Envio Recibido Conforme',
  1: 'Envio Rechazado - Error de Schema',
  2: 'Envio Rechazado - Error de Firma',
  3: 'Envio Rechazado - RUT Receptor No Corresponde',
  90: 'Envio Rechazado - Archivo Repetido',
  91: 'Envio Rechazado - Archivo Ilegible',
  99: 'Envio Rechazado - Otros',
} as const;
export type EstadoRecepEnv = keyof typeof ESTADO_RECEP_ENV;

/** EstadoRecepDTE: each document of the envelope. */
export const ESTADO_RECEP_DTE = {
  0: 'DTE Recibido OK',
  1: 'DTE No Recibido - Error de Firma',
  2: 'DTE No Recibido - Error en RUT Emisor',
  3: 'DTE No Recibido - Error en RUT Receptor',
  4: 'DTE No Recibido - DTE Repetido',
  99: 'DTE No Recibido - Otros',
} as const;
export type EstadoRecepDte = keyof typeof ESTADO_RECEP_DTE;

/** The types a RecepcionDTE can name (SiiTypes DTEType): the catalogue's receivable types. */
export const RESPUESTA_TIPOS_DTE: readonly number[] = typesWhere((t) => t.receivable);

export interface EnvelopeParts {
  /** SetDTE/@ID (the answer's EnvioDTEID), or null. */
  setId: string | null;
  /** DigestValue of the envelope's own signature (after SetDTE), whitespace removed, or null. */
  digest: string | null;
  /**
   * Each DTE as its own document: an XML declaration of the envelope's encoding and the DTE's
   * bytes as they appear in the envelope. The same split, in the same order, as
   * verify/envelope.ts makes, so `dtes[i]` is the document `EnvelopeVerification.dtes[i]` verified.
   */
  dtes: Buffer[];
}

export function envelopeParts(bytes: Buffer): EnvelopeParts {
  const encoding = detectEncoding(bytes);
  const raw = sourceText(bytes, encoding);
  const decl = `<?xml version="1.0" encoding="${encoding === 'utf-8' ? 'UTF-8' : encoding === 'windows-1252' ? 'windows-1252' : 'ISO-8859-1'}"?>\n`;
  const dtes = [...raw.matchAll(/<DTE[\s>][\s\S]*?<\/DTE>/g)].map((m) =>
    Buffer.from(decl + m[0], encoding === 'utf-8' ? 'utf8' : 'latin1'),
  );
  const setId = /<SetDTE\b[^>]*?\sID\s*=\s*["']([^"'<>]*)["']/.exec(raw)?.[1] ?? null;
  // The envelope's own signature follows SetDTE (the DTEs' signatures are inside it).
  const setEnd = raw.lastIndexOf('</SetDTE>');
  const digest = setEnd < 0 ? null : (/<(?:[\w.-]+:)?DigestValue>([^<]*)</.exec(raw.slice(setEnd))?.[1]?.replace(/\s+/g, '') ?? null);
  return { setId, digest: digest || null, dtes };
}

export interface RecepcionDteInput {
  tipoDte: number;
  folio: number;
  fechaEmision: string;
  rutEmisor: string;
  rutReceptor: string;
  montoTotal: number;
  estado: EstadoRecepDte;
  /** Default: the schema's text for `estado`. At most 256 characters. */
  glosa?: string | undefined;
}

export interface RespuestaEnvioInput {
  /** The receptor answering (RutResponde). */
  rutResponde: string;
  /** The issuer the answer goes to (RutRecibe). */
  rutRecibe: string;
  /** IdRespuesta and CodEnvio: positive integers of at most 10 digits, unique per receptor. */
  idRespuesta: number;
  codEnvio: number;
  /** NmbEnvio: the envelope's file name (≤ 80). */
  nombreEnvio: string;
  /** EnvioDTEID: the envelope's SetDTE ID (≤ 80). */
  envioDteId: string;
  /** Digest of the envelope's signature, when it had one. */
  digest?: string | null | undefined;
  /** The carátula's RutEmisor and RutReceptor, when readable. */
  caratula?: { rutEmisor: string | null; rutReceptor: string | null } | undefined;
  estadoEnvio: EstadoRecepEnv;
  /** Default: the schema's text for `estadoEnvio`. At most 256 characters. */
  glosaEnvio?: string | undefined;
  documentos: readonly RecepcionDteInput[];
  /** When the envelope was received (FchRecep). */
  recibidoEn: Date;
  signer: SignerInput | PreparedSigner;
  now: Date;
  timeZone?: string;
}

export interface BuiltRespuesta {
  xml: Buffer;
  /** Resultado/@ID, the signed reference. */
  id: string;
  timestamp: string;
}

const MAX_ID = 9_999_999_999;

export function positive10(n: number, param: string): number {
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_ID)
    throw new DteEngineError('invalid_field', `${param} must be a positive integer of at most 10 digits`, param);
  return n;
}

export function bounded(s: string, max: number, param: string): string {
  if (typeof s !== 'string' || s.length === 0 || s.length > max)
    throw new DteEngineError('invalid_field', `${param} must be 1 to ${max} characters`, param);
  // XML 1.0 cannot carry C0 controls other than TAB/LF/CR; CR would be escaped away in canonical text.
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.test(s))
    throw new DteEngineError('invalid_field', `${param} has control characters`, param);
  return s;
}

/** Non-ASCII as character references: same canonical text, ASCII bytes (see the note above). */
export const asciiOnly = (s: string): string =>
  s.replace(/[^\u0000-\u007f]/gu, (c) => `&#x${c.codePointAt(0)!.toString(16).toUpperCase()};`);

function recepcionDte(d: RecepcionDteInput, i: number): string {
  const p = `documentos[${i}]`;
  if (!isReceivable(d.tipoDte))
    throw new DteEngineError('invalid_field', `${p}.tipoDte ${d.tipoDte} cannot be named in a RecepcionDTE`, `${p}.tipoDte`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(d.fechaEmision)) throw new DteEngineError('invalid_date', `${p}.fechaEmision must be YYYY-MM-DD`, p);
  if (!Number.isSafeInteger(d.montoTotal) || d.montoTotal < 0)
    throw new DteEngineError('invalid_field', `${p}.montoTotal must be a non-negative integer`, `${p}.montoTotal`);
  if (!(d.estado in ESTADO_RECEP_DTE)) throw new DteEngineError('invalid_field', `${p}.estado is not an EstadoRecepDTE`, `${p}.estado`);
  return (
    '<RecepcionDTE>' +
    el('TipoDTE', d.tipoDte) +
    el('Folio', positive10(d.folio, `${p}.folio`)) +
    el('FchEmis', d.fechaEmision) +
    el('RUTEmisor', toSiiRut(d.rutEmisor, `${p}.rutEmisor`)) +
    el('RUTRecep', toSiiRut(d.rutReceptor, `${p}.rutReceptor`)) +
    el('MntTotal', d.montoTotal) +
    el('EstadoRecepDTE', d.estado) +
    el('RecepDTEGlosa', bounded(d.glosa ?? ESTADO_RECEP_DTE[d.estado], 256, `${p}.glosa`)) +
    '</RecepcionDTE>'
  );
}

/**
 * The Caratula of a RespuestaDTE's Resultado (RespuestaEnvioDTE_v10.xsd): who answers whom, the
 * answer's id, how many details (one RecepcionEnvio, or one ResultadoDTE per document), when it was signed.
 */
export function respuestaCaratula(
  input: { rutResponde: string; rutRecibe: string },
  idRespuesta: number,
  timestamp: string,
  nroDetalles = 1,
): string {
  return (
    '<Caratula version="1.0">' +
    el('RutResponde', toSiiRut(input.rutResponde, 'rutResponde')) +
    el('RutRecibe', toSiiRut(input.rutRecibe, 'rutRecibe')) +
    el('IdRespuesta', idRespuesta) +
    el('NroDetalles', nroDetalles) +
    el('TmstFirmaResp', timestamp) +
    '</Caratula>'
  );
}
/** The signed RespuestaEnvioDTE (RecepcionEnvio) for one received envelope. */
export function buildRespuestaEnvio(input: RespuestaEnvioInput): BuiltRespuesta {
  const signer = prepareSigner(input.signer);
  assertSignerValidAt(signer, input.now);
  if (!(input.estadoEnvio in ESTADO_RECEP_ENV))
    throw new DteEngineError('invalid_field', 'estadoEnvio is not an EstadoRecepEnv', 'estadoEnvio');
  if (input.documentos.length > 9999) throw new DteEngineError('invalid_field', 'At most 9999 documents per answer', 'documentos');
  const idRespuesta = positive10(input.idRespuesta, 'idRespuesta');
  const id = `RespuestaEnvio${idRespuesta}`;
  const timeZone = input.timeZone ?? SII_TIME_ZONE;
  const timestamp = siiTimestamp(input.now, timeZone);
  const car = input.caratula;
  // One element per line (xml-lines.ts), cut before digesting.
  const resultado = breakLines(
    `<Resultado ID="${id}">` +
      respuestaCaratula(input, idRespuesta, timestamp) +
      '<RecepcionEnvio>' +
      el('NmbEnvio', bounded(input.nombreEnvio, 80, 'nombreEnvio')) +
      el('FchRecep', siiTimestamp(input.recibidoEn, timeZone)) +
      el('CodEnvio', positive10(input.codEnvio, 'codEnvio')) +
      el('EnvioDTEID', bounded(input.envioDteId, 80, 'envioDteId')) +
      (input.digest && /^[A-Za-z0-9+/]+={0,2}$/.test(input.digest) ? el('Digest', input.digest) : '') +
      (car?.rutEmisor ? el('RutEmisor', toSiiRut(car.rutEmisor, 'caratula.rutEmisor')) : '') +
      (car?.rutReceptor ? el('RutReceptor', toSiiRut(car.rutReceptor, 'caratula.rutReceptor')) : '') +
      el('EstadoRecepEnv', input.estadoEnvio) +
      el('RecepEnvGlosa', bounded(input.glosaEnvio ?? ESTADO_RECEP_ENV[input.estadoEnvio], 256, 'glosaEnvio')) +
      (input.documentos.length > 0 ? el('NroDTE', input.documentos.length) : '') +
      input.documentos.map(recepcionDte).join('') +
      '</RecepcionEnvio>' +
      '</Resultado>',
  );
  // In context, Resultado inherits the root's default namespace (and nothing else).
  const canonical = `<Resultado xmlns="${NS_SII}"${resultado.slice('<Resultado'.length)}`;
  const signature = buildSignature(id, canonical, signer);
  const xml = `${XML_DECLARATION}\n<RespuestaDTE xmlns="${NS_SII}" version="1.0">\n${asciiOnly(resultado)}\n${signature}\n</RespuestaDTE>`;
  return { xml: Buffer.from(xml, 'latin1'), id, timestamp };
}
