import { EVENT_TYPES } from '../../../events/event-types.ts';
import type { Attempt, Endpoint, Message } from '../../../modules/webhooks/index.ts';
import { html, type SafeHtml } from '../../shared/html.ts';
import type { Messages } from '../i18n/index.ts';
import { badge, csrfInput, dl, notice, pager, section, select, submit, table, type Tone } from '../ui/components.ts';
import { formatDateTime } from '../ui/format.ts';
import { layout, type PageContext } from '../ui/layout.ts';

const STATUS_TONE: Record<string, Tone> = {
  pending: 'info',
  succeeded: 'ok',
  failed: 'bad',
  cancelled: 'neutral',
  no_endpoints: 'neutral',
};

export const messageStatus = (status: string, t: Messages): SafeHtml =>
  badge(t.logs.statusLabel[status] ?? status, STATUS_TONE[status] ?? 'neutral');

const excerpt = (s: string | null, max: number) => (s === null ? '' : s.length > max ? `${s.slice(0, max)}…` : s);

const endpointLabel = (id: string, endpoints: Map<string, Endpoint>) => {
  const e = endpoints.get(id);
  return e ? html`<a href="/webhooks/${e.id}">${e.url}</a>` : html`<code>${id}</code>`;
};

function attemptLine(a: Attempt, t: Messages): SafeHtml {
  return html`<li>${badge(`#${a.attemptNumber} ${a.responseStatusCode ?? t.logs.error}`, a.status === 'succeeded' ? 'ok' : 'bad')} ${a.durationMs} ms${
    a.responseBody || a.error ? html` · <span class="muted">${excerpt(a.responseBody ?? a.error, 80)}</span>` : ''
  }</li>`;
}

export function logsListView(
  ctx: PageContext,
  o: {
    messages: Message[];
    endpoints: Endpoint[];
    filters: { eventType?: string | undefined; endpointId?: string | undefined };
    iterator: string | null;
    onFirst: boolean;
  },
): string {
  const t = ctx.t;
  const byId = new Map(o.endpoints.map((e) => [e.id, e]));
  const filters = html`<form method="get" action="/logs/webhooks" class="filters">
${select({ name: 'eventType', label: t.logs.event, options: [{ value: '', label: t.logs.anyEvent }, ...EVENT_TYPES.map((e) => ({ value: e, label: e }))], value: o.filters.eventType })}
${select({ name: 'endpointId', label: t.logs.endpoint, options: [{ value: '', label: t.logs.anyEndpoint }, ...o.endpoints.map((e) => ({ value: e.id, label: e.url }))], value: o.filters.endpointId })}
<div>${submit(t.common.filter, 'secondary')}</div></form>`;
  const rows = o.messages.map((m) => [
    html`<a href="/logs/webhooks/${m.id}">${formatDateTime(m.createdAt, t)}</a>`,
    html`<code>${m.eventType}</code>`,
    messageStatus(m.status, t),
    m.attempts.length
      ? html`<ul class="attempts">${m.attempts.map((a) => html`${attemptLine(a, t)}`)}</ul>${
          new Set(m.attempts.map((a) => a.endpointId)).size > 1
            ? ''
            : html`<span class="muted">${endpointLabel(m.attempts[0]!.endpointId, byId)}</span>`
        }`
      : html`<span class="muted">—</span>`,
  ]);
  return layout(ctx, {
    title: t.logs.title,
    active: 'logs',
    body: html`${filters}${section(
      t.logs.title,
      html`${table({ caption: t.logs.title, head: [t.logs.attemptedAt, t.logs.event, t.common.status, t.logs.attempts], rows, empty: t.logs.none })}${pager(
        {
          path: '/logs/webhooks',
          query: { eventType: o.filters.eventType, endpointId: o.filters.endpointId },
          iterator: o.iterator,
          t,
          onFirst: o.onFirst,
        },
      )}`,
      { id: 'messages' },
    )}`,
  });
}

export function messageView(ctx: PageContext, o: { message: Message; endpoints: Endpoint[]; flash?: string | undefined }): string {
  const t = ctx.t;
  const m = o.message;
  const byId = new Map(o.endpoints.map((e) => [e.id, e]));
  const enabled = o.endpoints.filter((e) => !e.disabled);
  const attempts = table({
    caption: t.logs.attempts,
    head: [
      t.logs.attempt,
      t.logs.endpoint,
      t.common.status,
      t.logs.code,
      t.logs.duration,
      t.logs.response,
      t.logs.attemptedAt,
      t.logs.nextAttempt,
    ],
    numeric: [0, 3, 4],
    empty: t.logs.none,
    rows: m.attempts.map((a) => [
      String(a.attemptNumber),
      endpointLabel(a.endpointId, byId),
      badge(t.logs.attemptStatus[a.status] ?? a.status, a.status === 'succeeded' ? 'ok' : 'bad'),
      a.responseStatusCode === null ? '—' : String(a.responseStatusCode),
      `${a.durationMs} ms`,
      a.responseBody || a.error
        ? html`<pre class="excerpt" tabindex="0">${excerpt(a.responseBody ?? '', 500)}${a.error ? html`${a.responseBody ? '\n' : ''}${t.logs.error}: ${a.error}` : ''}</pre>`
        : '—',
      formatDateTime(a.attemptedAt, t),
      a.nextAttemptAt ? formatDateTime(a.nextAttemptAt, t) : '—',
    ]),
  });
  const resend = enabled.length
    ? html`<form method="post" action="/logs/webhooks/${m.id}/resend" class="filters">${csrfInput(ctx.csrf)}${select({
        name: 'endpointId',
        label: t.logs.resendTo,
        options: enabled.map((e) => ({ value: e.id, label: e.url })),
        value: m.attempts[m.attempts.length - 1]?.endpointId,
      })}<div>${submit(t.logs.resend, 'secondary')}</div></form>`
    : html`<p class="muted">${t.webhooks.none}</p>`;
  return layout(ctx, {
    title: `${t.logs.message} ${m.eventType}`,
    active: 'logs',
    flash: o.flash ? notice(o.flash) : '',
    body: html`<p><a href="/logs/webhooks">← ${t.logs.title}</a></p>
${section(
  t.logs.message,
  dl([
    ['webhook-id', html`<code>${m.id}</code>`],
    [t.logs.event, html`<code>${m.eventType}</code>`],
    [t.common.status, messageStatus(m.status, t)],
    [t.common.createdAt, formatDateTime(m.createdAt, t)],
  ]),
  { id: 'message' },
)}
${section(t.logs.attempts, attempts, { id: 'attempts' })}
${section(t.logs.resend, resend, { id: 'resend' })}
${section(t.logs.payload, html`<pre tabindex="0">${JSON.stringify(m.payload, null, 2)}</pre>`, { id: 'payload' })}`,
  });
}
