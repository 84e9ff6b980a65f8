import { DteEngineError } from '../errors.ts';
import { NS_SII, XML_DECLARATION } from '../dte-xml.ts';
import { NS_XSI } from '../envelope.ts';
import { checkSiiDate, siiTimestamp, SII_TIME_ZONE } from '../dates.ts';
import { el } from '../xml-escape.ts';
import { breakLines } from '../xml-lines.ts';
import { isLatin1 } from '../text-policy.ts';
import { toSiiRut } from '../rut.ts';
import { assertSignerValidAt, buildSignature, prepareSigner } from '../xmldsig.ts';
import type { BookHeader } from './book-types.ts';

/**
 * A book file: `<Libro… version="1.0"><EnvioLibro ID>…<TmstFirma/></EnvioLibro><Signature/></Libro…>`,
 * ISO-8859-1, one element per line (xml-lines.ts, docs/dte.md "Lines"), EnvioLibro signed in the
 * file's context exactly as envelope.ts signs SetDTE: the canonical EnvioLibro carries the root's
 * `xmlns` and `xmlns:xsi`, and SignedInfo declares `xmlns:xsi` too (xmldsig.ts).
 */
export interface CheckedHeader {
  rutEmisor: string;
  rutEnvia: string;
  periodo: string;
  fechaResolucion: string;
  numeroResolucion: number;
  folioNotificacion: number;
  timestamp: string;
  id: string;
}

export function checkHeader(h: BookHeader): CheckedHeader & { signer: ReturnType<typeof prepareSigner> } {
  const signer = prepareSigner(h.signer);
  assertSignerValidAt(signer, h.now);
  const rutEnviaRaw = h.rutEnvia ?? signer.rutTitular;
  if (!rutEnviaRaw)
    throw new DteEngineError('rut_envia_unknown', 'The certificate carries no SII RUT (OID 1.3.6.1.4.1.8321.1): pass rutEnvia', 'rutEnvia');
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(h.periodo)) throw new DteEngineError('invalid_field', 'periodo must be AAAA-MM', 'periodo');
  if (!Number.isSafeInteger(h.numeroResolucion) || h.numeroResolucion < 0 || h.numeroResolucion > 999_999)
    throw new DteEngineError('invalid_field', 'numeroResolucion must be an integer 0..999999', 'numeroResolucion');
  if (!Number.isSafeInteger(h.folioNotificacion) || h.folioNotificacion < 1 || h.folioNotificacion > 9_999_999_999)
    throw new DteEngineError('invalid_field', 'folioNotificacion must be a positive integer of up to 10 digits', 'folioNotificacion');
  const id = h.id ?? 'EnvioLibro';
  if (!/^[A-Za-z_][\w.-]*$/.test(id)) throw new DteEngineError('invalid_field', 'id must be an XML NCName', 'id');
  return {
    signer,
    rutEmisor: toSiiRut(h.rutEmisor, 'rutEmisor'),
    rutEnvia: toSiiRut(rutEnviaRaw, 'rutEnvia'),
    periodo: h.periodo,
    fechaResolucion: checkSiiDate(h.fechaResolucion, 'fechaResolucion'),
    numeroResolucion: h.numeroResolucion,
    folioNotificacion: h.folioNotificacion,
    timestamp: siiTimestamp(h.now, h.timeZone ?? SII_TIME_ZONE),
    id,
  };
}

/** A text value for a book: ISO-8859-1 only, cut to the schema's length. */
export function bookText(value: string, max: number, param: string): string {
  const t = value.replace(/\s+/g, ' ').trim();
  if (!isLatin1(t)) throw new DteEngineError('unsupported_character', `${param} has characters outside ISO-8859-1`, param);
  return t.slice(0, max);
}

/** Writes `el` only when the value is defined. */
/**
 * The Caratula both books open with (IECV v3.0 and the guía book's format, docs/sources.md [IECV],
 * [LGD]): the same fields in the same order, and `TipoOperacion` only on the sales and purchase book.
 * Every book here is ESPECIAL (asked for by a notification) and TOTAL.
 */
export function caratula(h: CheckedHeader, tipoOperacion?: 'VENTA' | 'COMPRA'): string {
  return (
    '<Caratula>' +
    el('RutEmisorLibro', h.rutEmisor) +
    el('RutEnvia', h.rutEnvia) +
    el('PeriodoTributario', h.periodo) +
    el('FchResol', h.fechaResolucion) +
    el('NroResol', h.numeroResolucion) +
    opt('TipoOperacion', tipoOperacion) +
    el('TipoLibro', 'ESPECIAL') +
    el('TipoEnvio', 'TOTAL') +
    el('FolioNotificacion', h.folioNotificacion) +
    '</Caratula>'
  );
}

export const opt = (name: string, v: string | number | undefined | null): string => (v === undefined || v === null ? '' : el(name, v));

export function writeSignedBook(
  root: 'LibroCompraVenta' | 'LibroGuia',
  schema: string,
  h: CheckedHeader & { signer: ReturnType<typeof prepareSigner> },
  body: string,
): Buffer {
  const inner = breakLines(body + el('TmstFirma', h.timestamp));
  const canonical = `<EnvioLibro xmlns="${NS_SII}" xmlns:xsi="${NS_XSI}" ID="${h.id}">\n${inner}\n</EnvioLibro>`;
  const xsiDecl = ` xmlns:xsi="${NS_XSI}"`;
  const signature = buildSignature(h.id, canonical, h.signer, { signedInfoInheritedNs: xsiDecl, signedInfoEmittedNs: xsiDecl });
  const xml =
    `${XML_DECLARATION}\n` +
    `<${root} xmlns="${NS_SII}" xmlns:xsi="${NS_XSI}" xsi:schemaLocation="${NS_SII} ${schema}" version="1.0">\n` +
    `<EnvioLibro ID="${h.id}">\n${inner}\n</EnvioLibro>\n` +
    signature +
    `\n</${root}>`;
  return Buffer.from(xml, 'latin1');
}
