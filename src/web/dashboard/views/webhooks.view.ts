import { EVENT_TYPES } from '../../../events/event-types.ts';
import type { Endpoint } from '../../../modules/webhooks/index.ts';
import { SIGNATURE_SCHEMES } from '../../../modules/webhooks/index.ts';
import { html, type SafeHtml } from '../../shared/html.ts';
import type { Messages } from '../i18n/index.ts';
import {
  badge,
  checkboxes,
  copyable,
  csrfInput,
  dl,
  field,
  formError,
  linkButton,
  notice,
  labelled,
  postButton,
  problemFor,
  section,
  select,
  submit,
  table,
} from '../ui/components.ts';
import { formatDateTime } from '../ui/format.ts';
import { layout, type PageContext } from '../ui/layout.ts';
import type { FormProblem } from './auth.view.ts';

export interface EndpointForm {
  url?: string;
  description?: string;
  filterTypes?: string[];
  signatureScheme?: string;
}

const eventOptions = EVENT_TYPES.map((e) => ({ value: e, label: e }));

export const endpointStatus = (e: Endpoint, t: Messages): SafeHtml =>
  e.disabled ? badge(t.webhooks.disabledReason(e.disabledReason ?? 'manual'), 'bad') : badge(t.webhooks.enabled, 'ok');

const events = (e: Endpoint, t: Messages) => (e.filterTypes.length ? e.filterTypes.join(', ') : t.webhooks.allEvents);

const endpointLabels = (t: Messages) =>
  [
    ['url', t.webhooks.url],
    ['description', t.webhooks.description],
    ['filterTypes', t.webhooks.events],
    ['signatureScheme', t.webhooks.signatureScheme],
  ] as const;

function endpointFields(ctx: PageContext, v: EndpointForm, error: FormProblem | readonly FormProblem[] | undefined): SafeHtml {
  const t = ctx.t;
  const err = (p: string) => problemFor(error, p);
  return html`${field({ t, name: 'url', label: t.webhooks.url, kind: 'url', value: v.url, required: true, maxlength: 2048, error: err('url') })}
${field({ t, name: 'description', label: t.webhooks.description, value: v.description, maxlength: 500, optionalLabel: t.common.optional, error: err('description') })}
${checkboxes({ name: 'filterTypes', legend: t.webhooks.events, hint: t.webhooks.eventsHint, options: eventOptions, checked: v.filterTypes ?? [], error: err('filterTypes') })}
${select({
  name: 'signatureScheme',
  label: t.webhooks.signatureScheme,
  options: SIGNATURE_SCHEMES.map((s) => ({ value: s, label: s })),
  value: v.signatureScheme ?? 'hmac-sha256-body',
  error: err('signatureScheme'),
})}`;
}

export function webhooksListView(
  ctx: PageContext,
  o: { endpoints: Endpoint[]; form?: EndpointForm; error?: FormProblem | readonly FormProblem[]; flash?: string | undefined },
): string {
  const t = ctx.t;
  return layout(ctx, {
    title: t.webhooks.title,
    active: 'webhooks',
    flash: o.flash ? notice(o.flash) : '',
    body: html`<p>${t.webhooks.help}</p>
${section(
  t.webhooks.endpoints,
  table({
    caption: t.webhooks.endpoints,
    head: [t.webhooks.url, t.webhooks.events, t.common.status, t.common.createdAt],
    empty: t.webhooks.none,
    rows: o.endpoints.map((e) => [
      html`<a href="/webhooks/${e.id}">${e.url}</a>${e.description ? html`<br><span class="muted">${e.description}</span>` : ''}`,
      events(e, t),
      endpointStatus(e, t),
      formatDateTime(e.createdAt, t),
    ]),
  }),
  { id: 'endpoints' },
)}
${section(
  t.webhooks.add,
  html`${formError(labelled(o.error, endpointLabels(t)), t)}<form method="post" action="/webhooks" novalidate>${csrfInput(ctx.csrf)}${endpointFields(ctx, o.form ?? {}, o.error)}
<div class="actions">${submit(t.webhooks.add)}</div></form>`,
  { id: 'add-endpoint' },
)}`,
  });
}

export function webhookView(
  ctx: PageContext,
  o: {
    endpoint: Endpoint;
    secret?: string | undefined;
    flash?: string | undefined;
    form?: EndpointForm;
    error?: FormProblem | readonly FormProblem[];
  },
): string {
  const t = ctx.t;
  const e = o.endpoint;
  const form: EndpointForm = o.form ?? {
    url: e.url,
    description: e.description ?? '',
    filterTypes: e.filterTypes,
    signatureScheme: e.signatureScheme,
  };
  const secret = o.secret
    ? html`<p>${t.webhooks.secretHelp}</p>${copyable({ id: 'webhook-secret', label: t.webhooks.secret, value: o.secret, t })}`
    : html`<p>${t.webhooks.secretHelp}</p>`;
  return layout(ctx, {
    title: e.url,
    active: 'webhooks',
    flash: o.flash ? notice(o.flash) : '',
    body: html`<p><a href="/webhooks">← ${t.webhooks.title}</a> · <a href="/logs/webhooks?endpointId=${e.id}">${t.nav.logs}</a></p>
${section(
  t.webhooks.endpoint,
  dl([
    [t.webhooks.url, html`<code>${e.url}</code>`],
    [t.webhooks.description, e.description],
    [t.webhooks.events, events(e, t)],
    [t.webhooks.signatureScheme, e.signatureScheme],
    [t.common.status, endpointStatus(e, t)],
    [t.common.createdAt, formatDateTime(e.createdAt, t)],
  ]),
  {
    id: 'endpoint',
    actions: html`<div class="row">${
      e.disabled
        ? postButton({ action: `/webhooks/${e.id}/enable`, label: t.webhooks.enable, csrf: ctx.csrf })
        : postButton({ action: `/webhooks/${e.id}/disable`, label: t.webhooks.disable, csrf: ctx.csrf })
    }${linkButton(`/webhooks/${e.id}/delete`, t.common.delete, 'danger')}</div>`,
  },
)}
${section(
  t.webhooks.secret,
  html`${secret}<div class="row">${o.secret ? '' : postButton({ action: `/webhooks/${e.id}/secret`, label: t.webhooks.reveal, csrf: ctx.csrf })}${linkButton(`/webhooks/${e.id}/secret/rotate`, t.webhooks.rotate, 'danger')}</div><p class="hint">${t.webhooks.rotateConfirm}</p>`,
  { id: 'secret' },
)}
${section(
  t.webhooks.test,
  e.disabled
    ? html`<p class="muted">${t.webhooks.disabledReason(e.disabledReason ?? 'manual')}</p>`
    : html`<form method="post" action="/webhooks/${e.id}/test" class="filters">${csrfInput(ctx.csrf)}${select({
        name: 'eventType',
        label: t.webhooks.testType,
        options: eventOptions,
        value: 'tenant.credentials.updated',
      })}<div>${submit(t.webhooks.test, 'secondary')}</div></form>`,
  { id: 'test' },
)}
${section(
  t.common.edit,
  html`${formError(labelled(o.error, endpointLabels(t)), t)}<form method="post" action="/webhooks/${e.id}" novalidate>${csrfInput(ctx.csrf)}${endpointFields(ctx, form, o.error)}
<div class="actions">${submit(t.common.save)}</div></form>`,
  { id: 'edit' },
)}`,
  });
}

export function webhookDeleteView(ctx: PageContext, o: { endpoint: Endpoint }): string {
  const t = ctx.t;
  return layout(ctx, {
    title: t.webhooks.deleteTitle,
    active: 'webhooks',
    body: html`<div class="card"><p><code>${o.endpoint.url}</code></p><p>${t.webhooks.deleteConfirm}</p>
<div class="actions">${postButton({ action: `/webhooks/${o.endpoint.id}/delete`, label: t.common.delete, csrf: ctx.csrf, tone: 'danger' })}
<a href="/webhooks/${o.endpoint.id}">${t.common.cancel}</a></div></div>`,
  });
}
