import { XML_DECLARATION, NS_SII } from './dte-xml.ts';
import { siiTimestamp, SII_TIME_ZONE } from './dates.ts';
import { DteEngineError } from './errors.ts';
import { isReceivable } from './catalogue.ts';
import { asciiOnly, bounded, positive10, respuestaCaratula, type BuiltRespuesta } from './exchange.ts';
import { toSiiRut } from './rut.ts';
import { el } from './xml-escape.ts';
import { breakLines } from './xml-lines.ts';
import { assertSignerValidAt, buildSignature, prepareSigner, type PreparedSigner } from './xmldsig.ts';
import type { SignerInput } from './types.ts';

/**
 * The receptor's answers about one received document, after the RecepcionEnvio (exchange.ts):
 *
 *  - the commercial approval, a RespuestaEnvioDTE (root `RespuestaDTE`) with one `ResultadoDTE`
 *    (RespuestaEnvioDTE_v10.xsd): EstadoDTE 0 "DTE Aceptado OK", 1 "DTE Aceptado con
 *    Discrepancias", 2 "DTE Rechazado" — the schema's own texts;
 *  - the receipt of goods or services of Ley 19.983, an `EnvioRecibos` (EnvioRecibos_v10.xsd) with
 *    one `Recibo` (Recibos_v10.xsd) whose `Declaracion` is the schema's fixed text.
 *
 * Signed like the RespuestaEnvioDTE: we write each signed element in canonical form and digest our
 * own string with the namespaces it inherits (only the SII's default namespace: no xsi is declared,
 * so an inner signature stays valid once embedded). A `Recibo` carries its own signature over
 * `DocumentoRecibo`, and the EnvioRecibos another over `SetRecibos`, as a DTE inside an EnvioDTE.
 * Bytes are pure ASCII (non-ASCII as character references, which parse to the digested text).
 */

/** EstadoDTE of a ResultadoDTE (the schema's enumeration and texts). */
export const ESTADO_DTE = {
  0: 'DTE Aceptado OK',
  1: 'DTE Aceptado con Discrepancias',
  2: 'DTE Rechazado',
} as const;
export type EstadoDte = keyof typeof ESTADO_DTE;

/** Recibos_v10.xsd, `Declaracion` (fixed): the receptor's statement under Ley 19.983. */
export const DECLARACION_RECIBO =
  'El acuse de recibo que se declara en este acto, de acuerdo a lo dispuesto en la letra b) del Art. 4, y la letra c) del Art. 5 de la Ley 19.983, acredita que la entrega de mercaderias o servicio(s) prestado(s) ha(n) sido recibido(s).';

/** The document an answer is about, as the supplier's DTE states it. */
export interface AnsweredDocument {
  tipoDte: number;
  folio: number;
  fechaEmision: string;
  rutEmisor: string;
  rutReceptor: string;
  montoTotal: number;
}

export interface ResultadoDteInput {
  /** The receptor answering (RutResponde) and the issuer the answer goes to (RutRecibe). */
  rutResponde: string;
  rutRecibe: string;
  /** IdRespuesta: a positive integer of at most 10 digits, unique per receptor. */
  idRespuesta: number;
  documento: AnsweredDocument;
  /** CodEnvio of the RecepcionEnvio in which the document was received. */
  codEnvio: number;
  estado: EstadoDte;
  /** EstadoDTEGlosa, default the schema's text for `estado`. At most 256 characters. */
  glosa?: string | null | undefined;
  signer: SignerInput | PreparedSigner;
  now: Date;
  timeZone?: string;
}

const documentFields = (d: AnsweredDocument, p: string): string => {
  if (!isReceivable(d.tipoDte))
    throw new DteEngineError('invalid_field', `${p}.tipoDte ${d.tipoDte} cannot be named in an answer`, `${p}.tipoDte`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(d.fechaEmision)) throw new DteEngineError('invalid_date', `${p}.fechaEmision must be YYYY-MM-DD`, p);
  if (!Number.isSafeInteger(d.montoTotal) || d.montoTotal < 0)
    throw new DteEngineError('invalid_field', `${p}.montoTotal must be a non-negative integer`, `${p}.montoTotal`);
  return (
    el('Folio', positive10(d.folio, `${p}.folio`)) +
    el('FchEmis', d.fechaEmision) +
    el('RUTEmisor', toSiiRut(d.rutEmisor, `${p}.rutEmisor`)) +
    el('RUTRecep', toSiiRut(d.rutReceptor, `${p}.rutReceptor`)) +
    el('MntTotal', d.montoTotal)
  );
};

/** One ResultadoDTE of a RespuestaEnvioDTE: a document, the reception it came in, the verdict. */
export interface ResultadoItem {
  documento: AnsweredDocument;
  codEnvio: number;
  estado: EstadoDte;
  glosa?: string | null | undefined;
}

/** The signed RespuestaEnvioDTE with one ResultadoDTE (the commercial approval or rejection of one DTE). */
export function buildResultadoDte(input: ResultadoDteInput): BuiltRespuesta {
  const { documento, codEnvio, estado, glosa, ...rest } = input;
  return buildResultadosDte({ ...rest, resultados: [{ documento, codEnvio, estado, glosa }] });
}

/**
 * The signed RespuestaEnvioDTE with one ResultadoDTE per document (the schema allows several: the
 * certification's exchange step answers every document of the SII's envelope in one file,
 * docs/certification.md "The exchange step").
 */
export function buildResultadosDte(
  input: Omit<ResultadoDteInput, 'documento' | 'codEnvio' | 'estado' | 'glosa'> & { resultados: readonly ResultadoItem[] },
): BuiltRespuesta {
  const signer = prepareSigner(input.signer);
  assertSignerValidAt(signer, input.now);
  if (input.resultados.length === 0 || input.resultados.length > 9999)
    throw new DteEngineError('invalid_field', 'One to 9999 documents per answer', 'resultados');
  const idRespuesta = positive10(input.idRespuesta, 'idRespuesta');
  const id = `ResultadoDTE${idRespuesta}`;
  const timestamp = siiTimestamp(input.now, input.timeZone ?? SII_TIME_ZONE);
  const detalles = input.resultados.map((r, i) => {
    const p = input.resultados.length === 1 ? 'documento' : `resultados[${i}].documento`;
    if (!(r.estado in ESTADO_DTE)) throw new DteEngineError('invalid_field', 'estado is not an EstadoDTE', 'estado');
    return (
      '<ResultadoDTE>' +
      el('TipoDTE', r.documento.tipoDte) +
      documentFields(r.documento, p) +
      el('CodEnvio', positive10(r.codEnvio, 'codEnvio')) +
      el('EstadoDTE', r.estado) +
      el('EstadoDTEGlosa', bounded(r.glosa || ESTADO_DTE[r.estado], 256, 'glosa')) +
      '</ResultadoDTE>'
    );
  });
  // One element per line (xml-lines.ts), cut before digesting.
  const resultado = breakLines(
    `<Resultado ID="${id}">` + respuestaCaratula(input, idRespuesta, timestamp, detalles.length) + detalles.join('') + '</Resultado>',
  );
  const canonical = `<Resultado xmlns="${NS_SII}"${resultado.slice('<Resultado'.length)}`;
  const signature = buildSignature(id, canonical, signer);
  const xml = `${XML_DECLARATION}\n<RespuestaDTE xmlns="${NS_SII}" version="1.0">\n${asciiOnly(resultado)}\n${signature}\n</RespuestaDTE>`;
  return { xml: Buffer.from(xml, 'latin1'), id, timestamp };
}

export interface EnvioRecibosInput {
  rutResponde: string;
  rutRecibe: string;
  /** Numbers the SetRecibos and the Recibo IDs: a positive integer of at most 10 digits. */
  idEnvio: number;
  documento: AnsweredDocument;
  /** Recinto: where the goods or services were received (1–80 characters). */
  recinto: string;
  /** RutFirma: who signs the receipt; default the certificate holder's RUT. */
  rutFirma?: string | undefined;
  signer: SignerInput | PreparedSigner;
  now: Date;
  timeZone?: string;
}

/** The signed EnvioRecibos with one Recibo (Ley 19.983's acuse de recibo de mercaderías o servicios). */
export function buildEnvioRecibos(input: EnvioRecibosInput): BuiltRespuesta {
  const { documento, ...rest } = input;
  return buildEnvioRecibosOf({ ...rest, documentos: [documento] });
}

/**
 * The signed EnvioRecibos with one Recibo per document (SetRecibos holds several: the
 * certification's exchange step, docs/certification.md "The exchange step"), each signed on its own.
 */
export function buildEnvioRecibosOf(
  input: Omit<EnvioRecibosInput, 'documento'> & { documentos: readonly AnsweredDocument[] },
): BuiltRespuesta {
  const signer = prepareSigner(input.signer);
  assertSignerValidAt(signer, input.now);
  const n = positive10(input.idEnvio, 'idEnvio');
  if (input.documentos.length === 0 || input.documentos.length > 9999)
    throw new DteEngineError('invalid_field', 'One to 9999 documents per EnvioRecibos', 'documentos');
  const rutFirmaRaw = input.rutFirma ?? signer.rutTitular;
  if (!rutFirmaRaw)
    throw new DteEngineError('rut_firma_unknown', 'The certificate carries no SII RUT (OID 1.3.6.1.4.1.8321.1): pass rutFirma', 'rutFirma');
  const timestamp = siiTimestamp(input.now, input.timeZone ?? SII_TIME_ZONE);
  const single = input.documentos.length === 1;
  const recibos = input.documentos.map((d, i) => {
    const reciboId = single ? `Recibo${n}` : `Recibo${n}_${i + 1}`;
    // One element per line (xml-lines.ts), cut before digesting.
    const documentoRecibo = breakLines(
      `<DocumentoRecibo ID="${reciboId}">` +
        el('TipoDoc', d.tipoDte) +
        documentFields(d, single ? 'documento' : `documentos[${i}]`) +
        el('Recinto', bounded(input.recinto, 80, 'recinto')) +
        el('RutFirma', toSiiRut(rutFirmaRaw, 'rutFirma')) +
        el('Declaracion', DECLARACION_RECIBO) +
        el('TmstFirmaRecibo', timestamp) +
        '</DocumentoRecibo>',
    );
    const reciboSignature = buildSignature(
      reciboId,
      `<DocumentoRecibo xmlns="${NS_SII}"${documentoRecibo.slice('<DocumentoRecibo'.length)}`,
      signer,
    );
    return `<Recibo version="1.0">\n${documentoRecibo}\n${reciboSignature}\n</Recibo>`;
  });
  const setId = `SetRecibos${n}`;
  const caratula = breakLines(
    '<Caratula version="1.0">' +
      el('RutResponde', toSiiRut(input.rutResponde, 'rutResponde')) +
      el('RutRecibe', toSiiRut(input.rutRecibe, 'rutRecibe')) +
      el('TmstFirmaEnv', timestamp) +
      '</Caratula>',
  );
  const setRecibos = `<SetRecibos ID="${setId}">\n${caratula}\n${recibos.join('\n')}\n</SetRecibos>`;
  const signature = buildSignature(setId, `<SetRecibos xmlns="${NS_SII}"${setRecibos.slice('<SetRecibos'.length)}`, signer);
  const xml = `${XML_DECLARATION}\n<EnvioRecibos xmlns="${NS_SII}" version="1.0">\n${asciiOnly(setRecibos)}\n${signature}\n</EnvioRecibos>`;
  return { xml: Buffer.from(xml, 'latin1'), id: setId, timestamp };
}
