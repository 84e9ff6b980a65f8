import { createHash } from 'node:crypto';
import type { Ambiente } from '../port.ts';
import type { SiiCredentials, SiiTokenKind, SiiTokens } from './context.ts';
import type { SiiHttp } from './http.ts';
import { fetchToken } from './seed.ts';

/**
 * The token cache of the direct SII adapters (docs/sources.md §1.2), one entry per certificate
 * (sha256 of the .pfx), environment and kind: the token belongs to the certificate's holder, and
 * the SOAP and REST tokens are different tokens. Concurrent callers of one key share one fetch
 * (single flight); a failed fetch is not cached.
 *
 * Lifetimes:
 *  - REST: "válido por 1 hora y se renueva con cada uso" (the SII's boleta API notes, §1.2): kept
 *    one hour from its last use, less a margin.
 *  - SOAP: the manual states none; LibreDTE keeps it 60 s, Odoo until a call fails. Ours: 30
 *    minutes from issue (SOAP_TOKEN_TTL_MS), and whenever the SII refuses it (DTEUpload STATUS 5,
 *    QueryEst* 001–003) the caller invalidates it and asks once more with a fresh one.
 * The tokens are never logged nor put in an error.
 */
export const SOAP_TOKEN_TTL_MS = 30 * 60_000;
export const REST_TOKEN_TTL_MS = 60 * 60_000;
/** A token this close to its end is not handed out (it could expire in flight). */
const MARGIN_MS = 60_000;

export interface SiiTokensOptions {
  http: SiiHttp;
  /** Milliseconds now (tests move it); default Date.now. */
  now?: () => number;
  soapTtlMs?: number;
  restTtlMs?: number;
  /** The fetch itself (tests); default: seed.ts. */
  fetchToken?: typeof fetchToken;
}

interface Entry {
  token: string;
  expiresAt: number;
}

export function createSiiTokens(opts: SiiTokensOptions): SiiTokens {
  const now = opts.now ?? Date.now;
  const ttl: Record<SiiTokenKind, number> = { soap: opts.soapTtlMs ?? SOAP_TOKEN_TTL_MS, rest: opts.restTtlMs ?? REST_TOKEN_TTL_MS };
  const fetcher = opts.fetchToken ?? fetchToken;
  const cache = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<string>>();
  const counts: Record<SiiTokenKind, number> = { soap: 0, rest: 0 };
  // The hash of a .pfx is computed once per Buffer object.
  const pfxHashes = new WeakMap<Buffer, string>();
  const keyOf = (kind: SiiTokenKind, creds: SiiCredentials, ambiente: Ambiente) => {
    let h = pfxHashes.get(creds.pfx);
    if (!h) pfxHashes.set(creds.pfx, (h = createHash('sha256').update(creds.pfx).digest('hex')));
    return `${kind}:${ambiente}:${h}`;
  };

  return {
    get(kind, creds, ambiente) {
      const key = keyOf(kind, creds, ambiente);
      const e = cache.get(key);
      const t = now();
      if (e && t < e.expiresAt - MARGIN_MS) {
        // The REST token is renewed by the SII on each use.
        if (kind === 'rest') e.expiresAt = t + ttl.rest;
        return Promise.resolve(e.token);
      }
      if (e) cache.delete(key);
      let p = inFlight.get(key);
      if (!p) {
        p = fetcher(opts.http, kind, creds, ambiente)
          .then((token) => {
            counts[kind]++;
            cache.set(key, { token, expiresAt: now() + ttl[kind] });
            return token;
          })
          .finally(() => inFlight.delete(key));
        inFlight.set(key, p);
      }
      return p;
    },
    invalidate(kind, creds, ambiente, token) {
      const key = keyOf(kind, creds, ambiente);
      // Only the refused token: another caller may already hold a fresh one.
      if (cache.get(key)?.token === token) cache.delete(key);
    },
    fetched: () => ({ ...counts }),
  };
}
