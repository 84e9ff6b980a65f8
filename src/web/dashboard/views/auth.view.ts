import { PASSWORD_MIN_LENGTH } from '../../../modules/dashboard-auth/index.ts';
import { html } from '../../shared/html.ts';
import { csrfInput, field, formError, labelled, notice, problemFor, submit } from '../ui/components.ts';
import { bareLayout, type PageContext } from '../ui/layout.ts';

export interface FormProblem {
  message: string;
  param?: string | undefined;
}

export function loginView(
  ctx: PageContext,
  o: { email?: string; error?: FormProblem; flash?: 'loggedOut' | 'sessionExpired'; next?: string | undefined; signupEnabled: boolean },
): string {
  const t = ctx.t;
  return bareLayout(ctx, {
    title: t.auth.loginTitle,
    flash: o.flash ? notice(t.auth[o.flash], 'info') : '',
    body: html`<p>${t.auth.intro}</p>${formError(o.error, t)}
<form method="post" action="/login" class="card" novalidate>${csrfInput(ctx.csrf)}${o.next ? html`<input type="hidden" name="next" value="${o.next}">` : ''}
${field({ t, name: 'email', label: t.auth.email, kind: 'email', value: o.email, required: true, autocomplete: 'username', maxlength: 320 })}
${field({ t, name: 'password', label: t.auth.password, kind: 'password', required: true, autocomplete: 'current-password', maxlength: 1024 })}
<div class="actions">${submit(t.auth.loginButton)}</div></form>
${o.signupEnabled ? html`<p>${t.auth.noAccount} <a href="/signup">${t.auth.signupTitle}</a></p>` : ''}`,
  });
}

export function signupView(
  ctx: PageContext,
  o: { name?: string; email?: string; error?: FormProblem | readonly FormProblem[]; enabled: boolean },
): string {
  const t = ctx.t;
  const err = (p: string) => problemFor(o.error, p);
  if (!o.enabled)
    return bareLayout(ctx, {
      title: t.auth.signupTitle,
      body: html`${notice(t.auth.signupDisabled, 'info')}<p><a href="/login">${t.auth.loginTitle}</a></p>`,
    });
  return bareLayout(ctx, {
    title: t.auth.signupTitle,
    body: html`<p>${t.auth.intro}</p>${formError(
      labelled(o.error, [
        ['name', t.auth.name],
        ['email', t.auth.email],
        ['password', t.auth.password],
      ]),
      t,
    )}
<form method="post" action="/signup" class="card" novalidate>${csrfInput(ctx.csrf)}
${field({ t, name: 'name', label: t.auth.name, value: o.name, required: true, autocomplete: 'organization', maxlength: 200, error: err('name') })}
${field({ t, name: 'email', label: t.auth.email, kind: 'email', value: o.email, required: true, autocomplete: 'email', maxlength: 320, error: err('email') })}
${field({
  t,
  name: 'password',
  label: t.auth.password,
  kind: 'password',
  required: true,
  autocomplete: 'new-password',
  maxlength: 256,
  hint: t.auth.passwordHint(PASSWORD_MIN_LENGTH),
  error: err('password'),
})}
<div class="actions">${submit(t.auth.signupButton)}</div></form>
<p>${t.auth.haveAccount} <a href="/login">${t.auth.loginTitle}</a></p>`,
  });
}

/**
 * The answer to every accepted sign-up when sign-up confirms by e-mail: the same page (and status)
 * whether or not the address already had an account.
 */
export function signupSentView(ctx: PageContext, o: { email?: string | undefined }): string {
  const t = ctx.t;
  return bareLayout(ctx, {
    title: t.auth.checkEmailTitle,
    body: html`${notice(o.email ? t.auth.checkEmail(o.email) : t.confirm.checkEmailAgain, 'info')}<p><a href="/login">${t.auth.loginTitle}</a></p>`,
  });
}

/**
 * What the e-mailed link opens: a button that POSTs the token. Opening the link changes nothing,
 * so a mail scanner that follows links neither uses it up nor gets a logged-in session.
 */
export function signupConfirmView(ctx: PageContext, o: { token: string }): string {
  const t = ctx.t;
  return bareLayout(ctx, {
    title: t.auth.confirmTitle,
    body: html`<p>${t.auth.confirmIntro}</p>
<form method="post" action="/signup/confirm" class="card">${csrfInput(ctx.csrf)}<input type="hidden" name="token" value="${o.token}">
<div class="actions">${submit(t.auth.confirmButton)}</div></form>`,
  });
}

/** A confirmation link that cannot be used (unknown, used, expired, or its e-mail already has an account). */
export function signupConfirmFailedView(ctx: PageContext, o: { message: string }): string {
  const t = ctx.t;
  return bareLayout(ctx, {
    title: t.auth.confirmFailedTitle,
    body: html`${notice(o.message, 'bad')}<p><a href="/login">${t.auth.loginTitle}</a> · <a href="/signup">${t.auth.signupTitle}</a></p>`,
  });
}
