import { isDteEngineError } from '../../dte/index.ts';
import { errors } from '../../errors.ts';

// Engine codes that are business rules (422); the rest are malformed values (400).
const BUSINESS_CODES = new Set(['amount_mismatch', 'unsupported_tipo_dte', 'all_lines_exempt', 'references_required', 'amount_too_large']);

/**
 * Turns an engine error into the API's error (docs/dte.md, "Error codes"): a problem with the
 * tenant's own data (the `emisor` the engine was given) is a 409 the tenant's owner can fix with
 * PATCH, unless the request itself sent that `emisor` key (`sentInRequest`: a document's own
 * override of the issuer data), which is about the request, as anything else. Other errors pass
 * through unchanged.
 */
export function engineErrorToAppError(e: unknown, sentInRequest: (param: string) => boolean = () => false): unknown {
  if (!isDteEngineError(e)) return e;
  const param = e.param;
  if (param?.startsWith('emisor') && !sentInRequest(param)) {
    if (e.code === 'invalid_acteco')
      return errors.conflict(
        'tenant_acteco_missing',
        'This document type needs the tenant\'s economic activity codes (acteco). Set them with PATCH /api/v1/tenants/{tenantId} {"acteco": [620200]}.',
        { param: 'acteco' },
      );
    return errors.conflict(
      'tenant_data_invalid',
      `The tenant's data cannot go into a DTE: ${e.message}. Fix it with PATCH /api/v1/tenants/{tenantId}.`,
    );
  }
  const opts = { ...(param ? { param } : {}), ...(e.details ? { details: e.details } : {}) };
  return BUSINESS_CODES.has(e.code) ? errors.unprocessable(e.code, e.message, opts) : errors.invalid(e.code, e.message, opts);
}
