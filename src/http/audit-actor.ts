import type { FastifyRequest } from 'fastify';
import type { AuditActor } from '../modules/audit/index.ts';

/**
 * The API caller as the audit log records it (docs/audit.md): the key by its id and display
 * prefix, never the key; the client's address and user agent; the key's mode.
 */
export function apiActor(req: FastifyRequest): AuditActor {
  if (!req.auth) throw new Error(`apiActor called on a route without an API key (${req.routeOptions.url})`);
  return { type: 'api_key', id: req.auth.apiKeyId, label: req.auth.prefix, ...requestOrigin(req), livemode: req.auth.livemode };
}

/** Where a request came from, as every audit actor records it: its address and user agent (truncated). */
export function requestOrigin(req: FastifyRequest): Pick<AuditActor, 'ip' | 'userAgent'> {
  const ua = req.headers['user-agent'];
  return { ip: req.ip, userAgent: typeof ua === 'string' ? ua.slice(0, 256) : null };
}
