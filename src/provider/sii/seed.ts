import { signSeed } from '../../dte/index.ts';
import type { Ambiente } from '../port.ts';
import { ProviderError } from '../port.ts';
import type { SiiCredentials, SiiTokenKind } from './context.ts';
import { excerpt, siiRequest, tagText, type SiiHttp } from './http.ts';
import { signerFromPfx } from './pfx.ts';
import { soapCall } from './soap.ts';

/**
 * The SII's seed → signed seed → token exchange (docs/sources.md §1.2; manual
 * 2007-11-18-autenticacion-automatica-v1.9):
 *  - SOAP: CrSeed.getSeed() → `<SEMILLA>`; GetTokenFromSeed.getToken(pszXml) → `<TOKEN>`, each
 *    answer an escaped `SII:RESPUESTA` with RESP_HDR/ESTADO ("00" ok, fig. 1.6–1.7);
 *  - REST (boletas): GET boleta.electronica.semilla and POST boleta.electronica.token with the same
 *    signed document as application/xml (§1.5; the SII's API "Sugerencias", 2021-05-05).
 * The seed lives two minutes at the SII, so it is signed and sent at once. The .pfx is opened
 * here, for the signing only.
 */
export const SOAP_SEED_PATH = '/DTEWS/CrSeed.jws';
export const SOAP_TOKEN_PATH = '/DTEWS/GetTokenFromSeed.jws';
export const REST_SEED_PATH = '/recursos/v1/boleta.electronica.semilla';
export const REST_TOKEN_PATH = '/recursos/v1/boleta.electronica.token';

/**
 * GetTokenFromSeed's ESTADO codes (fig. 1.7) that say the certificate or its holder is refused:
 * 05 invalid signature, 11 no certificate, 21 key ≠ certificate, -3 authentication error, -07 the
 * holder is not registered for certificate authentication. Asking again will not help.
 */
const CERTIFICATE_ESTADOS = new Set(['05', '11', '21', '-3', '-03', '-07', '-7']);

function tokenFrom(xml: string, what: string): string {
  const estado = tagText(xml, 'ESTADO');
  const token = tagText(xml, 'TOKEN');
  if (estado === '00' && token) return token;
  const glosa = tagText(xml, 'GLOSA') ?? '';
  const text = `The SII refused the ${what} token (ESTADO ${estado ?? '?'}${glosa ? `: ${glosa}` : ''}).`;
  if (estado && CERTIFICATE_ESTADOS.has(estado)) {
    throw new ProviderError(
      'certificate_rejected',
      `${text} Check that the certificate is valid and that its holder is registered at the SII for certificate authentication.`,
    );
  }
  throw new ProviderError(
    'unavailable',
    estado ? text : `The SII answered the ${what} token request without a state: ${excerpt(xml, [token ?? ''])}`,
  );
}

function seedFrom(xml: string, what: string): string {
  const estado = tagText(xml, 'ESTADO');
  // The manual's main example says SEMILLA (fig. 1.8); its §6.1.1 example says SEED.
  const seed = tagText(xml, 'SEMILLA') ?? tagText(xml, 'SEED');
  if (estado === '00' && seed) return seed;
  throw new ProviderError('unavailable', `The SII gave no ${what} seed (ESTADO ${estado ?? '?'}): ${excerpt(xml)}`);
}

export async function fetchSoapToken(ctx: SiiHttp, creds: SiiCredentials, ambiente: Ambiente): Promise<string> {
  const seedXml = await soapCall(ctx, { ambiente, path: SOAP_SEED_PATH, service: 'CrSeed', operation: 'getSeed', params: [] });
  const signed = signSeed(seedFrom(seedXml, 'SOAP'), signerFromPfx(creds));
  const tokenXml = await soapCall(ctx, {
    ambiente,
    path: SOAP_TOKEN_PATH,
    service: 'GetTokenFromSeed',
    operation: 'getToken',
    params: [['pszXml', signed]],
  });
  return tokenFrom(tokenXml, 'SOAP');
}

export async function fetchRestToken(ctx: SiiHttp, creds: SiiCredentials, ambiente: Ambiente): Promise<string> {
  const seed = await siiRequest(ctx, { service: 'rest', ambiente, operation: 'boleta.semilla', path: REST_SEED_PATH, method: 'GET' });
  if (seed.status !== 200) throw new ProviderError('unavailable', `The SII's boleta seed failed (HTTP ${seed.status}).`, seed.status);
  const signed = signSeed(seedFrom(seed.body.toString('utf8'), 'REST'), signerFromPfx(creds));
  const token = await siiRequest(ctx, {
    service: 'rest',
    ambiente,
    operation: 'boleta.token',
    path: REST_TOKEN_PATH,
    method: 'POST',
    headers: { 'Content-Type': 'application/xml' },
    body: signed,
  });
  if (token.status !== 200) throw new ProviderError('unavailable', `The SII's boleta token failed (HTTP ${token.status}).`, token.status);
  return tokenFrom(token.body.toString('utf8'), 'REST');
}

export function fetchToken(ctx: SiiHttp, kind: SiiTokenKind, creds: SiiCredentials, ambiente: Ambiente): Promise<string> {
  return kind === 'soap' ? fetchSoapToken(ctx, creds, ambiente) : fetchRestToken(ctx, creds, ambiente);
}
