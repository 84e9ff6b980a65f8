/**
 * The one error taxonomy of the service. Services throw AppError with a stable snake_case `code`;
 * the HTTP layer maps it to a status and the `{error: {...}}` envelope in one place
 * (src/http/plugins/errors.ts). Anything that is not an AppError becomes a generic 500 that is
 * logged in full and never shown to the client.
 */
export type ErrorKind =
  | 'invalid_request' // 400
  | 'unauthorized' // 401
  | 'not_found' // 404
  | 'conflict' // 409
  | 'gone' // 410
  | 'too_large' // 413
  | 'unsupported_media_type' // 415
  | 'unprocessable' // 422
  | 'rate_limited' // 429
  | 'bad_gateway' // 502
  | 'unavailable' // 503
  | 'gateway_timeout'; // 504

export const STATUS_BY_KIND: Record<ErrorKind, number> = {
  invalid_request: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  bad_gateway: 502,
  unavailable: 503,
  gateway_timeout: 504,
};

export interface AppErrorOptions {
  param?: string;
  details?: Record<string, unknown>;
  /** Extra response headers, e.g. Retry-After. */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;
  readonly param: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(kind: ErrorKind, code: string, message: string, opts: AppErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.kind = kind;
    this.code = code;
    this.param = opts.param;
    this.details = opts.details;
    this.headers = opts.headers;
  }

  get status(): number {
    return STATUS_BY_KIND[this.kind];
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/** Shorthands for the common cases, so call sites read as the rule they enforce. */
export const errors = {
  invalid: (code: string, message: string, opts?: AppErrorOptions) => new AppError('invalid_request', code, message, opts),
  notFound: (resource: string, id?: string, param?: string) =>
    new AppError(
      'not_found',
      `${resource}_not_found`,
      id ? `No ${resource.replace(/_/g, ' ')} with id '${id}' exists.` : `No such ${resource.replace(/_/g, ' ')}.`,
      param ? { param } : {},
    ),
  conflict: (code: string, message: string, opts?: AppErrorOptions) => new AppError('conflict', code, message, opts),
  unprocessable: (code: string, message: string, opts?: AppErrorOptions) => new AppError('unprocessable', code, message, opts),
  unauthorized: (code: string, message: string) => new AppError('unauthorized', code, message),
};
