import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * CSRF protection for the hosted pages' forms: a random cookie (HttpOnly, SameSite=Strict) and,
 * in each form, HMAC(key, cookie | binding) where the binding names what the form acts on (for
 * the activation page, the link). A forged cross-site post has neither the cookie nor a token
 * that matches it; a token from one link does not work on another. The key is derived from
 * server key material so every process behind a load balancer agrees.
 * Reads the cookie header directly so it works in any scope without a cookie plugin.
 */
export interface CsrfOptions {
  key: Buffer;
  /** Set the Secure attribute (pages served over https). */
  secure: boolean;
  cookieName?: string;
}

const readCookie = (req: FastifyRequest, name: string): string | undefined => {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
};

export function createCsrf(opts: CsrfOptions) {
  const name = opts.cookieName ?? (opts.secure ? '__Host-csrf' : 'csrf');
  const sign = (cookie: string, binding: string) =>
    crypto.createHmac('sha256', opts.key).update(`${cookie}|${binding}`).digest('base64url');
  const valid = (v: string | undefined): v is string => !!v && /^[A-Za-z0-9_-]{43}$/.test(v);
  return {
    /** The form token for this binding; sets the cookie when the browser has none. */
    issue(req: FastifyRequest, reply: FastifyReply, binding: string): string {
      let cookie = readCookie(req, name);
      if (!valid(cookie)) {
        cookie = crypto.randomBytes(32).toString('base64url');
        reply.header('Set-Cookie', `${name}=${cookie}; Path=/; HttpOnly; SameSite=Strict${opts.secure ? '; Secure' : ''}`);
      }
      return sign(cookie, binding);
    },
    verify(req: FastifyRequest, binding: string, submitted: unknown): boolean {
      const cookie = readCookie(req, name);
      if (!valid(cookie) || typeof submitted !== 'string') return false;
      const expected = Buffer.from(sign(cookie, binding));
      const given = Buffer.from(submitted);
      return given.length === expected.length && crypto.timingSafeEqual(given, expected);
    },
  };
}

export type Csrf = ReturnType<typeof createCsrf>;

/** A post from another site: refused before the form is even read. */
export function isCrossSite(req: FastifyRequest, appOrigin: string): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return true;
  const origin = req.headers.origin;
  return typeof origin === 'string' && origin !== 'null' && origin !== appOrigin;
}
