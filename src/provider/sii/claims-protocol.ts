import type { Ambiente } from '../port.ts';
import { escapeXml, tagText } from './http.ts';

/**
 * The SII's WsRegistroReclamoDte (registro de aceptación o reclamo) as both sides of this
 * repository speak it: the adapter (claims.ts) and the emulator's SII face
 * (emulator/sii/claims.ts). Sources: the SII's manual "Web Service de Consulta y Registro de
 * Aceptación/Reclamo a DTE recibido" v1.2 (docs/sources.md [RR]; docs/sources.md
 * §1.7) for the operation, its parameters and codes; the service's WSDL as compiled by a public
 * .NET client (sergiokml/LibreDteDotNet.SoapRequest, ServiceRegistro: namespace, Action "",
 * `respuestaTo {codResp, descResp, listaEventosDoc, rutToken}`, the fault type `Exception
 * {message}`); the answer's bytes as SimpleAPI relays them [C "Aceptar - Rechazar en SII"]
 * (emulator/sii-format.ts registroSoap). The SII publishes no WSDL of it beside
 * the DTEWS ones (docs/sources.md [WSDL]).
 */

/** The service's paths: production on ws1, certification on ws2 under its own path (docs/sources.md §1.1, §1.7). */
export const CLAIMS_PATHS: Record<Ambiente, string> = {
  produccion: '/WSREGISTRORECLAMODTE/registroreclamodteservice',
  certificacion: '/WSREGISTRORECLAMODTECERT/registroreclamodteservice',
};

export const REGISTRO_NS = 'http://ws.registroreclamodte.diii.sdi.sii.cl';
const SOAP_ENV = 'http://schemas.xmlsoap.org/soap/envelope/';

/** The actions the operation takes (manual, accionDoc). */
export const ACCIONES = ['ACD', 'RCD', 'ERM', 'RFP', 'RFT'] as const;

export interface RegistroRequest {
  rutEmisor: string;
  dvEmisor: string;
  tipoDoc: string;
  folio: string;
  accionDoc: string;
}

/**
 * The request: document/literal wrapped, the operation element in the service's namespace and its
 * parameters unqualified, in the manual's order (WSDL per the .NET client; the JAX-WS answer's
 * `ns2:…Response/return` shape [C] is the same style).
 */
export function registroRequestEnvelope(r: RegistroRequest): string {
  const p = (name: keyof RegistroRequest) => `<${name}>${escapeXml(r[name])}</${name}>`;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<soapenv:Envelope xmlns:soapenv="${SOAP_ENV}" xmlns:ws="${REGISTRO_NS}">` +
    `<soapenv:Header/><soapenv:Body><ws:ingresarAceptacionReclamoDoc>` +
    `${p('rutEmisor')}${p('dvEmisor')}${p('tipoDoc')}${p('folio')}${p('accionDoc')}` +
    `</ws:ingresarAceptacionReclamoDoc></soapenv:Body></soapenv:Envelope>`
  );
}

/** The operation's parameters out of a request; undefined when the body is not that operation. */
export function parseRegistroRequest(xml: string): RegistroRequest | undefined {
  if (!/<(?:[\w.-]+:)?ingresarAceptacionReclamoDoc[\s>]/.test(xml)) return undefined;
  const v = (n: keyof RegistroRequest) => tagText(xml, n) ?? '';
  return { rutEmisor: v('rutEmisor'), dvEmisor: v('dvEmisor'), tipoDoc: v('tipoDoc'), folio: v('folio'), accionDoc: v('accionDoc') };
}

/**
 * A SOAP fault with the WSDL's fault type `Exception {message}` in its detail. The SII's wording
 * and HTTP status for a missing or unknown token on this service are not recorded in any source we
 * have: ours are HTTP 500 (as SOAP 1.1 over HTTP answers faults) and TOKEN_REFUSED.
 */
export function soapFault(faultstring: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<soap:Envelope xmlns:soap="${SOAP_ENV}"><soap:Body><soap:Fault>` +
    `<faultcode>soap:Server</faultcode><faultstring>${escapeXml(faultstring)}</faultstring>` +
    `<detail><ns2:Exception xmlns:ns2="${REGISTRO_NS}"><message>${escapeXml(faultstring)}</message></ns2:Exception></detail>` +
    `</soap:Fault></soap:Body></soap:Envelope>`
  );
}

/** Ours (see soapFault): the fault the emulator answers for a missing, unknown or expired token. */
export const TOKEN_REFUSED = 'No se ha podido validar el TOKEN';

/** Whether a fault's text says the token was refused (ours: TOKEN_REFUSED; any text naming the token). */
export const isTokenFault = (text: string): boolean => /token/i.test(text);

/** The operation's answer: `codResp` and `descResp` (manual; [C]); a fault's text; or neither. */
export function parseRegistroAnswer(xml: string): { codResp: number; descResp: string } | { fault: string } | undefined {
  if (/<(?:[\w.-]+:)?Fault[\s>]/.test(xml)) return { fault: tagText(xml, 'faultstring') ?? tagText(xml, 'message') ?? '' };
  const cod = tagText(xml, 'codResp');
  if (cod === undefined || !/^-?\d{1,3}$/.test(cod)) return undefined;
  return { codResp: Number(cod), descResp: tagText(xml, 'descResp') ?? '' };
}
