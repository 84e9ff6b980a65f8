import type { FastifyRequest } from 'fastify';

/**
 * What a request log line holds. URLs can carry activation tokens (/activate/act_…), so they are
 * redacted; headers are never logged (Authorization, cookies). See the canary test.
 */
export const redactUrl = (url: string): string =>
  url.replace(/(act|sk_live|whsec)_[A-Za-z0-9_-]+/g, '$1_[redacted]').replace(/([?&](token|key|secret)=)[^&]*/gi, '$1[redacted]');

export const requestSerializer = (req: FastifyRequest) => ({
  method: req.method,
  url: redactUrl(req.url),
  remoteAddress: req.ip,
});

/**
 * Errors are logged by type, message, code and stack (and their causes) only. Driver errors carry
 * more: PGlite's the query and its parameters, pg's `detail` and `where` with row values — a new
 * password hash, an e-mail, a secret's ciphertext. None of that is logged, at any level.
 */
export function errorSerializer(err: unknown, depth = 0): Record<string, unknown> | unknown {
  if (!(err instanceof Error)) return typeof err === 'object' ? '[non-error thrown]' : err;
  const e = err as Error & { code?: unknown; cause?: unknown };
  return {
    type: e.name,
    message: e.message,
    ...(typeof e.code === 'string' || typeof e.code === 'number' ? { code: e.code } : {}),
    stack: e.stack,
    ...(e.cause !== undefined && depth < 3 ? { cause: errorSerializer(e.cause, depth + 1) } : {}),
  };
}

export const loggerOptions = (level: string) => ({
  level,
  serializers: { req: requestSerializer, err: (e: unknown) => errorSerializer(e) },
  redact: { paths: ['req.headers', '*.password', '*.apiKey', '*.secret', '*.token', '*.key'], censor: '[redacted]' },
});
