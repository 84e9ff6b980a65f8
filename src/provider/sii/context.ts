import type { Ambiente, ProviderCredentials } from '../port.ts';

/**
 * What every adapter of the SII's own protocols shares (docs/sii-direct.md): where each service
 * lives, the HTTP client, the tokens, and the User-Agent the gateway accepts. Each protocol has its
 * own small file beside this one (seed and tokens, DTEUpload, status queries, boleta REST, claims)
 * and takes a SiiCallContext; sii-provider.ts puts them behind the provider port.
 */

/** The SII's services, one origin each (docs/sources.md §1.1). */
export type SiiService =
  /** palena / maullin: DTEWS (CrSeed, GetTokenFromSeed, QueryEstUp, QueryEstDte) and cgi_dte/UPL/DTEUpload. */
  | 'dtews'
  /** api / apicert: boleta REST seed, token and status. */
  | 'rest'
  /** rahue / pangal: the boleta REST upload (the only host where it works, §1.5). */
  | 'restUpload'
  /** ws1 / ws2: WsRegistroReclamoDte (§1.7). */
  | 'claims'
  /** palena / maullin: the CAF forms (cvc_cgi, §1.6). */
  | 'caf'
  /** herculesr (both environments): the SII's web login with the certificate over mTLS (cgi_AUT2000, §1.1, §1.6). */
  | 'login';

export interface SiiHosts {
  /** The origin (scheme://host[:port], no trailing slash) of `service` in `ambiente`. */
  origin(service: SiiService, ambiente: Ambiente): string;
}

const ORIGINS: Record<SiiService, Record<Ambiente, string>> = {
  dtews: { produccion: 'https://palena.sii.cl', certificacion: 'https://maullin.sii.cl' },
  rest: { produccion: 'https://api.sii.cl', certificacion: 'https://apicert.sii.cl' },
  restUpload: { produccion: 'https://rahue.sii.cl', certificacion: 'https://pangal.sii.cl' },
  claims: { produccion: 'https://ws1.sii.cl', certificacion: 'https://ws2.sii.cl' },
  caf: { produccion: 'https://palena.sii.cl', certificacion: 'https://maullin.sii.cl' },
  login: { produccion: 'https://herculesr.sii.cl', certificacion: 'https://herculesr.sii.cl' },
};

/**
 * The SII's hosts per environment, or every one of them replaced by `baseUrl` (SII_BASE_URL: the
 * standalone emulator and the tests serve every SII path on one origin).
 */
export function siiHosts(baseUrl?: string): SiiHosts {
  const base = baseUrl?.replace(/\/+$/, '');
  return { origin: (service, ambiente) => base ?? ORIGINS[service][ambiente] };
}

/**
 * The User-Agent the SII's gateway accepts: any other is answered 401 "NO ESTA AUTENTICADO" on the
 * boleta upload even with a valid token (docs/sources.md §1.5, Odoo and ruraldte, seen live).
 */
export const SII_USER_AGENT = 'Mozilla/4.0 (compatible; PROG 1.0; Windows NT)';

/** SOAP tokens (DTEWS, DTEUpload, claims) and boleta REST tokens are different tokens (§1.2). */
export type SiiTokenKind = 'soap' | 'rest';

/** The certificate a token belongs to: the tenant's .pfx, decrypted for the call only. */
export type SiiCredentials = Pick<Required<ProviderCredentials>, 'pfx' | 'pfxPassword' | 'rutCertificado'>;

export interface SiiTokens {
  /**
   * A token for this certificate and environment: the cached one, or one fetched now (seed →
   * signed seed → token) when there is none or it has expired. Concurrent callers share one fetch.
   * Never logged.
   */
  get(kind: SiiTokenKind, creds: SiiCredentials, ambiente: Ambiente): Promise<string>;
  /** The SII refused `token` (expired, unknown): forget it, so the next get fetches a new one. */
  invalidate(kind: SiiTokenKind, creds: SiiCredentials, ambiente: Ambiente, token: string): void;
  /** Tokens fetched from the SII since start, per kind (the must-show counts them). */
  fetched(): Record<SiiTokenKind, number>;
}

export interface SiiCallObserver {
  call(service: SiiService, operation: string, status: number | null): void;
}

export interface SiiCallContext {
  hosts: SiiHosts;
  fetch: typeof fetch;
  /** Per HTTP attempt. */
  timeoutMs: number;
  tokens: SiiTokens;
  sleep: (ms: number) => Promise<void>;
  observer?: SiiCallObserver | undefined;
}
