import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError, errors } from '../../errors.ts';
import type { RateLimit, RateLimiter } from '../../lib/rate-limiter.ts';
import type { ApiKeysService } from '../../modules/api-keys/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on every API route by the auth hook; routes read the account from here only. */
    auth: { accountId: string; apiKeyId: string } | null;
  }
}

/** Routes that need an API key: everything under /api/v1 except the OpenAPI document, and /dte/*. */
export const needsApiKey = (url: string): boolean =>
  (url.startsWith('/api/v1/') || url === '/api/v1') && !url.startsWith('/api/v1/openapi.json') ? true : url.startsWith('/dte/');

/**
 * The path the decision is made on: the pattern of the route the router matched (so
 * `/%61pi/v1/account`, which the router decodes to `/api/v1/account`, needs a key like the plain
 * form), or for an unmatched request its decoded path (an unknown /api/v1 path is still a 401
 * before it is a 404). A path that does not decode needs no key: it is answered 400 as malformed.
 */
export function authPath(req: FastifyRequest): string {
  const pattern = req.routeOptions.url;
  if (pattern !== undefined) return pattern;
  const raw = req.url.split('?')[0]!;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

const BEARER_RE = /^Bearer ([\x21-\x7e]{1,200})$/;

export function bearerSecret(req: FastifyRequest): string {
  const header = req.headers.authorization;
  if (header === undefined || header === '')
    throw errors.unauthorized('missing_api_key', 'Send your API key as Authorization: Bearer sk_live_…');
  const m = typeof header === 'string' ? BEARER_RE.exec(header) : null;
  if (!m) throw errors.unauthorized('malformed_api_key', 'The Authorization header must be: Bearer sk_live_…');
  return m[1]!;
}

export default fp(async function authPlugin(
  app: FastifyInstance,
  opts: { apiKeys: ApiKeysService; rateLimiter: RateLimiter; limit: RateLimit },
) {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (req, reply) => {
    if (!needsApiKey(authPath(req))) return;
    // Thrown errors go to the one error handler (401 codes, or a 500 if the database is down).
    req.auth = await opts.apiKeys.authenticate(bearerSecret(req));
    const r = await opts.rateLimiter.take(`key:${req.auth.apiKeyId}`, opts.limit);
    reply.header('RateLimit-Limit', String(opts.limit.burst));
    reply.header('RateLimit-Remaining', String(r.remaining));
    reply.header('RateLimit-Reset', String(r.resetSeconds));
    if (!r.allowed) {
      throw new AppError('rate_limited', 'rate_limited', `Too many requests for this API key. Retry after ${r.retryAfterSeconds} s.`, {
        retryAfterSeconds: r.retryAfterSeconds,
      });
    }
  });
});
