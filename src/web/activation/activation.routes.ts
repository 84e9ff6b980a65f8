import formbody from '@fastify/formbody';
import { knownError, statusOf } from '../../http/plugins/errors.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../../errors.ts';
import { isMultipartBody, parseMultipart } from '../../http/multipart.ts';
import { rateLimiterFor } from '../../lib/rate-limiter.ts';
import { LinkUnusableError, type LinkView } from '../../modules/credentials/index.ts';
import type { AuditActor } from '../../modules/audit/index.ts';
import type { RouteModule } from '../../http/route-module.ts';
import { requestOrigin } from '../../http/audit-actor.ts';
import { createCsrf, isCrossSite } from '../shared/csrf.ts';
import { usePageSecurityHeaders } from '../shared/headers.ts';
import { usePerIpRateLimit } from '../shared/rate-limit.ts';
import { MESSAGES } from './activation.messages.ts';
import { apiKeyPage, certificatePage, confirmPage, invalidLinkPage, messagePage, stepNumber, successPage } from './activation.pages.ts';

/**
 * The hosted activation page at {APP_URL}/activate/<token> (docs/credentials.md "Activation links
 * and the hosted page"). Server-rendered, no JavaScript: each step is a form that posts and
 * redirects back (303) to the page, which shows the next step from the progress kept on the link.
 * The token in the path is the only credential; forms also carry a CSRF token bound to the link,
 * and every response carries strict headers.
 */
type Params = { token: string };
const PAGE = { schema: { hide: true } } as const;

const first = (v: unknown): string | undefined => (Array.isArray(v) ? first(v[0]) : typeof v === 'string' ? v : undefined);

const send = (reply: FastifyReply, status: number, body: string) => reply.status(status).type('text/html; charset=utf-8').send(body);

const routes: RouteModule = async (app, { ctx }) => {
  const { activation } = ctx.services;
  const limitBytes = ctx.config.certificateLimitBytes;
  const maxKb = Math.floor(limitBytes / 1024);
  const appOrigin = new URL(ctx.config.appUrl).origin;
  const csrf = createCsrf({ key: ctx.pageKeys.csrf, secure: appOrigin.startsWith('https:') });

  const invalid = (reply: FastifyReply, state: LinkUnusableError['state'], issuer?: string) =>
    send(reply, state === 'unknown' ? 404 : 410, invalidLinkPage({ state, issuer }));

  /** The link behind the URL, or the "no longer valid" page already sent. */
  const pendingView = async (req: FastifyRequest<{ Params: Params }>, reply: FastifyReply): Promise<LinkView | undefined> => {
    const view = await activation.view(req.params.token);
    if (view.state !== 'pending') {
      await invalid(reply, view.state, view.issuer);
      return undefined;
    }
    return view;
  };

  /** Cross-site posts and missing or wrong CSRF tokens get a page that offers a fresh form. */
  const checkForm = async (req: FastifyRequest<{ Params: Params }>, reply: FastifyReply, view: LinkView, submitted: unknown) => {
    if (!isCrossSite(req, appOrigin) && csrf.verify(req, view.linkId, submitted)) return true;
    await send(
      reply,
      403,
      messagePage({
        title: 'No pudimos procesar el formulario',
        message:
          'Por seguridad, el formulario debe enviarse desde esta misma página y con las cookies activadas. Vuelva a cargarla e intente de nuevo.',
        retryHref: `/activate/${req.params.token}`,
      }),
    );
    return false;
  };

  const messageFor = (e: AppError) => MESSAGES[e.code]?.text ?? 'No pudimos completar este paso. Intente de nuevo.';

  /** Renders a failed step again with the message next to its field, or the right page. */
  const renderFailure = async (
    req: FastifyRequest<{ Params: Params }>,
    reply: FastifyReply,
    err: unknown,
    step: 'apiKey' | 'certificate' | 'confirm',
  ) => {
    if (err instanceof LinkUnusableError) return invalid(reply, err.state, err.issuer);
    if (!isAppError(err)) throw err;
    if (err.code === 'rate_limited')
      return send(reply, 429, messagePage({ title: 'Demasiados intentos', message: 'Espere un momento y vuelva a intentarlo.' }));
    if (err.code === 'activation_step_order' || err.code === 'activation_incomplete')
      return reply.redirect(`/activate/${req.params.token}`, 303);
    const view = await activation.view(req.params.token);
    if (view.state !== 'pending') return invalid(reply, view.state, view.issuer);
    const token = csrf.issue(req, reply, view.linkId);
    if (err.retryAfterSeconds !== undefined) reply.header('Retry-After', String(err.retryAfterSeconds));
    const mapped = MESSAGES[err.code];
    if (step === 'apiKey') {
      // Only messages about the key belong next to it; anything else (a form too large) is generic.
      const error = mapped?.field === 'apiKey' ? mapped.text : 'No pudimos procesar la clave. Revísela e intente de nuevo.';
      return send(reply, statusOf(err), apiKeyPage({ view, token: req.params.token, csrf: token, error }));
    }
    if (step === 'confirm' && view.certificate)
      return send(reply, statusOf(err), confirmPage({ view, token: req.params.token, csrf: token, error: messageFor(err) }));
    const field = mapped?.field === 'password' ? 'password' : 'file';
    return send(
      reply,
      statusOf(err),
      certificatePage({ view, token: req.params.token, csrf: token, errors: { [field]: messageFor(err) }, maxKb }),
    );
  };

  await app.register(
    async (scope) => {
      usePageSecurityHeaders(scope);
      usePerIpRateLimit(scope, {
        limiter: rateLimiterFor(ctx.db),
        limit: ctx.config.pageRateLimit,
        bucket: 'page:activate',
        onLimited: (_req, reply) =>
          send(
            reply,
            429,
            messagePage({
              title: 'Demasiados intentos',
              message: 'Hizo demasiadas solicitudes seguidas. Espere un momento y vuelva a intentarlo.',
            }),
          ),
      });
      await scope.register(formbody, { bodyLimit: 16 * 1024 });
      scope.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: limitBytes + 16 * 1024 }, (req, body, done) => {
        try {
          done(null, parseMultipart(body as Buffer, req.headers['content-type'], { maxFileBytes: limitBytes, maxParts: 5 }));
        } catch (e) {
          done(e as Error, undefined);
        }
      });
      // Errors raised before a handler runs (body too large, malformed form) are shown as pages too.
      scope.setErrorHandler(async (err, req, reply) => {
        const r = req as FastifyRequest<{ Params: Params }>;
        const status = (err as { statusCode?: number }).statusCode;
        const appErr =
          knownError(err) ??
          (status === 413
            ? new AppError('too_large', 'body_too_large', 'too large')
            : status && status < 500
              ? new AppError('invalid_request', 'invalid_multipart', 'malformed')
              : undefined);
        if (!appErr) {
          req.log.error({ err }, 'activation page failed');
          return send(
            reply,
            500,
            messagePage({ title: 'Algo salió mal', message: 'Tuvimos un problema de nuestro lado. Intente nuevamente en unos minutos.' }),
          );
        }
        if (!r.params?.token)
          return send(reply, statusOf(appErr), messagePage({ title: 'Solicitud no válida', message: messageFor(appErr) }));
        const url = req.routeOptions.url ?? '';
        return renderFailure(r, reply, appErr, url.endsWith('/api-key') ? 'apiKey' : url.endsWith('/confirm') ? 'confirm' : 'certificate');
      });
      scope.setNotFoundHandler((_req, reply) => send(reply, 404, invalidLinkPage({ state: 'unknown' })));

      scope.get<{ Params: Params; Querystring: { paso?: string } }>('/:token', PAGE, async (req, reply) => {
        const view = await pendingView(req, reply);
        if (!view) return reply;
        const token = csrf.issue(req, reply, view.linkId);
        const paso = first(req.query.paso);
        const t = req.params.token;
        // A direct tenant (provider sii) has no API-key step: its page starts at the certificate.
        if (view.needsApiKey && (!view.apiKeyVerifiedAt || paso === '1'))
          return send(reply, 200, apiKeyPage({ view, token: t, csrf: token }));
        if (!view.certificate || paso === String(stepNumber(view, 'certificate')))
          return send(reply, 200, certificatePage({ view, token: t, csrf: token, maxKb }));
        return send(reply, 200, confirmPage({ view, token: t, csrf: token }));
      });

      scope.post<{ Params: Params; Body: Record<string, unknown> }>('/:token/api-key', PAGE, async (req, reply) => {
        const view = await pendingView(req, reply);
        if (!view || !(await checkForm(req, reply, view, first(req.body?._csrf)))) return reply;
        // No such step for a direct tenant: nothing is verified or kept, the page shows its next step.
        if (!view.needsApiKey) return reply.redirect(`/activate/${req.params.token}`, 303);
        const apiKey = (first(req.body?.apiKey) ?? '').trim();
        if (!apiKey || apiKey.length > 512 || !/^[\x21-\x7e]+$/.test(apiKey)) {
          const token = csrf.issue(req, reply, view.linkId);
          const error = apiKey ? 'La clave API solo puede contener letras, números y símbolos, sin espacios.' : 'Ingrese la clave API.';
          return send(reply, 400, apiKeyPage({ view, token: req.params.token, csrf: token, error }));
        }
        try {
          await activation.submitApiKey(req.params.token, apiKey);
        } catch (e) {
          return renderFailure(req, reply, e, 'apiKey');
        }
        return reply.redirect(`/activate/${req.params.token}`, 303);
      });

      scope.post<{ Params: Params }>('/:token/certificate', PAGE, async (req, reply) => {
        const view = await pendingView(req, reply);
        if (!view) return reply;
        const body = isMultipartBody(req.body) ? req.body : { fields: {}, files: {} };
        if (!(await checkForm(req, reply, view, body.fields._csrf))) return reply;
        const file = body.files.file;
        const password = body.fields.password;
        // An empty password is allowed: some exported files have none.
        if (!file || file.data.length === 0 || password === undefined) {
          const token = csrf.issue(req, reply, view.linkId);
          const errors = {
            ...(!file || file.data.length === 0 ? { file: 'Seleccione el archivo del certificado (.pfx o .p12).' } : {}),
            ...(password === undefined ? { password: 'Ingrese la contraseña del certificado.' } : {}),
          };
          return send(reply, 400, certificatePage({ view, token: req.params.token, csrf: token, errors, maxKb }));
        }
        try {
          await activation.submitCertificate(req.params.token, file.data, password);
        } catch (e) {
          return renderFailure(req, reply, e, 'certificate');
        }
        return reply.redirect(`/activate/${req.params.token}`, 303);
      });

      scope.post<{ Params: Params; Body: Record<string, unknown> }>('/:token/confirm', PAGE, async (req, reply) => {
        const view = await pendingView(req, reply);
        if (!view || !(await checkForm(req, reply, view, first(req.body?._csrf)))) return reply;
        try {
          const done = await activation.complete(req.params.token, linkActor(req));
          return send(
            reply,
            200,
            successPage({
              razonSocial: view.tenant.razonSocial,
              rutEmpresa: view.tenant.rutEmpresa,
              issuer: view.issuer,
              needsApiKey: view.needsApiKey,
              certificate: done.certificate,
            }),
          );
        } catch (e) {
          return renderFailure(req, reply, e, 'confirm');
        }
      });
    },
    { prefix: '/activate' },
  );
};

export default routes;

/**
 * Whoever completes a hosted activation link (the tenant's customer, without an account): the
 * audit log records it as the link, from the request's address (docs/audit.md).
 */
function linkActor(req: FastifyRequest): AuditActor {
  return { type: 'system', id: null, label: 'activation link', ...requestOrigin(req), livemode: true };
}
