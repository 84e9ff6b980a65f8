import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimit, RateLimiter } from '../../lib/rate-limiter.ts';

/**
 * Per-IP token buckets for the hosted pages (stricter than the per-key API limits). Pass
 * `rateLimiterFor(db)`: shared by all processes through PostgreSQL, in memory with the embedded
 * single-process database. `onLimited` renders the page's own "too many requests".
 */
export function usePerIpRateLimit(
  scope: FastifyInstance,
  opts: {
    limiter: RateLimiter;
    limit: RateLimit;
    bucket: string;
    onLimited: (req: FastifyRequest, reply: FastifyReply, retryAfterSeconds: number) => FastifyReply;
  },
): void {
  scope.addHook('onRequest', async (req, reply) => {
    const r = await opts.limiter.take(`${opts.bucket}:${req.ip}`, opts.limit);
    if (!r.allowed) {
      reply.header('Retry-After', String(r.retryAfterSeconds));
      return opts.onLimited(req, reply, r.retryAfterSeconds);
    }
  });
}
