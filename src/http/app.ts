import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { AppContext } from '../context.ts';
import { routeModules } from './routes.ts';
import { webModules } from '../web/index.ts';
import { loggerOptions, OneLineLogController } from './log.ts';
import authPlugin from './plugins/auth.ts';
import errorsPlugin, { frameworkError, sendError } from './plugins/errors.ts';
import idempotencyPlugin from './plugins/idempotency.ts';
import livemodePlugin from './plugins/livemode.ts';
import tenantScopePlugin from './plugins/tenant-scope.ts';
import { genRequestId } from './plugins/request-id.ts';
import { ErrorBody } from './schemas.ts';
import { addSharedSchema, validatorCompiler } from './validation.ts';
import docsRoutes from './docs.ts';
import { transformOpenApi, type OpenApiDocument } from './openapi.ts';
import opsRoutes from './ops.routes.ts';
import { refuseUnstorable } from './text-guard.ts';
import { rateLimiterFor } from '../lib/rate-limiter.ts';
import { cachedSerializerFactory } from './serializers.ts';

export interface BuildAppOptions {
  /** Pass false in tests to keep output quiet; a pino logger or options otherwise. */
  logger?: boolean | object;
}

/**
 * The HTTP app: cross-cutting plugins (errors, auth, rate limits, idempotency, OpenAPI), then one
 * route module per resource group (src/modules/index.ts). Routes stay thin; rules live in services.
 */
export async function buildApp(ctx: AppContext, opts: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? loggerOptions(ctx.config.logLevel),
    genReqId: genRequestId,
    requestIdHeader: false,
    logController: new OneLineLogController(),
    bodyLimit: ctx.config.bodyLimitBytes,
    trustProxy: ctx.config.env === 'production',
    routerOptions: { maxParamLength: 500 },
    // Response serializers compiled once per process, not once per app (serializers.ts).
    schemaController: { compilersFactory: { buildSerializer: cachedSerializerFactory } },
    // Refused by the router before any route or hook runs: still the error envelope.
    frameworkErrors: (err, req, reply) => {
      reply.header('Request-Id', req.id);
      return sendError(req, reply, frameworkError(err));
    },
    // Requests the HTTP parser itself refuses (NUL or control bytes in headers, broken framing)
    // never reach a route; they still get the error envelope, as a 400.
    clientErrorHandler: (err, socket) => {
      if (!socket.writable) return;
      const body = JSON.stringify({
        error: {
          code: 'malformed_request',
          message: 'The HTTP request is malformed (bad header bytes or framing).',
          requestId: genRequestId({ headers: {} }),
        },
      });
      socket.end(
        `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      void err;
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  addSharedSchema(ErrorBody);
  app.addSchema(ErrorBody);

  // Hooks that never wait are written in Fastify's callback style: an async hook costs every
  // request a promise and its microtask hops (docs/performance.md "Where a cached read's CPU went").
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('Request-Id', req.id);
    done();
  });
  // A POST without a body is an empty object, so validation names the missing fields.
  app.addHook('preValidation', (req, _reply, done) => {
    if (req.method === 'POST' && req.body === undefined) req.body = {};
    // What no field may hold (NUL, lone surrogates, U+FFFE/U+FFFF): refused here for every route,
    // pages and forms included (src/http/text-guard.ts).
    try {
      refuseUnstorable(req.params, 'params');
      refuseUnstorable(req.query, 'query');
      refuseUnstorable(req.body, 'body');
    } catch (e) {
      return done(e as Error);
    }
    done();
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'DTE issuing service',
        version: '1.0.0',
        description:
          'Issue Chilean electronic tax documents (DTE) on behalf of the companies you serve. ' +
          'Authenticate with `Authorization: Bearer sk_live_…`. Errors: `{error: {code, message, param?, requestId}}`.',
      },
      servers: [{ url: ctx.config.baseUrl }],
    },
    // Descriptions, error codes, bearerAuth, tags and code samples: one step (src/http/openapi.ts).
    transformObject: (d) => transformOpenApi((d as { openapiObject: OpenApiDocument }).openapiObject) as never,
    refResolver: { buildLocalReference: (json, _base, _frag, i) => (json.$id as string) || `def-${i}` },
  });
  await app.register(errorsPlugin);
  // Before the routes: its request timing hook must see every one of them.
  await app.register(opsRoutes, { ctx });
  await app.register(authPlugin, {
    apiKeys: ctx.services.apiKeys,
    rateLimiter: rateLimiterFor(ctx.db),
    limit: ctx.config.rateLimit,
    accountLimit: ctx.config.accountRateLimit,
    authFailureLimit: ctx.config.authFailureRateLimit,
  });
  await app.register(idempotencyPlugin, {
    db: ctx.db,
    clock: ctx.clock,
    cipher: ctx.secrets.dataCipher,
  });
  await app.register(tenantScopePlugin, { tenants: ctx.services.tenants });
  // `livemode` on every returned object, from the request's key (docs/design.md "Test mode").
  await app.register(livemodePlugin);

  for (const mod of routeModules) await app.register(mod, { ctx });
  for (const mod of webModules) await app.register(mod, { ctx });
  await app.register(docsRoutes);
  return app;
}
