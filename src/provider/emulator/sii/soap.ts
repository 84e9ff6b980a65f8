import { DOMParser } from '@xmldom/xmldom';
import type { Element } from '@xmldom/xmldom';
import { escapeXml } from '../../sii/http.ts';
import { textReply, type Reply } from '../reply.ts';

/**
 * The emulated DTEWS services' SOAP 1.1 (RPC/encoded, Apache Axis): the request's operation and
 * its string parameters by name, and the answer as the manual shows it (autenticacion-automatica
 * v1.9 §5.2.3.1: `soapenv` envelope, `ns1:<op>Response` with the encoding style, one
 * `<op>Return xsi:type="xsd:string"` holding the SII's XML escaped). A request that is not SOAP
 * gets Axis's HTTP 500 Fault (shape: Axis's; text ours).
 */
export interface SoapRequest {
  operation: string;
  params: Record<string, string>;
}

export function parseSoapRequest(body: Buffer | string): SoapRequest | undefined {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  let doc;
  try {
    let failed = false;
    doc = new DOMParser({
      onError: (level) => {
        if (level !== 'warning') failed = true;
      },
    }).parseFromString(text, 'text/xml');
    if (failed) return undefined;
  } catch {
    return undefined;
  }
  const root = doc.documentElement;
  if (!root || root.localName !== 'Envelope') return undefined;
  const bodyEl = children(root as unknown as Element).find((e) => e.localName === 'Body');
  const op = bodyEl ? children(bodyEl)[0] : undefined;
  if (!op) return undefined;
  const params: Record<string, string> = {};
  for (const p of children(op)) params[p.localName ?? p.tagName] = p.textContent ?? '';
  return { operation: op.localName ?? op.tagName, params };
}

function children(e: Element): Element[] {
  const out: Element[] = [];
  for (let n = e.firstChild; n; n = n.nextSibling) if (n.nodeType === 1) out.push(n as Element);
  return out;
}

export const SOAP_TYPE = 'text/xml; charset=utf-8';

export function soapAnswer(namespace: string, operation: string, returned: string): Reply {
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" ' +
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body>' +
    `<ns1:${operation}Response soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="${escapeXml(namespace)}">` +
    `<${operation}Return xsi:type="xsd:string">${escapeXml(returned)}</${operation}Return>` +
    `</ns1:${operation}Response></soapenv:Body></soapenv:Envelope>`;
  return { status: 200, contentType: SOAP_TYPE, body: Buffer.from(xml, 'utf8') };
}

export function soapFault(message: string): Reply {
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><soapenv:Fault>' +
    `<faultcode>soapenv:Server.userException</faultcode><faultstring>${escapeXml(message)}</faultstring>` +
    '</soapenv:Fault></soapenv:Body></soapenv:Envelope>';
  return { ...textReply(500, xml), contentType: SOAP_TYPE };
}

/**
 * The SII's `SII:RESPUESTA` as the authentication services write it: one line after the
 * declaration, RESP_HDR then RESP_BODY (fig. 1.8, 1.9). Values are escaped.
 */
export function authRespuesta(hdr: readonly (readonly [string, string])[], body: readonly (readonly [string, string])[] = []): string {
  const tags = (xs: readonly (readonly [string, string])[]) => xs.map(([k, v]) => `<${k}>${escapeXml(v)}</${k}>`).join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<SII:RESPUESTA xmlns:SII="http://www.sii.cl/XMLSchema">' +
    `<SII:RESP_HDR>${tags(hdr)}</SII:RESP_HDR>${body.length > 0 ? `<SII:RESP_BODY>${tags(body)}</SII:RESP_BODY>` : ''}</SII:RESPUESTA>`
  );
}
