/**
 * The one error taxonomy of the service. Services throw AppError with a stable snake_case `code`
 * and a transport-free `kind`; the HTTP layer maps the kind to a status, `retryAfterSeconds` to
 * Retry-After, and the rest to the `{error: {...}}` envelope in one place
 * (src/http/plugins/errors.ts). Nothing below HTTP stores or compares statuses
 * (docs/design.md §2). Anything that is not an AppError becomes a generic 500 that is logged in
 * full and never shown to the client.
 */
export type ErrorKind =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'too_large'
  | 'unsupported_media_type'
  | 'unprocessable'
  | 'rate_limited'
  | 'bad_gateway'
  | 'unavailable'
  | 'gateway_timeout';

export const ERROR_KINDS: readonly ErrorKind[] = [
  'invalid_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'gone',
  'too_large',
  'unsupported_media_type',
  'unprocessable',
  'rate_limited',
  'bad_gateway',
  'unavailable',
  'gateway_timeout',
];

export const isErrorKind = (s: unknown): s is ErrorKind => typeof s === 'string' && (ERROR_KINDS as readonly string[]).includes(s);

export interface AppErrorOptions {
  param?: string;
  details?: Record<string, unknown>;
  /** When the caller may try again (seconds); the HTTP layer sends it as Retry-After. */
  retryAfterSeconds?: number;
  cause?: unknown;
}

export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;
  readonly param: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: ErrorKind, code: string, message: string, opts: AppErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.kind = kind;
    this.code = code;
    this.param = opts.param;
    this.details = opts.details;
    this.retryAfterSeconds = opts.retryAfterSeconds;
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
