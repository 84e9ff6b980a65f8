import { statusOf } from '../../../http/plugins/errors.ts';
import { isAppError } from '../../../errors.ts';
import { normaliseAccountName, normaliseEmail } from '../../../modules/accounts/index.ts';
import { checkPassword } from '../../../modules/dashboard-auth/index.ts';
import { asForm, fieldChecks, text } from '../http/form.ts';
import {
  clearSessionCookie,
  flashKey,
  pageContext,
  preLoginSession,
  safeNext,
  seeOther,
  sendPage,
  setSessionCookie,
  state,
  t,
} from '../http/state.ts';
import { loginView, signupConfirmFailedView, signupConfirmView, signupSentView, signupView } from '../views/auth.view.ts';
import { errorText } from '../ui/components.ts';
import type { DashboardRoutes } from './types.ts';

/**
 * Sign-up, login and logout. The login and sign-up forms are reached without an account, but
 * still carry a CSRF token: a pre-login session is started for them (login CSRF would otherwise
 * let another site log a browser into the attacker's account).
 */
const SIGNUP_SENT = 'signup-sent';

export const authRoutes: DashboardRoutes = (app, { ctx, cookies, flash }) => {
  const auth = ctx.services.dashboardAuth;
  const signupEnabled = ctx.config.signupEnabled;

  const ensureSession = preLoginSession(auth, cookies, () => ctx.clock.now());

  app.get<{ Querystring: { next?: string; loggedOut?: string; expired?: string } }>(
    '/login',
    { config: { dashboardPublic: true } },
    async (req, reply) => {
      if (state(req).session?.account) return seeOther(reply, safeNext(req.query.next) ?? '/');
      await ensureSession(req, reply);
      const flash = req.query.loggedOut ? 'loggedOut' : req.query.expired ? 'sessionExpired' : undefined;
      return sendPage(reply, loginView(pageContext(req), { flash, next: safeNext(req.query.next), signupEnabled }));
    },
  );

  app.post('/login', { config: { dashboardPublic: true } }, async (req, reply) => {
    const body = asForm(req.body);
    const email = text(body, 'email', 320);
    const password = text(body, 'password', 1024);
    const next = safeNext(text(body, 'next', 512));
    try {
      const { token, session } = await auth.logIn({ email, password, ip: req.ip }, state(req).token);
      setSessionCookie(reply, cookies, token, session, ctx.clock.now());
      return seeOther(reply, next ?? '/');
    } catch (e) {
      if (!isAppError(e) || (e.code !== 'invalid_credentials' && e.code !== 'login_rate_limited')) throw e;
      if (e.retryAfterSeconds !== undefined) reply.header('Retry-After', String(e.retryAfterSeconds));
      return sendPage(
        reply,
        loginView(pageContext(req), {
          email,
          error: {
            message: e.code === 'login_rate_limited' ? t(req).errors.rateLimited(e.retryAfterSeconds ?? 60) : errorText(e, t(req)),
          },
          next,
          signupEnabled,
        }),
        statusOf(e),
      );
    }
  });

  app.get('/signup', { config: { dashboardPublic: true } }, async (req, reply) => {
    if (state(req).session?.account) return seeOther(reply, '/');
    if (signupEnabled) await ensureSession(req, reply);
    return sendPage(reply, signupView(pageContext(req), { enabled: signupEnabled }), signupEnabled ? 200 : 404);
  });

  // "Check your e-mail", once per sign-up, then the same page without the address.
  app.get('/signup/sent', { config: { dashboardPublic: true } }, async (req, reply) => {
    if (!signupEnabled || !auth.confirmsByEmail) return seeOther(reply, '/signup');
    const sent = state(req).session ? flash.take<{ email: string }>(flashKey(req), SIGNUP_SENT) : undefined;
    return sendPage(reply, signupSentView(pageContext(req), { email: sent?.email }));
  });

  app.post('/signup', { config: { dashboardPublic: true } }, async (req, reply) => {
    if (!signupEnabled) return sendPage(reply, signupView(pageContext(req), { enabled: false }), 404);
    const body = asForm(req.body);
    const name = text(body, 'name', 200);
    const email = text(body, 'email', 320);
    const password = text(body, 'password', 1024);
    try {
      if (auth.confirmsByEmail) {
        // The same page for a new and a registered address (docs/dashboard.md "Sign-up").
        const sent = await auth.requestSignUp({ name, email, password, ip: req.ip, lang: state(req).lang });
        // Redirect after POST: reloading the answer must not send another e-mail (which would
        // replace the pending sign-up and void the link just sent).
        flash.put(flashKey(req), SIGNUP_SENT, { email: sent.email });
        return seeOther(reply, '/signup/sent');
      }
      const { token, session } = await auth.signUp({ name, email, password, ip: req.ip }, state(req).token);
      setSessionCookie(reply, cookies, token, session, ctx.clock.now());
      return seeOther(reply, '/');
    } catch (e) {
      if (!isAppError(e) || statusOf(e) >= 500 || e.kind === 'not_found') throw e;
      if (e.retryAfterSeconds !== undefined) reply.header('Retry-After', String(e.retryAfterSeconds));
      // The service stops at the first bad field (after counting the attempt against the per-IP
      // limit); the page names every bad field at once, by the same rules.
      const { check, problems } = fieldChecks();
      if (e.kind === 'invalid_request') {
        check(() => normaliseAccountName(name));
        check(() => normaliseEmail(email));
        check(() => checkPassword(password));
      }
      const shown = problems.length > 0 ? problems : [e];
      return sendPage(
        reply,
        signupView(pageContext(req), {
          name,
          email,
          error: shown.map((p) => ({
            message: p.code === 'login_rate_limited' ? t(req).errors.rateLimited(p.retryAfterSeconds ?? 60) : errorText(p, t(req)),
            param: p.param,
          })),
          enabled: true,
        }),
        statusOf(e),
      );
    }
  });

  // The link of a sign-up confirmation e-mail (SMTP_URL set): creates the account, logs in, and
  // redirects so the token leaves the address bar. The token is redacted from request logs (?token=).
  // The e-mailed link only shows a button: the account is created by its POST (a mail scanner
  // that opens links must not use the token up, nor be logged in).
  app.get<{ Querystring: { token?: string } }>('/signup/confirm', { config: { dashboardPublic: true } }, async (req, reply) => {
    if (!signupEnabled) return sendPage(reply, signupView(pageContext(req), { enabled: false }), 404);
    const token = typeof req.query.token === 'string' ? req.query.token.slice(0, 128) : '';
    await ensureSession(req, reply);
    return sendPage(reply, signupConfirmView(pageContext(req), { token }));
  });

  app.post('/signup/confirm', { config: { dashboardPublic: true } }, async (req, reply) => {
    if (!signupEnabled) return sendPage(reply, signupView(pageContext(req), { enabled: false }), 404);
    const token = text(asForm(req.body), 'token', 128) || undefined;
    try {
      const started = await auth.confirmSignUp({ token }, state(req).token);
      setSessionCookie(reply, cookies, started.token, started.session, ctx.clock.now());
      return seeOther(reply, '/');
    } catch (e) {
      if (!isAppError(e) || !e.code.startsWith('signup_link_')) throw e;
      const texts = t(req).auth;
      const message =
        e.code === 'signup_link_expired'
          ? texts.signupLinkExpired
          : e.code === 'signup_link_account_exists'
            ? texts.signupLinkAccountExists
            : texts.signupLinkInvalid;
      return sendPage(reply, signupConfirmFailedView(pageContext(req), { message }), statusOf(e));
    }
  });

  // Logout is a POST with the CSRF token, so another site cannot log a user out with a link.
  app.post('/logout', { config: { dashboardPublic: true } }, async (req, reply) => {
    await auth.logOut(state(req).token);
    clearSessionCookie(reply, cookies);
    return seeOther(reply, '/login?loggedOut=1');
  });
};
