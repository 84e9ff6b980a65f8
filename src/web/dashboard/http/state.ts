import type { FastifyReply, FastifyRequest } from 'fastify';
import { modeOf, type Mode, type Scope } from '../../../modules/accounts/index.ts';
import { requestOrigin } from '../../../http/audit-actor.ts';
import type { DashboardAuthService, DashboardSession } from '../../../modules/dashboard-auth/index.ts';
import type { Actor, DashboardAction } from '../../../modules/members/index.ts';
import type { AuditActor } from '../../../modules/audit/index.ts';
import { LANG_COOKIE, pickLang, type Lang, type Messages } from '../i18n/index.ts';
import type { PageContext } from '../ui/layout.ts';

/** Per-request state of a dashboard page: its language and, when there is one, its session. */
export interface DashboardState {
  lang: Lang;
  t: Messages;
  session: DashboardSession | undefined;
  /** The raw session token from the cookie (never logged, never rendered). */
  token: string | undefined;
  /**
   * The scope the signed-in session looks at: its account in the session's mode (the live account,
   * or its test twin), resolved once per request (docs/dashboard.md "Test mode").
   */
  scope?: Scope | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    dashboard: DashboardState | null;
  }
  interface FastifyContextConfig {
    /** Dashboard routes reachable without a logged-in session (login, sign-up, assets). */
    dashboardPublic?: boolean;
    /** Static files: no session lookup, cacheable. */
    dashboardAsset?: boolean;
    /** The role-policy action of the route, set from http/route-actions.ts when it is registered. */
    dashboardAction?: DashboardAction;
  }
}

export interface CookieSettings {
  secure: boolean;
  sessionCookie: string;
}

/** `__Host-` cookies are pinned to this host and path `/`, and need Secure: used on https only. */
export const cookieSettings = (appUrl: string): CookieSettings => {
  const secure = appUrl.startsWith('https:');
  return { secure, sessionCookie: secure ? '__Host-dte_session' : 'dte_session' };
};

/** The cookie lives as long as the session can (the server enforces the idle limit too). */
export function setSessionCookie(reply: FastifyReply, c: CookieSettings, token: string, session: { expiresAt: Date }, now: Date): void {
  const maxAge = Math.max(1, Math.floor((session.expiresAt.getTime() - now.getTime()) / 1000));
  reply.setCookie(c.sessionCookie, token, { path: '/', httpOnly: true, sameSite: 'lax', secure: c.secure, maxAge });
}

/**
 * Makes sure the form about to be shown has a session (and so a CSRF token) behind it: pages reached
 * without an account (login, sign-up, an invitation) start a pre-login session, so a form posted
 * from another site is refused as on every other page (login CSRF).
 */
export function preLoginSession(
  auth: Pick<DashboardAuthService, 'startAnonymous'>,
  cookies: CookieSettings,
  now: () => Date,
): (req: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return async (req, reply) => {
    const s = state(req);
    if (s.session) return;
    const started = await auth.startAnonymous();
    s.session = started.session;
    s.token = started.token;
    setSessionCookie(reply, cookies, started.token, started.session, now());
  };
}

export function clearSessionCookie(reply: FastifyReply, c: CookieSettings): void {
  reply.clearCookie(c.sessionCookie, { path: '/', httpOnly: true, sameSite: 'lax', secure: c.secure });
}

export function resolveLang(req: FastifyRequest, reply: FastifyReply, c: CookieSettings): Lang {
  const q = (req.query as Record<string, unknown> | undefined)?.lang;
  const { lang, remember } = pickLang(q, req.cookies[LANG_COOKIE]);
  if (remember) reply.setCookie(LANG_COOKIE, lang, { path: '/', sameSite: 'lax', secure: c.secure, maxAge: 365 * 86_400, httpOnly: true });
  return lang;
}

export const state = (req: FastifyRequest): DashboardState => {
  if (!req.dashboard) throw new Error('dashboard state missing: route registered outside the dashboard plugin');
  return req.dashboard;
};

export function pageContext(req: FastifyRequest): PageContext {
  const s = state(req);
  return {
    t: s.t,
    lang: s.lang,
    url: req.url,
    csrf: s.session?.csrfToken ?? '',
    account: s.session?.account ?? null,
    role: s.session?.member?.role ?? null,
    mode: sessionMode(req),
  };
}

/** The mode the page shows: the session's, live before login. */
export const sessionMode = (req: FastifyRequest): Mode => modeOf(state(req).scope?.livemode ?? true);

/** The member acting, as the members service takes it; routes that call it are behind the login hook. */
export const actor = (req: FastifyRequest): Actor => {
  const s = state(req).session;
  if (!s?.account || !s.member) throw new Error('not signed in');
  return { accountId: s.account.id, memberId: s.member.id, email: s.member.email, role: s.member.role };
};

/**
 * The member acting, as the audit log records it (docs/audit.md): by id and e-mail, with the
 * address and user agent of the request, in the session's mode.
 */
export const auditActor = (req: FastifyRequest): AuditActor => {
  const a = actor(req);
  return { type: 'member', id: a.memberId, label: a.email, ...requestOrigin(req), livemode: sessionMode(req) === 'live' };
};

/**
 * The scope id of the session's mode (the live account's id, or its test twin's): what tenants,
 * documents, keys, webhooks, the mailbox and the logs are stored by. Members and the account's
 * settings use `actor(req).accountId`, the live account, whatever the mode.
 */
export const accountId = (req: FastifyRequest): string => {
  const id = state(req).scope?.id;
  if (!id) throw new Error('not signed in');
  return id;
};

export const t = (req: FastifyRequest): Messages => state(req).t;

/** The signed-in session's key for one-time flashes (its token's hash; the token itself stays in the cookie). */
export const flashKey = (req: FastifyRequest): string => {
  const key = state(req).session?.tokenHash;
  if (!key) throw new Error('not signed in');
  return key;
};

export function sendPage(reply: FastifyReply, body: string, status = 200): FastifyReply {
  return reply.status(status).type('text/html; charset=utf-8').send(body);
}

/** 303 after a POST, so reloading the next page never re-submits the form. */
export const seeOther = (reply: FastifyReply, location: string): FastifyReply => reply.redirect(location, 303);

/** Only a path on this site: never `//host`, `/\host` or an absolute URL (open redirect). */
export function safeNext(next: unknown): string | undefined {
  if (typeof next !== 'string' || next.length > 512) return undefined;
  if (!/^\/(?![/\\])[\x21-\x7e]*$/.test(next)) return undefined;
  if (next.startsWith('/login') || next.startsWith('/logout') || next.startsWith('/signup')) return undefined;
  return next;
}
