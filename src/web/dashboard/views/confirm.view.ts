import { html } from '../../shared/html.ts';
import { csrfInput, dl, submit } from '../ui/components.ts';
import { layout, type NavKey, type PageContext } from '../ui/layout.ts';

/**
 * The confirmation step of a destructive action, without JavaScript: a GET page saying what will
 * happen, whose only form POSTs the action (with the CSRF token); "Cancel" goes back. Opening the
 * page changes nothing, so a prefetch or a stray click cannot revoke or delete.
 */
export function confirmView(
  ctx: PageContext,
  o: {
    title: string;
    /** What the action does, in a sentence. */
    message: string;
    /** What it acts on: label and value pairs (a key's name and prefix, an endpoint's URL). */
    subject?: readonly (readonly [string, unknown])[];
    action: string;
    button: string;
    cancelHref: string;
    active?: NavKey;
  },
): string {
  const t = ctx.t;
  return layout(ctx, {
    title: o.title,
    ...(o.active ? { active: o.active } : {}),
    body: html`<div class="card confirm">${o.subject ? dl(o.subject) : ''}<p class="notice notice-warn">${o.message}</p>
<form method="post" action="${o.action}" class="actions">${csrfInput(ctx.csrf)}${submit(o.button, 'danger')}
<a class="button button-secondary" href="${o.cancelHref}">${t.common.cancel}</a></form></div>`,
  });
}
