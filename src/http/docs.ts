import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import scalarReference from '@scalar/fastify-api-reference';

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

export default async function docsRoutes(app: FastifyInstance) {
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());

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
    await scope.register(scalarReference, {
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
  });
}
