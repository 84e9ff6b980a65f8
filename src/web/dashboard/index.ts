import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyError } from 'fastify';
import { rateLimiterFor } from '../../lib/rate-limiter.ts';
import type { RouteModule } from '../../http/route-module.ts';
import { isCrossSite } from '../shared/csrf.ts';
import { usePerIpRateLimit } from '../shared/rate-limit.ts';
import { ASSET_FILES } from './assets.ts';
import { csrfMatches } from '../../modules/dashboard-auth/index.ts';
import { modeOf } from '../../modules/accounts/index.ts';
import { allowed, forbidden } from '../../modules/members/index.ts';
import { CsrfError, renderError, renderRateLimited } from './http/error-pages.ts';
import { createOneTimeFlash } from './http/flash.ts';
import { asForm } from './http/form.ts';
import { actionOf } from './http/route-actions.ts';
import { applySecurityHeaders } from './http/security-headers.ts';
import { clearSessionCookie, cookieSettings, resolveLang } from './http/state.ts';
import { messagesFor } from './i18n/index.ts';
import { apiKeysRoutes } from './pages/api-keys.routes.ts';
import { authRoutes } from './pages/auth.routes.ts';
import { documentsRoutes } from './pages/documents.routes.ts';
import { mailboxRoutes } from './pages/mailbox.routes.ts';
import { modeRoutes } from './pages/mode.routes.ts';
import { invitationRoutes, membersRoutes } from './pages/members.routes.ts';
import { overviewRoutes } from './pages/overview.routes.ts';
import { tenantsRoutes } from './pages/tenants.routes.ts';
import { tenantActionsRoutes } from './pages/tenant-actions.routes.ts';
import { documentActionsRoutes } from './pages/document-actions.routes.ts';
import { certificationRoutes } from './pages/certification.routes.ts';
import { webhookLogsRoutes } from './pages/webhook-logs.routes.ts';
import { webhooksRoutes } from './pages/webhooks.routes.ts';
import { auditRoutes } from './pages/audit.routes.ts';
import type { DashboardRoutes } from './pages/types.ts';

/**
 * The account holder's dashboard at {APP_URL}/ (issue 7): server-rendered pages over the same
 * services as the API. Its routes live at the root (/, /login, /tenants, /webhooks, /logs/webhooks,
 * /mailbox, /settings/api-keys, /assets/dashboard/…) and so never collide with /api/v1, /docs, /activate/…
 * or /dte/…; they are hidden from the OpenAPI document.
 *
 * Every route here, in order:
 * 1. security headers (CSP without inline script, no framing, no-referrer, no-store);
 * 2. the session from the cookie, and the language; pages that need an account redirect to /login;
 *    then the scope of the session's mode (live, or the account's test twin) is resolved once, and
 *    the member's role must allow the route's action in that mode (http/route-actions.ts, the
 *    members module's policy), or the page is a 403 naming the role needed — before any body is parsed;
 * 3. on POST: refused if the browser says it comes from another site, and the form's CSRF token
 *    must be the session's (403 otherwise), before any handler runs;
 * 4. errors become HTML pages with the API's status codes (another account's id → 404).
 * The pre-login pages also have the hosted pages' per-IP rate limit (they create sessions).
 */
const PAGES: DashboardRoutes[] = [
  overviewRoutes,
  tenantsRoutes,
  documentsRoutes,
  mailboxRoutes,
  apiKeysRoutes,
  webhooksRoutes,
  webhookLogsRoutes,
  // Teams (issue 29): members, roles, invitations.
  membersRoutes,
  auditRoutes,
  // The actions of issue 18: folios, credentials, sending, credit notes, CSV export.
  tenantActionsRoutes,
  documentActionsRoutes,
  // Test mode (issue 29): the session's switch between live and test data.
  modeRoutes,
  // Certification (issue 28): the SII's stages for a company, with the certification API's actions.
  certificationRoutes,
];

const dashboard: RouteModule = async (app, { ctx }) => {
  if (!app.hasRequestDecorator('cookies')) await app.register(cookie);
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  app.decorateRequest('dashboard', null);
  const cookies = cookieSettings(ctx.config.appUrl);
  const appOrigin = new URL(ctx.config.appUrl).origin;
  const auth = ctx.services.dashboardAuth;
  const flash = createOneTimeFlash({ clock: ctx.clock });

  // Pages are not API operations: keep them out of the OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...(route.schema ?? {}), hide: true } as typeof route.schema;
    // Every route is public or names its action in the policy: none is left unchecked.
    const config = (route.config ?? {}) as { dashboardPublic?: boolean; dashboardAction?: string };
    if (config.dashboardPublic) return;
    for (const method of [route.method].flat()) {
      const action = actionOf(method, route.url);
      if (!action) throw new Error(`dashboard route ${method} ${route.url} has no action in http/route-actions.ts`);
      route.config = { ...config, dashboardAction: action } as typeof route.config;
    }
  });

  app.addHook('onRequest', async (req, reply) => {
    const config = req.routeOptions.config;
    applySecurityHeaders(reply, { cacheable: config.dashboardAsset === true });
    if (config.dashboardAsset) return;
    const lang = resolveLang(req, reply, cookies);
    const token = req.cookies[cookies.sessionCookie];
    const session = await auth.resolve(token);
    req.dashboard = { lang, t: messagesFor(lang), session, token: session ? token : undefined };
    if (token && !session) clearSessionCookie(reply, cookies);
    if (config.dashboardPublic) return;
    if (session?.account && session.member) {
      const scope = await ctx.services.accounts.scopeFor(session.account.id, session.mode);
      req.dashboard.scope = scope;
      const mode = modeOf(scope.livemode);
      const action = config.dashboardAction;
      if (!action || !allowed(session.member.role, action, mode)) throw forbidden(action ?? 'members.manage', session.member.role, mode);
      return;
    }
    const query = new URLSearchParams();
    if (req.method === 'GET' && req.url !== '/') query.set('next', req.url);
    if (token) query.set('expired', '1');
    const qs = query.toString();
    return reply.redirect(qs ? `/login?${qs}` : '/login', 303);
  });

  app.addHook('preHandler', async (req) => {
    if (req.method !== 'POST') return;
    const session = req.dashboard?.session;
    if (isCrossSite(req, appOrigin) || !session || !csrfMatches(session, asForm(req.body)._csrf)) throw new CsrfError();
  });

  app.setErrorHandler((err: FastifyError, req, reply) => renderError(err, req, reply));

  for (const asset of ASSET_FILES)
    app.get(asset.url, { config: { dashboardPublic: true, dashboardAsset: true } }, async (_req, reply) =>
      reply.type(asset.contentType).send(asset.body),
    );

  // The pre-login pages, in a child scope with the per-IP limit of the hosted pages.
  await app.register(async (pub) => {
    usePerIpRateLimit(pub, {
      limiter: rateLimiterFor(ctx.db),
      limit: ctx.config.pageRateLimit,
      bucket: 'dashboard-public',
      onLimited: (req, reply, retryAfter) => renderRateLimited(req, reply, retryAfter),
    });
    authRoutes(pub, { ctx, cookies, flash });
    invitationRoutes(pub, { ctx, cookies, flash });
  });
  for (const pages of PAGES) pages(app, { ctx, cookies, flash });
};

export default dashboard;
