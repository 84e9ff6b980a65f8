import { ProviderError, type Provider, type ProviderCredentials, type ProviderRoute } from './port.ts';

/**
 * The provider the service calls: one port, two paths (and test mode's, below) (docs/decisions.md §14, docs/credentials.md "A provider per tenant"). Each
 * call goes where the tenant's credentials say (`creds.via`, set from the tenant's `provider` by
 * src/modules/credentials/signing-material.ts): through the billing provider (`simpleapi`: the
 * SimpleAPI adapter, or the emulator's SimpleAPI face), or straight to the SII's own services
 * (`sii`). Credentials without `via` take the SimpleAPI path, as every call did before tenants had a
 * provider. `verifyApiKey` checks a billing-provider key, so it always goes to SimpleAPI.
 *
 * The path is chosen per call and remembered nowhere: a tenant that changes provider sends its next
 * envelope, status question or CAF request the new way, and its documents and CAFs do not care which
 * way they were obtained (a CAF is the SII's, whoever fetched it).
 */
export interface ProviderSlots {
  simpleapi: Provider;
  /** The SII adapter (src/provider/sii/); absent where the installation does not offer it. */
  sii?: Provider | undefined;
  /**
   * Test mode's path (docs/design.md "Test mode"): the built-in emulator, itself routed by `via`
   * over its SimpleAPI and SII faces. Every call of a test tenant (`livemode: false`) goes here,
   * whatever the installation's provider; without it such a call is refused, never sent live.
   * `'here'`: these slots are the emulator already (PROVIDER=emulator, or the test path itself).
   */
  test?: Provider | 'here' | undefined;
}

export const TEST_PATH_UNAVAILABLE =
  'This installation has no emulator for test mode, so a test-mode tenant cannot reach a provider. Ask the operator.';

export const SII_PATH_UNAVAILABLE =
  'The direct SII connection is not available in this installation: the tenant has provider "sii", but this service was ' +
  'started without the SII adapter. Ask the operator, or set the tenant back to provider "simpleapi" (PATCH /api/v1/tenants/{tenantId}) ' +
  'with a billing-provider API key.';

/** The path a call takes: the credentials' `via`, SimpleAPI when absent. */
export const routeOf = (creds: Pick<ProviderCredentials, 'via'>): ProviderRoute => creds.via ?? 'simpleapi';

/** A failure on the direct path is the SII's: marked so, the API words it as the SII's (errors.ts). */
const fromSii = (e: unknown): never => {
  if (e instanceof ProviderError && e.origin !== 'sii')
    throw new ProviderError(e.kind, e.message, e.status, { retryAfterMs: e.retryAfterMs, origin: 'sii' });
  throw e;
};

const noBooks = () =>
  new ProviderError('rejected', "This provider takes no books: download the book's XML and upload it in the SII's site.");

export function createRoutedProvider(slots: ProviderSlots): Provider {
  /** `call` on the provider the credentials name; a failure on the direct path marked as the SII's. */
  const on = async <T>(creds: ProviderCredentials, call: (p: Provider) => Promise<T>): Promise<T> => {
    if (creds.livemode === false && slots.test !== 'here') {
      if (!slots.test) throw new ProviderError('unavailable', TEST_PATH_UNAVAILABLE);
      return call(slots.test);
    }
    if (routeOf(creds) === 'simpleapi') return call(slots.simpleapi);
    if (!slots.sii) throw new ProviderError('unavailable', SII_PATH_UNAVAILABLE);
    return call(slots.sii).catch(fromSii);
  };
  return {
    // The installation's billing provider names the whole: the SII path is per tenant.
    name: slots.simpleapi.name,
    verifyApiKey: (apiKey, opts) => {
      if (opts?.livemode !== false || slots.test === 'here') return slots.simpleapi.verifyApiKey(apiKey);
      if (!slots.test) return Promise.reject(new ProviderError('unavailable', TEST_PATH_UNAVAILABLE));
      return slots.test.verifyApiKey(apiKey);
    },
    requestCaf: (creds, req) => on(creds, (p) => p.requestCaf(creds, req)),
    upload: (creds, req) => on(creds, (p) => p.upload(creds, req)),
    uploadStatus: (creds, req) => on(creds, (p) => p.uploadStatus(creds, req)),
    documentStatus: (creds, req) => on(creds, (p) => p.documentStatus(creds, req)),
    annulFolios: (creds, req) => on(creds, (p) => p.annulFolios(creds, req)),
    // Optional capabilities: refused where the tenant's path has none (certification books).
    uploadBook: (creds, req) => on(creds, (p) => (p.uploadBook ? p.uploadBook(creds, req) : Promise.reject(noBooks()))),
    bookStatus: (creds, req) => on(creds, (p) => (p.bookStatus ? p.bookStatus(creds, req) : Promise.reject(noBooks()))),
    registerAcceptance: (creds, req) => on(creds, (p) => p.registerAcceptance(creds, req)),
  };
}
