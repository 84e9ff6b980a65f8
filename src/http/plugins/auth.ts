import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError, errors } from '../../errors.ts';
import type { RateLimit, RateLimiter } from '../../lib/rate-limiter.ts';
import type { ApiKeysService } from '../../modules/api-keys/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Set on every API route by the auth hook; routes read the account from here only. `accountId`
     * is the scope of the key's mode (the account's id for a live key, its test twin's for a test
     * key: src/modules/accounts/modes.ts), so everything a route reads or makes stays in that mode.
     * `prefix` names the key in the audit log (never the key).
     */
    auth: { accountId: string; apiKeyId: string; livemode: boolean; prefix: string } | null;
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

/**
 * Three limits (docs/design.md §2):
 * - per API key (RATE_LIMIT_*), and per account across all its keys (ACCOUNT_RATE_LIMIT_*), taken
 *   together in one statement: creating more keys does not buy more capacity;
 * - per client address on failed authentication (AUTH_FAILURE_RATE_LIMIT_*): each 401 takes a
 *   token; when none is left the address gets 429 without its key being looked up, until the
 *   bucket refills. Each process remembers the refusal locally so a flood costs no database work.
 */
export default fp(async function authPlugin(
  app: FastifyInstance,
  opts: {
    apiKeys: Pick<ApiKeysService, 'authenticate'>;
    rateLimiter: RateLimiter;
    limit: RateLimit;
    accountLimit: RateLimit;
    authFailureLimit: RateLimit;
  },
) {
  const blockedUntil = new Map<string, number>();
  const tooManyFailures = (retryAfterSeconds: number) =>
    new AppError(
      'rate_limited',
      'auth_rate_limited',
      `Too many requests with a missing or invalid API key from your address. Check the key; retry after ${retryAfterSeconds} s.`,
      { retryAfterSeconds },
    );

  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (req, reply) => {
    if (!needsApiKey(authPath(req))) return;
    const until = blockedUntil.get(req.ip);
    if (until !== undefined) {
      if (until > Date.now()) throw tooManyFailures(Math.max(1, Math.ceil((until - Date.now()) / 1000)));
      blockedUntil.delete(req.ip);
    }
    try {
      // Thrown errors go to the one error handler (401 codes, or a 503 if the database is down).
      req.auth = await opts.apiKeys.authenticate(bearerSecret(req));
    } catch (e) {
      if (!(e instanceof AppError) || e.kind !== 'unauthorized') throw e;
      const r = await opts.rateLimiter.take(`authfail:${req.ip}`, opts.authFailureLimit);
      if (r.allowed) throw e;
      blockedUntil.set(req.ip, Date.now() + r.retryAfterSeconds * 1000);
      if (blockedUntil.size > 10_000) blockedUntil.delete(blockedUntil.keys().next().value!);
      throw tooManyFailures(r.retryAfterSeconds);
    }
    const [key, account] = await opts.rateLimiter.takeAll([
      { key: `key:${req.auth.apiKeyId}`, limit: opts.limit },
      { key: `account:${req.auth.accountId}`, limit: opts.accountLimit },
    ]);
    // The headers describe the key's own bucket, unless the account's is the one that ran out.
    const shown = !account!.allowed && key!.allowed ? { r: account!, limit: opts.accountLimit } : { r: key!, limit: opts.limit };
    reply.header('RateLimit-Limit', String(shown.limit.burst));
    reply.header('RateLimit-Remaining', String(shown.r.remaining));
    reply.header('RateLimit-Reset', String(shown.r.resetSeconds));
    if (!key!.allowed)
      throw new AppError('rate_limited', 'rate_limited', `Too many requests for this API key. Retry after ${key!.retryAfterSeconds} s.`, {
        retryAfterSeconds: key!.retryAfterSeconds,
      });
    if (!account!.allowed)
      throw new AppError(
        'rate_limited',
        'rate_limited',
        `Too many requests for this account (all its API keys together). Retry after ${account!.retryAfterSeconds} s.`,
        { retryAfterSeconds: account!.retryAfterSeconds },
      );
  });
});
