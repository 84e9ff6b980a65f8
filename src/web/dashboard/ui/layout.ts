import type { Mode } from '../../../modules/accounts/index.ts';
import { allowed, type Role } from '../../../modules/members/index.ts';
import type { Lang, Messages } from '../i18n/index.ts';
import { csrfInput } from '../../shared/forms.ts';
import { html, type SafeHtml } from '../../shared/html.ts';
import { FAVICON_PATH, STYLESHEET_PATH } from '../../shared/layout.ts';
import { ASSETS } from '../assets.ts';

/**
 * The dashboard's page frame. It loads the hosted pages' shared stylesheet and then the
 * dashboard's own (wider layout, navigation, tables), plus one external script for copy buttons.
 */
export interface PageContext {
  t: Messages;
  lang: Lang;
  /** Path and query of the current request, for the language switch. */
  url: string;
  csrf: string;
  account: { id: string; name: string; email: string } | null;
  /** The member's role: the navigation leaves out what it may not open. */
  role: Role | null;
  /** The data the page shows (docs/dashboard.md "Test mode"): test mode has a strip on every page. */
  mode: Mode;
}

export type NavKey = 'overview' | 'tenants' | 'webhooks' | 'logs' | 'mailbox' | 'apiKeys' | 'members' | 'audit';

/** The current URL with `lang` replaced, so switching language stays on the same page. */
export function withLang(url: string, lang: Lang): string {
  const u = new URL(url, 'http://x');
  u.searchParams.set('lang', lang);
  u.searchParams.delete('iterator');
  return `${u.pathname}?${u.searchParams.toString()}`;
}

function langSwitch(ctx: PageContext): SafeHtml {
  const other: Lang = ctx.lang === 'es' ? 'en' : 'es';
  return html`<a class="lang" href="${withLang(ctx.url, other)}" hreflang="${other}" lang="${other}">${other === 'en' ? 'English' : 'Español'}</a>`;
}

/** The form that switches the session's mode and comes back to this page's section. */
function modeForm(ctx: PageContext, to: Mode, body: SafeHtml, cls: string): SafeHtml {
  const next = ctx.url.length <= 512 ? ctx.url : '/';
  return html`<form method="post" action="/mode" class="${cls}">${csrfInput(ctx.csrf)}<input type="hidden" name="mode" value="${to}"><input type="hidden" name="next" value="${next}">${body}</form>`;
}

/** The switch in the header, like Stripe's "Test mode" toggle: a button that says what it shows. */
function modeSwitch(ctx: PageContext): SafeHtml | '' {
  if (!ctx.role || !allowed(ctx.role, 'mode.switch', ctx.mode)) return '';
  const m = ctx.t.testMode;
  const test = ctx.mode === 'test';
  return modeForm(
    ctx,
    test ? 'live' : 'test',
    html`<button type="submit" class="mode-switch" role="switch" aria-checked="${test ? 'true' : 'false'}" title="${test ? m.switchOff : m.switchOn}"><span class="mode-track" aria-hidden="true"><span class="mode-thumb"></span></span><span class="mode-label">${m.switchLabel}</span></button>`,
    'inline mode-form',
  );
}

/** The strip on every page in test mode: which data this is, and the way back. */
function testStrip(ctx: PageContext): SafeHtml | '' {
  if (ctx.mode !== 'test') return '';
  const m = ctx.t.testMode;
  return html`<div class="test-mode-strip" role="note" id="test-mode-strip"><div class="test-mode-strip-inner"><strong>${m.banner}</strong>${modeForm(
    ctx,
    'live',
    html`<button type="submit" class="button button-small button-secondary">${m.bannerLive}</button>`,
    'inline',
  )}</div></div>`;
}

function head(ctx: PageContext, title: string): SafeHtml {
  return html`<html lang="${ctx.t.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex, nofollow"><title>${title} · ${ctx.t.appName}</title>
<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml"><link rel="stylesheet" href="${STYLESHEET_PATH}"><link rel="stylesheet" href="${ASSETS.css}"><script src="${ASSETS.js}" defer></script></head>`;
}

export function layout(ctx: PageContext, o: { title: string; active?: NavKey; body: unknown; flash?: unknown }): string {
  const t = ctx.t;
  const item = (key: NavKey, href: string, label: string) =>
    html`<li><a href="${href}"${o.active === key ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return `<!doctype html>\n${
    html`${head(ctx, o.title)}<body class="dashboard${ctx.mode === 'test' ? ' test-mode' : ''}">
<a class="skip-link" href="#main">${t.skipToContent}</a>
${testStrip(ctx)}<header class="dash-header"><div class="dash-header-inner">
<a class="dash-brand" href="/">${t.appName}</a>
<nav aria-label="${t.nav.main}"><ul class="dash-nav">
${item('overview', '/', t.nav.overview)}${item('tenants', '/tenants', t.nav.tenants)}${item('webhooks', '/webhooks', t.nav.webhooks)}${item(
      'logs',
      '/logs/webhooks',
      t.nav.logs,
    )}${item('mailbox', '/mailbox', t.nav.mailbox)}${ctx.role && allowed(ctx.role, 'apiKeys.view', ctx.mode) ? item('apiKeys', '/settings/api-keys', t.nav.apiKeys) : ''}${item(
      'members',
      '/settings/members',
      t.teams.nav,
    )}${ctx.role && allowed(ctx.role, 'audit.view', ctx.mode) ? item('audit', '/settings/audit', t.audit.nav) : ''}
</ul></nav>
<div class="dash-account">${ctx.account ? modeSwitch(ctx) : ''}${langSwitch(ctx)}${
      ctx.account
        ? html`<span class="who" title="${t.nav.signedInAs(ctx.account.email)}">${ctx.account.name}${ctx.role ? html` <span class="badge badge-info">${t.teams.roles[ctx.role]}</span>` : ''}</span>
<form method="post" action="/logout" class="inline">${csrfInput(ctx.csrf)}<button type="submit" class="button button-secondary button-small">${t.nav.logout}</button></form>`
        : ''
    }</div>
</div></header>
<main id="main" tabindex="-1"><h1>${o.title}</h1>${o.flash ?? ''}${o.body}</main>
<footer class="site-footer dash-footer"><a href="/docs">${t.nav.docs}</a></footer>
</body></html>`.value
  }\n`;
}

/** The frame of the pages shown before login (login, sign-up, and their errors). */
export function bareLayout(ctx: PageContext, o: { title: string; body: unknown; flash?: unknown }): string {
  const t = ctx.t;
  return `<!doctype html>\n${
    html`${head(ctx, o.title)}<body class="dashboard bare">
<a class="skip-link" href="#main">${t.skipToContent}</a>
<header class="site-header"><p class="brand">${t.appName} <span class="brand-lang">${langSwitch(ctx)}</span></p></header>
<main id="main" tabindex="-1"><h1>${o.title}</h1>${o.flash ?? ''}${o.body}</main>
</body></html>`.value
  }\n`;
}
