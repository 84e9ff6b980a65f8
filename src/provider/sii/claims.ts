import { splitRut } from '../../dte/index.ts';
import { ProviderError, type AcceptanceRegistration, type Ambiente } from '../port.ts';
import { REGISTRO_ALREADY, REGISTRO_OK, REGISTRO_RETRY } from '../simpleapi/protocol.ts';
import { CLAIMS_PATHS, isTokenFault, parseRegistroAnswer, registroRequestEnvelope } from './claims-protocol.ts';
import type { SiiCallContext, SiiCredentials } from './context.ts';
import { excerpt, siiRequest } from './http.ts';
import { withToken } from './with-token.ts';

/**
 * The receptor's acceptance or claim of a document, registered with the SII's own
 * WsRegistroReclamoDte (docs/sources.md §1.7; claims-protocol.ts): `ingresarAceptacionReclamoDoc`
 * with the SOAP token (the DTEWS one, §1.2) in `Cookie: TOKEN=…`. The SII answers HTTP 200 with
 * its codResp whatever it decides: 0 recorded now and 7 recorded before are `registered`; -1 is
 * its "retry later" (an `unavailable` ProviderError); every other code is `refused` with its code
 * and words. A token the service does not take (a fault naming the token, or HTTP 401) is forgotten
 * and the call made once more with a fresh one.
 */
export interface AcceptanceRequest {
  rutEmisor: string;
  tipoDte: number;
  folio: number;
  accion: 'ACD' | 'RCD' | 'ERM' | 'RFP' | 'RFT';
  ambiente: Ambiente;
}

type Parsed = ReturnType<typeof parseRegistroAnswer>;

export async function registerAcceptance(
  ctx: SiiCallContext,
  creds: SiiCredentials,
  req: AcceptanceRequest,
): Promise<AcceptanceRegistration> {
  const emisor = splitRut(req.rutEmisor);
  const body = Buffer.from(
    registroRequestEnvelope({
      rutEmisor: emisor.rut,
      dvEmisor: emisor.dv,
      tipoDoc: String(req.tipoDte),
      folio: String(req.folio),
      accionDoc: req.accion,
    }),
    'utf8',
  );
  const out = await withToken(ctx, 'soap', creds, req.ambiente, async (token) => {
    const a = await siiRequest(ctx, {
      service: 'claims',
      ambiente: req.ambiente,
      operation: 'ingresarAceptacionReclamoDoc',
      path: CLAIMS_PATHS[req.ambiente],
      method: 'POST',
      headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: '""', Accept: 'text/xml' },
      body,
      token,
    });
    const parsed: Parsed = parseRegistroAnswer(a.body.toString('utf8'));
    if (a.status === 401 || (parsed && 'fault' in parsed && isTokenFault(parsed.fault))) return undefined;
    return { a, parsed, token };
  });
  if (!out) {
    throw new ProviderError(
      'certificate_rejected',
      "The SII's registro de aceptación o reclamo refused the token twice with a fresh one: check that the certificate's holder is authorised for the receiving company.",
      401,
    );
  }
  const { a, parsed, token } = out;
  if (!parsed) {
    throw new ProviderError(
      'unavailable',
      `The SII's registro answered HTTP ${a.status} without a code: ${excerpt(a.body, [token])}`,
      a.status,
    );
  }
  if ('fault' in parsed)
    throw new ProviderError('unavailable', `The SII's registro answered a SOAP fault: ${excerpt(parsed.fault, [token])}`, a.status);
  if (parsed.codResp === REGISTRO_RETRY) {
    throw new ProviderError('unavailable', `The SII could not register the action now: ${parsed.descResp || 'Error Interno'}.`, a.status);
  }
  return {
    outcome: parsed.codResp === REGISTRO_OK || parsed.codResp === REGISTRO_ALREADY ? 'registered' : 'refused',
    codigo: parsed.codResp,
    descripcion: parsed.descResp,
    raw: a.body,
  };
}
