import type { FastifyReply } from 'fastify';
import { PAGE_CSP, PAGE_SECURITY_HEADERS } from '../../shared/headers.ts';

/**
 * The hosted pages' security headers (src/web/shared/headers.ts), with one addition: the
 * dashboard may load script files from its own origin (the copy buttons). Inline script stays
 * forbidden, as do framing, foreign form targets and the Referer. Pages are no-store; only the
 * content-hashed static files may be cached.
 */
export const DASHBOARD_CSP = `${PAGE_CSP}; script-src 'self'; connect-src 'none'`;

export function applySecurityHeaders(reply: FastifyReply, opts: { cacheable?: boolean } = {}): void {
  for (const [k, v] of Object.entries(PAGE_SECURITY_HEADERS)) reply.header(k, v);
  reply.header('Content-Security-Policy', DASHBOARD_CSP);
  if (opts.cacheable) reply.header('Cache-Control', 'public, max-age=31536000, immutable');
}
