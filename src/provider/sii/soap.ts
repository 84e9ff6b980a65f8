import type { Ambiente } from '../port.ts';
import { ProviderError } from '../port.ts';
import { decodeXml, escapeXml, excerpt, siiRequest, type SiiHttp } from './http.ts';

/**
 * A minimal RPC/encoded SOAP 1.1 call to the SII's DTEWS services, as the manual's request
 * example writes it (autenticacion-automatica v1.9 §4.1.2, §4.1.4; the DTEWS
 * WSDLs, docs/sources.md [WSDL]: style rpc, soapAction "", one string part per parameter), and the parse of
 * its answer: one `<operation>Return` string holding the SII's own XML, escaped (§5.2.3).
 */
export interface SoapCall {
  ambiente: Ambiente;
  /** `/DTEWS/CrSeed.jws` */
  path: string;
  /** The service's name for metrics: `CrSeed`. */
  service: string;
  operation: string;
  params: readonly (readonly [string, string])[];
  /** Strings never to show in an error (the token). */
  secrets?: readonly string[];
}

export function soapEnvelope(namespace: string, operation: string, params: readonly (readonly [string, string])[]): string {
  const args = params.map(([k, v]) => `<${k} xsi:type="xsd:string">${escapeXml(v)}</${k}>`).join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" ' +
    'xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
    'xmlns:xsd="http://www.w3.org/2001/XMLSchema" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">' +
    `<SOAP-ENV:Body><m:${operation} xmlns:m="${namespace}">${args}</m:${operation}></SOAP-ENV:Body></SOAP-ENV:Envelope>`
  );
}

/** The decoded `<operation>Return` text of a SOAP answer, or undefined when there is none. */
export function soapReturn(xml: string, operation: string): string | undefined {
  const m = new RegExp(`<(?:[\\w.-]+:)?${operation}Return(?:\\s[^>]*)?>([\\s\\S]*?)</(?:[\\w.-]+:)?${operation}Return>`).exec(xml);
  return m ? decodeXml(m[1]!) : undefined;
}

/** Calls one DTEWS operation; answers its decoded return string. HTTP or SOAP failures are `unavailable`. */
export async function soapCall(ctx: SiiHttp, c: SoapCall): Promise<string> {
  const origin = ctx.hosts.origin('dtews', c.ambiente);
  const label = `${c.service}.${c.operation}`;
  const r = await siiRequest(ctx, {
    service: 'dtews',
    ambiente: c.ambiente,
    operation: label,
    path: c.path,
    method: 'POST',
    headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: '""' },
    body: soapEnvelope(`${origin}${c.path}`, c.operation, c.params),
  });
  const text = r.body.toString('utf8');
  const ret = soapReturn(text, c.operation);
  if (r.status !== 200 || ret === undefined) {
    const fault = /<faultstring>([\s\S]*?)<\/faultstring>/.exec(text)?.[1];
    throw new ProviderError(
      'unavailable',
      `The SII's ${label} failed (HTTP ${r.status}): ${excerpt(fault ? decodeXml(fault) : text, c.secrets ?? [])}`,
      r.status,
    );
  }
  return ret;
}
