import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isDteEngineError } from '../../dte/errors.ts';
import { AppError, isAppError, type ErrorKind } from '../../errors.ts';
import { PAGE_SECURITY_HEADERS } from '../../web/shared/headers.ts';
import { notFoundPage, wantsHtmlPage } from '../../web/shared/not-found.ts';

/**
 * The one place where errors become HTTP responses. The envelope is
 * `{error: {code, message, param?, details?, requestId}}`; raw library or driver messages never
 * reach the client, and unknown errors are logged in full and answered with a generic 500.
 */
interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

export const jsonPointerToParam = (pointer: string): string =>
  pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');

export function validationToAppError(errs: AjvError[], context: string | undefined): AppError {
  const e = errs[0]!;
  let param = jsonPointerToParam(e.instancePath);
  let message: string;
  const where = context === 'querystring' ? 'query parameter' : context === 'params' ? 'path parameter' : 'field';
  switch (e.keyword) {
    case 'required':
      param = param ? `${param}.${String(e.params.missingProperty)}` : String(e.params.missingProperty);
      message = `The ${where} '${param}' is required.`;
      break;
    case 'additionalProperties':
      param = param ? `${param}.${String(e.params.additionalProperty)}` : String(e.params.additionalProperty);
      message = `Unknown ${where} '${param}'. Check the spelling against the API reference at /docs.`;
      break;
    case 'type':
      message = `The ${where} '${param || '(body)'}' must be of type ${String(e.params.type)}.`;
      break;
    case 'enum':
      message = `The ${where} '${param}' must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}.`;
      break;
    default:
      message = `The ${where} '${param || '(body)'}' ${e.message ?? 'is invalid'}.`;
  }
  return new AppError('invalid_request', context === 'body' || !context ? 'invalid_field' : 'invalid_parameter', message, {
    ...(param ? { param } : {}),
  });
}

/**
 * The database is down or unreachable (PostgreSQL restarting, the network, the pool unable to
 * connect): a 503 with Retry-After, so clients retry, instead of an internal error.
 */
const DB_DOWN_CODES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, i = 0; e && i < 4; e = e.cause as typeof e, i++) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (DB_DOWN_CODES.has(code) || code.startsWith('08')) return true;
    const message = typeof e.message === 'string' ? e.message : '';
    if (
      /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|PGlite is closed|Cannot use a pool after calling end/i.test(
        message,
      )
    )
      return true;
  }
  return false;
}

export const databaseUnavailable = () =>
  new AppError('unavailable', 'database_unavailable', 'The service cannot reach its database right now. Retry shortly.', {
    retryAfterSeconds: 5,
  });

/** Requests the router refuses before any route runs: a malformed percent-encoding, an over-long path parameter. */
export function frameworkError(err: FastifyError): AppError {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return new AppError(
      'invalid_request',
      'path_parameter_too_long',
      'A path parameter is longer than any id this API uses. Check the URL.',
    );
  return new AppError('invalid_request', 'invalid_url', 'The request URL is malformed (check its percent-encoding).');
}

/**
 * The error as the taxonomy knows it: an AppError as it is, and a refusal of the document engine
 * (DteEngineError: a value it cannot write into the SII's XML) that reached the edge unmapped
 * as a 400 with the engine's code, message and field. Services map the engine's errors where
 * they know better (a tenant's own data is a 409: src/modules/dte/dte.errors.ts) and text is
 * checked before it is stored or signed (src/lib/validate.ts `siiText`); this is the net under
 * both, so a refusal is never a 500. Used by the API's handler and by the pages' handlers.
 */
export function knownError(err: unknown): AppError | undefined {
  if (isAppError(err)) return err;
  if (isDteEngineError(err))
    return new AppError('invalid_request', err.code, err.message, {
      ...(err.param ? { param: err.param } : {}),
      ...(err.details ? { details: err.details } : {}),
      cause: err,
    });
  return undefined;
}

function toAppError(err: FastifyError & { validation?: AjvError[]; validationContext?: string }): AppError | undefined {
  const known = knownError(err);
  if (known) return known;
  if (err.validation) return validationToAppError(err.validation, err.validationContext);
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return new AppError('too_large', 'body_too_large', 'The request body is larger than this route accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(
        'unsupported_media_type',
        'unsupported_media_type',
        'This route does not accept that Content-Type. Send application/json (or multipart/form-data where documented).',
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_request', 'invalid_json', 'The body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_request', 'invalid_json', 'The body is not valid JSON.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalid_request', 'invalid_content_length', 'The Content-Length header does not match the body.');
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return new AppError('invalid_request', 'invalid_url', 'The request URL is malformed.');
  }
  if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON/i.test(err.message))) {
    return new AppError('invalid_request', 'invalid_json', 'The body is not valid JSON.');
  }
  if (err.statusCode === 413) return new AppError('too_large', 'body_too_large', 'The request body is too large.');
  if (err.statusCode === 415)
    return new AppError('unsupported_media_type', 'unsupported_media_type', 'This route does not accept that Content-Type.');
  if (err.statusCode === 400) return new AppError('invalid_request', 'invalid_request', 'The request is malformed.');
  if (isDatabaseUnavailable(err)) return databaseUnavailable();
  return undefined;
}

/** The HTTP status of each error kind: the only place a kind becomes a status. */
export const STATUS_BY_KIND: Record<ErrorKind, number> = {
  invalid_request: 400,
  unauthorized: 401,
  /** A dashboard member whose role lacks the action (docs/dashboard.md "Members and roles"). */
  forbidden: 403,
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

export const statusOf = (e: AppError): number => STATUS_BY_KIND[e.kind];

export function sendError(request: FastifyRequest, reply: FastifyReply, e: AppError): FastifyReply {
  if (e.retryAfterSeconds !== undefined) reply.header('Retry-After', String(e.retryAfterSeconds));
  return reply
    .status(statusOf(e))
    .type('application/json; charset=utf-8')
    .send({
      error: {
        code: e.code,
        message: e.message,
        ...(e.param ? { param: e.param } : {}),
        ...(e.details ? { details: e.details } : {}),
        requestId: request.id,
      },
    });
}

export default fp(async function errorsPlugin(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const appErr = toAppError(err);
    if (appErr) {
      if (statusOf(appErr) >= 500) request.log.warn({ err, code: appErr.code }, 'request failed upstream');
      // A check missing before the engine: answered as a 400, logged so that it gets its own.
      else if (isDteEngineError(err)) request.log.warn({ err, code: appErr.code }, 'engine refusal reached the edge unmapped');
      return sendError(request, reply, appErr);
    }
    request.log.error({ err }, 'unhandled error');
    return sendError(
      request,
      reply,
      new AppError('unavailable', 'internal_error', 'Something went wrong on our side. Retry later; quote the requestId if it persists.'),
    ).status(500);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    if (wantsHtmlPage(request.method, path, request.headers.accept))
      return reply.status(404).headers(PAGE_SECURITY_HEADERS).type('text/html; charset=utf-8').send(notFoundPage(path, request.id));
    return sendError(request, reply, new AppError('not_found', 'route_not_found', `No route ${request.method} ${path}. See /docs.`));
  });
});
