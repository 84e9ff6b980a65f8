import type { ApiKey } from '../../../modules/api-keys/index.ts';
import { html } from '../../shared/html.ts';
import { copyable, csrfInput, field, formError, notice, section, submit, table } from '../ui/components.ts';
import { formatDateTime } from '../ui/format.ts';
import { layout, type PageContext } from '../ui/layout.ts';
import type { FormProblem } from './auth.view.ts';

export function apiKeysView(
  ctx: PageContext,
  o: { keys: ApiKey[]; created?: { key: string; name: string | null }; flash?: string | undefined; error?: FormProblem; name?: string },
): string {
  const t = ctx.t;
  const created = o.created
    ? html`<div class="success" role="status" id="new-key" tabindex="-1"><h2>${t.apiKeys.created}${o.created.name ? `: ${o.created.name}` : ''}</h2>
<p>${t.common.shownOnce}</p>${copyable({ id: 'new-api-key', label: t.apiKeys.created, value: o.created.key, t })}</div>`
    : '';
  const list = table({
    caption: t.apiKeys.title,
    head: [t.apiKeys.name, t.apiKeys.prefix, t.common.createdAt, t.apiKeys.lastUsed, t.common.actions],
    empty: t.apiKeys.none,
    rows: o.keys.map((k) => [
      k.name ?? '—',
      html`<code>${k.prefix}…</code>`,
      formatDateTime(k.createdAt, t),
      k.lastUsedAt ? formatDateTime(k.lastUsedAt, t) : t.common.never,
      // A link to the confirmation page (GET, changes nothing); the revoking POST is there.
      html`<a class="button button-danger button-small" href="/settings/api-keys/${k.id}/revoke" aria-label="${`${t.apiKeys.revoke} ${k.prefix}… ${k.name ?? ''}`.trim()}">${t.apiKeys.revoke}</a>`,
    ]),
  });
  return layout(ctx, {
    // The contract sends users to "Settings, API Keys".
    title: `${t.nav.settings} › ${t.apiKeys.title}`,
    active: 'apiKeys',
    flash: o.flash ? notice(o.flash) : '',
    body: html`${created}<p>${ctx.mode === 'test' ? t.testMode.keysHelp : t.apiKeys.help}</p><p class="mode-note" id="keys-mode">${ctx.mode === 'test' ? t.testMode.keysTest : t.testMode.keysLive}</p>
${section(
  t.apiKeys.create,
  html`${formError(o.error, t)}<form method="post" action="/settings/api-keys" class="row" novalidate>${csrfInput(ctx.csrf)}
${field({ t, name: 'name', label: t.apiKeys.name, value: o.name, maxlength: 100, optionalLabel: t.common.optional, error: o.error?.message })}
<div>${submit(t.apiKeys.create)}</div></form>`,
  { id: 'create-key' },
)}
${section(t.apiKeys.title, html`${list}<p class="hint">${t.apiKeys.revokeConfirm}</p>`, { id: 'keys' })}`,
  });
}
