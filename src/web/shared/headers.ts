import type { FastifyInstance } from 'fastify';

/**
 * Security headers of every hosted page: no script at all, styles and images from this origin
 * only, forms post only here, never framed, no Referer (page URLs carry tokens), never cached.
 */
export const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': PAGE_CSP,
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
});

/** Adds the headers to every response of the calling scope (pages, their errors, their 404s). */
export function usePageSecurityHeaders(scope: FastifyInstance, extra: Record<string, string> = {}): void {
  scope.addHook('onSend', async (_req, reply, payload) => {
    for (const [k, v] of Object.entries({ ...PAGE_SECURITY_HEADERS, ...extra })) reply.header(k, v);
    return payload;
  });
}
