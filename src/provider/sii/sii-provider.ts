import { isBoleta } from '../../dte/index.ts';
import type { Provider } from '../port.ts';
import { ProviderError } from '../port.ts';
import { boletaUploadStatus, uploadBoletas } from './boleta-rest.ts';
import { registerAcceptance } from './claims.ts';
import { requestCafViaForms } from './caf-forms.ts';
import { siiHosts, type SiiCallContext, type SiiCallObserver, type SiiTokens } from './context.ts';
import { siiCredentials } from './credentials.ts';
import { uploadBook, uploadDte } from './dte-upload.ts';
import { queryBookStatus, queryDocumentStatus, queryUploadStatus } from './query-status.ts';
import { createSiiTokens } from './tokens.ts';

/**
 * The provider port over the SII's own services (docs/sii-direct.md): no paid intermediary, the
 * tenant's certificate authenticates every call (seed.ts, tokens.ts). One small file per protocol
 * beside this one; this file only dispatches. CAFs are requested through the SII's web forms
 * (caf-forms.ts, over mTLS with the tenant's certificate). What the SII offers no service for is
 * refused with what to do instead (folio annulment; there is no API key to verify).
 */
export interface SiiProviderOptions {
  /** SII_BASE_URL: every service on one origin (the emulator); absent: the SII's hosts. */
  baseUrl?: string | undefined;
  fetch?: typeof fetch;
  /** Per HTTP attempt. */
  timeoutMs: number;
  sleep?: (ms: number) => Promise<void>;
  observer?: SiiCallObserver | undefined;
  /** The token cache; default: a new one over this provider's transport. */
  tokens?: SiiTokens;
  /**
   * Where the CAF forms and the certificate login are served when not at the SII's hosts (the
   * in-process emulator's local HTTPS listener) and the server certificate to trust there.
   * Default: the same origins as the other services, trusted by the system's CAs (and
   * NODE_EXTRA_CA_CERTS, for a standalone emulator started with --tls).
   */
  cafForms?: () => Promise<{ origin: string; ca: string }>;
}

export interface SiiProvider extends Provider {
  readonly name: 'sii';
  /** Books go through DTEUpload (dte-upload.ts uploadBook, query-status.ts queryBookStatus). */
  uploadBook: NonNullable<Provider['uploadBook']>;
  bookStatus: NonNullable<Provider['bookStatus']>;
  /** The tokens this provider fetched (its cache's counts). */
  readonly tokens: SiiTokens;
}

const notWired = (what: string) => new ProviderError('unavailable', `The direct SII connection cannot ${what} yet: not wired yet.`);

export function createSiiProvider(opts: SiiProviderOptions): SiiProvider {
  const http = {
    hosts: siiHosts(opts.baseUrl),
    fetch: opts.fetch ?? globalThis.fetch,
    timeoutMs: opts.timeoutMs,
    observer: opts.observer,
  };
  const tokens = opts.tokens ?? createSiiTokens({ http });
  const ctx: SiiCallContext = {
    ...http,
    tokens,
    sleep: opts.sleep ?? ((ms) => new Promise<void>((r) => setTimeout(r, ms))),
  };

  return {
    name: 'sii',
    tokens,

    verifyApiKey() {
      return Promise.reject(
        new ProviderError('rejected', 'A direct SII connection has no API key to verify: the tenant authenticates with its certificate.'),
      );
    },

    async requestCaf(creds, req) {
      const local = opts.cafForms ? await opts.cafForms() : undefined;
      return requestCafViaForms(
        { hosts: local ? siiHosts(local.origin) : http.hosts, timeoutMs: opts.timeoutMs, observer: opts.observer, ca: local?.ca },
        siiCredentials(creds),
        req,
      );
    },

    annulFolios() {
      return Promise.reject(
        new ProviderError('rejected', "The SII has no service to annul folios: annul them in the SII's web site (anulación de folios)."),
      );
    },

    async upload(creds, req) {
      if (req.tipo === 'boleta') return uploadBoletas(ctx, siiCredentials(creds), req);
      return uploadDte(ctx, siiCredentials(creds), req);
    },

    async uploadStatus(creds, req) {
      if (req.tipo === 'boleta') return boletaUploadStatus(ctx, siiCredentials(creds), req);
      return queryUploadStatus(ctx, siiCredentials(creds), req);
    },

    async uploadBook(creds, req) {
      return uploadBook(ctx, siiCredentials(creds), req);
    },

    async bookStatus(creds, req) {
      return queryBookStatus(ctx, siiCredentials(creds), req);
    },

    async documentStatus(creds, req) {
      // A boleta's state is the boleta REST server's (boleta.electronica/…/estado, §1.5), not QueryEstDte.
      if (isBoleta(req.tipoDte)) throw notWired("ask for a boleta's state");
      return queryDocumentStatus(ctx, siiCredentials(creds), req);
    },

    async registerAcceptance(creds, req) {
      return registerAcceptance(ctx, siiCredentials(creds), req);
    },
  };
}
