/**
 * What the SDK throws. Every API error is a `DteApiError` (or a subclass chosen by status) carrying
 * the service's error envelope `{error: {code, message, param?, details?, requestId}}` as fields, so
 * callers branch on `code` (stable) rather than on `message` (prose).
 */

export class DteError extends Error {
  override name = 'DteError';
}

export interface ApiErrorFields {
  status: number;
  code: string;
  message: string;
  param?: string | undefined;
  details?: Record<string, unknown> | undefined;
  requestId?: string | undefined;
  /** Seconds from the `Retry-After` header (429, 503), when the service sent one. */
  retryAfter?: number | undefined;
  headers?: Headers | undefined;
}

export class DteApiError extends DteError {
  override name = 'DteApiError';
  readonly status: number;
  readonly code: string;
  readonly param: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly requestId: string | undefined;
  readonly retryAfter: number | undefined;
  readonly headers: Headers | undefined;

  constructor(f: ApiErrorFields) {
    super(f.message);
    this.status = f.status;
    this.code = f.code;
    this.param = f.param;
    this.details = f.details;
    this.requestId = f.requestId;
    this.retryAfter = f.retryAfter;
    this.headers = f.headers;
  }
}

/** 400 and 422: the input is malformed or breaks a business rule; `param` names the field. */
export class DteInvalidRequestError extends DteApiError {
  override name = 'DteInvalidRequestError';
}
/** 401: no usable API key. */
export class DteAuthenticationError extends DteApiError {
  override name = 'DteAuthenticationError';
}
/** 404: unknown resource, or one that belongs to another account. */
export class DteNotFoundError extends DteApiError {
  override name = 'DteNotFoundError';
}
/** 409: state conflict (`idempotency_key_reused`, `tenant_not_ready`, …). */
export class DteConflictError extends DteApiError {
  override name = 'DteConflictError';
}
/** 429: rate limited; `retryAfter` says how long to wait. Thrown once the client's retries are spent. */
export class DteRateLimitError extends DteApiError {
  override name = 'DteRateLimitError';
}
/** 5xx: the service or its provider failed; 503 carries `retryAfter`. */
export class DteServerError extends DteApiError {
  override name = 'DteServerError';
}

/** The request never got an HTTP answer (connection refused, reset, DNS, timeout). */
export class DteConnectionError extends DteError {
  override name = 'DteConnectionError';
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
  }
}

export type WebhookFailure = 'missing_header' | 'invalid_signature' | 'timestamp_out_of_tolerance' | 'invalid_payload' | 'invalid_secret';

/** `verifyWebhook` refused a delivery: do not trust its body. */
export class WebhookVerificationError extends DteError {
  override name = 'WebhookVerificationError';
  readonly reason: WebhookFailure;
  constructor(reason: WebhookFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** `Retry-After` in seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

const byStatus = (status: number): typeof DteApiError => {
  if (status === 400 || status === 422) return DteInvalidRequestError;
  if (status === 401) return DteAuthenticationError;
  if (status === 404) return DteNotFoundError;
  if (status === 409) return DteConflictError;
  if (status === 429) return DteRateLimitError;
  if (status >= 500) return DteServerError;
  return DteApiError;
};

/** The typed error for a non-2xx response, from its envelope (or its status when it has none). */
export async function errorFromResponse(response: Response): Promise<DteApiError> {
  const text = await response.text().catch(() => '');
  let body: { error?: { code?: unknown; message?: unknown; param?: unknown; details?: unknown; requestId?: unknown } } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  const e = body && typeof body.error === 'object' && body.error ? body.error : undefined;
  const Cls = byStatus(response.status);
  return new Cls({
    status: response.status,
    // A response without the envelope (a proxy's HTML page, say) still gets a stable code.
    code: typeof e?.code === 'string' ? e.code : `http_${response.status}`,
    message: typeof e?.message === 'string' ? e.message : `HTTP ${response.status}: ${text.slice(0, 200) || response.statusText}`,
    param: typeof e?.param === 'string' ? e.param : undefined,
    details: e?.details && typeof e.details === 'object' ? (e.details as Record<string, unknown>) : undefined,
    requestId: typeof e?.requestId === 'string' ? e.requestId : (response.headers.get('request-id') ?? undefined),
    retryAfter: parseRetryAfter(response.headers.get('retry-after')),
    headers: response.headers,
  });
}
