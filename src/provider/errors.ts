import { AppError } from '../errors.ts';
import { ProviderError } from './port.ts';

/**
 * How a billing-provider failure reaches an API client. The tenant's key or quota problems are
 * 422 (the caller must fix something at the provider; retrying will not help); an unreachable or
 * slow provider is 502/504 (retry later). Messages never include the key or the certificate.
 */
export function providerErrorToAppError(e: ProviderError): AppError {
  if (e.origin === 'sii') return siiErrorToAppError(e);
  switch (e.kind) {
    case 'invalid_api_key':
      return new AppError(
        'unprocessable',
        'provider_api_key_invalid',
        "The billing provider refused the tenant's API key. Save a valid key with POST /api/v1/tenants/{tenantId}/credentials/api-key.",
        { param: 'apiKey' },
      );
    case 'expired_api_key':
      return new AppError(
        'unprocessable',
        'provider_api_key_expired',
        "The tenant's billing-provider API key has expired (Apikey vencida). Renew it with the provider and save the new key.",
        { param: 'apiKey' },
      );
    case 'quota_exhausted':
      return new AppError(
        'unprocessable',
        'provider_quota_exhausted',
        "The tenant's billing-provider plan has no calls left this period. Upgrade the plan or wait for the quota to renew.",
      );
    case 'rate_limited':
      return new AppError(
        'unavailable',
        'provider_rate_limited',
        "The billing provider's rate limit for this tenant's API key is reached (SimpleAPI allows 3 calls/s and 40/min for documents, 1/s, 5/min and 100/h for folios). Retry after the indicated time.",
        { retryAfterSeconds: Math.max(1, Math.ceil(rateLimitWaitMs(e)! / 1000)) },
      );
    case 'certificate_rejected':
      return new AppError(
        'unprocessable',
        'provider_certificate_rejected',
        "The billing provider accepted the API key but the SII refused the tenant's certificate: check its password and RUT, and that its holder is authorised for the company at the SII, then upload it again with POST /api/v1/tenants/{tenantId}/credentials/certificate.",
        { param: 'certificate' },
      );
    case 'timeout':
      return new AppError('gateway_timeout', 'provider_timeout', 'The billing provider did not answer in time. Retry later.', {
        retryAfterSeconds: 30,
      });
    case 'unavailable':
      return new AppError('bad_gateway', 'provider_unavailable', 'The billing provider is unreachable or failing. Retry later.', {
        retryAfterSeconds: 30,
      });
    case 'rejected':
      return new AppError('unprocessable', 'provider_rejected', `The billing provider rejected the request: ${e.message}`);
  }
}

/**
 * A direct tenant's failure (docs/sii-direct.md, "Errors and what to do"): the same codes, worded as
 * the SII's, with the adapter's own explanation (it never holds a token, password or key).
 */
function siiErrorToAppError(e: ProviderError): AppError {
  switch (e.kind) {
    case 'certificate_rejected':
      return new AppError(
        'unprocessable',
        'provider_certificate_rejected',
        `The SII refused the tenant's certificate: ${e.message} Check that its holder is authorised for the company at the SII (with the "Enviar documentos" permission), then upload it again with POST /api/v1/tenants/{tenantId}/credentials/certificate.`,
        { param: 'certificate' },
      );
    case 'timeout':
      return new AppError('gateway_timeout', 'provider_timeout', `The SII did not answer in time: ${e.message} Retry later.`, {
        retryAfterSeconds: 30,
      });
    case 'unavailable':
    case 'rate_limited':
      return new AppError('bad_gateway', 'provider_unavailable', `The SII is unreachable or failing: ${e.message} Retry later.`, {
        retryAfterSeconds: 30,
      });
    default:
      return new AppError('unprocessable', 'provider_rejected', `The SII rejected the request: ${e.message}`);
  }
}

export const isProviderError = (e: unknown): e is ProviderError => e instanceof ProviderError;

/**
 * How long to wait when `e` is the provider's rate limit (its Retry-After, or 1 s when it gave
 * none); undefined for anything else. Background work reschedules itself by it, never fails.
 */
export const rateLimitWaitMs = (e: unknown): number | undefined =>
  e instanceof ProviderError && e.kind === 'rate_limited' ? (e.retryAfterMs ?? 1000) : undefined;
