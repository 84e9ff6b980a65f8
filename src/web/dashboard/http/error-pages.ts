import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { knownError, statusOf } from '../../../http/plugins/errors.ts';
import { AppError } from '../../../errors.ts';
import { isRole } from '../../../modules/members/index.ts';
import { modeOf } from '../../../modules/accounts/index.ts';
import { messagesFor, type Messages } from '../i18n/index.ts';
import { errorText, notice } from '../ui/components.ts';
import { html } from '../../shared/html.ts';
import { bareLayout, layout, type PageContext } from '../ui/layout.ts';
import { sendPage } from './state.ts';

/** A POST whose CSRF token is missing or is not the session's. */
export class CsrfError extends Error {
  constructor() {
    super('csrf token missing or invalid');
    this.name = 'CsrfError';
  }
}

const ctxFor = (req: FastifyRequest): PageContext => {
  const s = req.dashboard;
  const t = s?.t ?? messagesFor('es');
  return {
    t,
    lang: s?.lang ?? 'es',
    url: req.url,
    csrf: s?.session?.csrfToken ?? '',
    account: s?.session?.account ?? null,
    role: s?.session?.member?.role ?? null,
    mode: modeOf(s?.scope?.livemode ?? true),
  };
};

const frame = (ctx: PageContext, title: string, body: ReturnType<typeof html>) =>
  ctx.account ? layout(ctx, { title, body }) : bareLayout(ctx, { title, body });

/**
 * The dashboard's error handler: the same AppErrors the API maps to JSON become HTML pages with
 * the same status. Another account's id is a plain 404 page; unknown errors are logged in full
 * and shown only as a request id.
 */
export function renderError(err: FastifyError | Error, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const ctx = ctxFor(req);
  const t = ctx.t;
  const home = html`<p><a href="/">${t.errors.goHome}</a></p>`;
  if (err instanceof CsrfError) {
    return sendPage(reply, frame(ctx, t.errors.csrfTitle, html`${notice(t.errors.csrf, 'bad')}${home}`), 403);
  }
  const validation = (err as { validation?: unknown }).validation;
  const appErr: AppError | undefined =
    knownError(err) ??
    (validation
      ? new AppError('invalid_request', 'invalid_field', err.message)
      : (err as FastifyError).statusCode === 413
        ? new AppError('too_large', 'body_too_large', 'The form is too large.')
        : (err as FastifyError).statusCode && (err as FastifyError).statusCode! < 500
          ? new AppError('invalid_request', 'invalid_request', 'The request is malformed.')
          : undefined);
  if (appErr) {
    if (appErr.retryAfterSeconds !== undefined) reply.header('Retry-After', String(appErr.retryAfterSeconds));
    if (appErr.kind === 'forbidden')
      return sendPage(reply, frame(ctx, t.teams.forbiddenTitle, html`${notice(forbiddenText(appErr, t), 'bad')}${home}`), 403);
    if (appErr.kind === 'not_found')
      return sendPage(reply, frame(ctx, t.errors.notFoundTitle, html`<p>${t.errors.notFound}</p>${home}`), 404);
    const title = appErr.kind === 'rate_limited' ? t.errors.rateLimitedTitle : t.common.errorTitle;
    return sendPage(reply, frame(ctx, title, html`${notice(errorText(appErr, t), 'bad')}${home}`), statusOf(appErr));
  }
  req.log.error({ err }, 'dashboard page failed');
  return sendPage(
    reply,
    frame(ctx, t.errors.genericTitle, html`${notice(html`${t.errors.generic} <code>${req.id}</code>`, 'bad')}${home}`),
    500,
  );
}

/** "Your role (operator) does not allow this. It needs the role owner, admin or developer." */
function forbiddenText(err: AppError, t: Messages): string {
  const d = err.details ?? {};
  const name = (r: unknown) => (isRole(r) ? t.teams.roles[r] : String(r));
  const needed = Array.isArray(d.roles) ? d.roles.map(name) : [];
  const list = needed.length > 1 ? `${needed.slice(0, -1).join(', ')}${t.teams.or}${needed.at(-1)}` : (needed[0] ?? '');
  const refusal = t.teams.forbidden(name(d.role), list);
  return d.inTestMode === true ? `${refusal} ${t.testMode.forbiddenTryTest}` : refusal;
}

/** The per-IP limit of the pre-login pages was hit (Retry-After is already set). */
export function renderRateLimited(req: FastifyRequest, reply: FastifyReply, retryAfterSeconds: number): FastifyReply {
  const ctx = ctxFor(req);
  return sendPage(
    reply,
    frame(ctx, ctx.t.errors.rateLimitedTitle, html`${notice(ctx.t.errors.rateLimited(retryAfterSeconds), 'bad')}`),
    429,
  );
}
