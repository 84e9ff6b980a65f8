import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance, type RouteHandlerMethod } from 'fastify';
import { onFirstUse } from '../lib/lazy.ts';

/**
 * The OpenAPI 3.1 document (generated from the route schemas, finished by src/http/openapi.ts) at
 * /api/v1/openapi.json, and the API reference at /docs, rendered by Scalar.
 *
 * Offline by design: the Scalar bundle ships inside the npm package and is served from
 * /docs/js/scalar.js; default fonts (a CDN) and the request proxy (a third-party host) are off, so
 * "Test request" calls this server directly. /docs redirects to /docs/ so the page's relative
 * asset address resolves.
 *
 * CSP for the reference only: its one inline script (the renderer's configuration) runs with a
 * per-request nonce (so does the one-line setting before the bundle); scripts otherwise come from this origin; styles allow inline because the
 * renderer injects a stylesheet and sets style attributes; fetches (the document and "Test request")
 * go to this origin only. Everything else keeps `default-src 'none'`.
 *
 * Loaded on first use (docs/performance.md, "Loaded on first use"): Scalar's plugin module is
 * ~4 MiB of source holding the ~4 MiB browser bundle as one string, ~16 MiB of a server's memory
 * (V8 keeps both as two-byte strings) that no API request needs. So this app registers its own
 * routes for the plugin's paths; the first request to one of them imports the plugin and registers
 * it, with the configuration below, on a private Fastify instance that never listens, only to
 * collect the handlers it declares; each request is then handed to the plugin's handler with this
 * app's own request and reply, as when the plugin was registered here. The output is the same,
 * byte for byte, and the CSP hook below still finishes it. (Forwarding each request to the private
 * instance with `inject()` was tried first: it copies the 4 MiB bundle twice per request.)
 */
const NONCE_PLACEHOLDER = 'DOCS_CSP_NONCE';

/** The service's icon (src/web/shared/assets.ts), as on the hosted pages. */
const FAVICON_LINK = '<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">';

/**
 * Runs before the bundle: its zod would otherwise probe `Function('')` to decide whether to compile
 * validators, a probe the CSP (no 'unsafe-eval') reports as a violation; jitless skips the probe.
 */
const BEFORE_BUNDLE = 'globalThis.__zod_globalConfig = { jitless: true };';

export const docsCsp = (nonce: string): string =>
  [
    "default-src 'none'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

/**
 * The paths Scalar's plugin serves with the configuration below: the redirect, the page, the
 * bundle (given a `url`, it serves no copy of the OpenAPI document). Routed here one by one, so
 * every other path under /docs keeps this app's 404, logging and metrics label; startReference
 * refuses a plugin whose paths differ (a new version), which the docs tests would show at once.
 */
const DOCS_PATHS = ['/docs', '/docs/', '/docs/js/scalar.js'];

interface Reference {
  instance: FastifyInstance;
  handlers: Map<string, RouteHandlerMethod>;
}

/** Scalar's plugin registered on a Fastify instance of its own: its GET handlers by path. */
async function startReference(): Promise<Reference> {
  const { default: scalarReference } = await import('@scalar/fastify-api-reference');
  const instance = Fastify({ logger: false });
  try {
    const handlers = new Map<string, RouteHandlerMethod>();
    // The plugin's routes carry no hooks of their own (it adds them only from a `hooks` option).
    instance.addHook('onRoute', (route) => {
      if (route.method === 'GET') handlers.set(route.url, route.handler);
    });
    await instance.register(scalarReference, {
      routePrefix: '/docs',
      logLevel: 'warn',
      configuration: {
        url: '/api/v1/openapi.json',
        cdn: '/docs/js/scalar.js',
        nonce: NONCE_PLACEHOLDER,
        pageTitle: 'DTE issuing service — API reference',
        withDefaultFonts: false,
        telemetry: false,
        hideClientButton: false,
        showDeveloperTools: 'never',
        documentDownloadType: 'json',
        defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
        persistAuth: false,
        authentication: { preferredSecurityScheme: 'bearerAuth' },
        theme: 'default',
        // Scalar's hosted services (AI agent, MCP generator) are not for an offline, self-hosted API.
        mcp: { disabled: true },
        ...({ agent: { disabled: true } } as object),
      },
    });
    await instance.ready();
    const served = [...handlers.keys()].sort();
    if (served.join() !== [...DOCS_PATHS].sort().join())
      throw new Error(`Scalar's plugin serves ${served.join(', ')}; src/http/docs.ts routes ${DOCS_PATHS.join(', ')}`);
    return { instance, handlers };
  } catch (e) {
    await instance.close().catch(() => {});
    throw e;
  }
}

export default async function docsRoutes(app: FastifyInstance) {
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  let started: Reference | undefined;
  const reference = onFirstUse(async () => (started = await startReference()));
  app.addHook('onClose', async () => {
    await started?.instance.close();
  });

  await app.register(async (scope) => {
    scope.addHook('onSend', async (_req, reply, payload) => {
      reply.header('X-Content-Type-Options', 'nosniff');
      reply.header('Referrer-Policy', 'no-referrer');
      if (typeof payload !== 'string' || !String(reply.getHeader('content-type')).startsWith('text/html')) return payload;
      const nonce = randomBytes(16).toString('base64');
      reply.header('Content-Security-Policy', docsCsp(nonce));
      reply.header('Cache-Control', 'no-store');
      return payload
        .replaceAll(NONCE_PLACEHOLDER, nonce)
        .replace('</head>', `${FAVICON_LINK}<script nonce="${nonce}">${BEFORE_BUNDLE}</script></head>`);
    });
    for (const url of DOCS_PATHS)
      scope.get(url, { schema: { hide: true }, logLevel: 'warn' }, async function (req, reply) {
        const { instance, handlers } = await reference();
        return handlers.get(url)!.call(instance, req, reply);
      });
  });
}
