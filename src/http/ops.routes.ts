import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { sendError } from './plugins/errors.ts';

/**
 * Operations endpoints (docs/operations.md), outside /api/v1: no API key, no rate limit, not in the
 * OpenAPI document.
 * - GET /healthz: the process is up and serving; never touches the database.
 * - GET /readyz: both databases answer and have every migration (src/ops/readiness.ts); else 503
 *   with Retry-After in the error envelope.
 * - GET /metrics: Prometheus text (src/ops/metrics.ts) when METRICS_ENABLED; with METRICS_TOKEN
 *   only for `Authorization: Bearer <token>`.
 * Probes hit these every few seconds, so their requests are logged at warn and above only, and a
 * not-ready answer is an expected state, not an error.
 * It also times every request of the app (a root hook, hence fastify-plugin), labelled by the
 * matched route pattern, never the URL.
 */
const digest = (s: string) => crypto.createHash('sha256').update(s).digest();

export default fp(async function opsRoutes(app: FastifyInstance, opts: { ctx: AppContext }) {
  const { metrics, readiness, config } = opts.ctx;

  // Callback style: nothing to wait for, so no promise per request (see app.ts).
  app.addHook('onResponse', (req, reply, done) => {
    metrics.observeHttp(req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  const quiet = { logLevel: 'warn' as const, schema: { hide: true } };

  app.get('/healthz', quiet, async (_req, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));

  app.get('/readyz', quiet, async (req, reply) => {
    reply.header('cache-control', 'no-store');
    const problem = await readiness.check();
    if (problem) {
      req.log.debug({ code: problem.code }, 'not ready');
      return sendError(req, reply, problem);
    }
    return reply.send({ status: 'ready' });
  });

  if (!config.metrics.enabled) return;
  const expected = config.metrics.token === undefined ? undefined : digest(`Bearer ${config.metrics.token}`);
  app.get('/metrics', quiet, async (req, reply) => {
    if (expected) {
      const given = req.headers.authorization;
      // Compared as digests: constant time whatever the lengths.
      if (typeof given !== 'string' || !crypto.timingSafeEqual(digest(given), expected))
        return sendError(
          req,
          reply.header('www-authenticate', 'Bearer realm="metrics"'),
          new AppError('unauthorized', 'metrics_token_required', 'Send the METRICS_TOKEN as Authorization: Bearer <token>.'),
        );
    }
    const { contentType, body } = await metrics.scrape();
    return reply.header('cache-control', 'no-store').type(contentType).send(body);
  });
});
