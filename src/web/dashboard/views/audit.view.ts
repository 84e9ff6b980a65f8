import type { AuditEvent } from '../../../modules/audit/index.ts';
import { html } from '../../shared/html.ts';
import { badge, field, formError, linkButton, pager, section, submit, table } from '../ui/components.ts';
import { formatDateTime } from '../ui/format.ts';
import { layout, type PageContext } from '../ui/layout.ts';

export interface AuditPageFilters {
  actor?: string | undefined;
  action?: string | undefined;
  /** Days (YYYY-MM-DD, UTC) as the form sends them. */
  since?: string | undefined;
  until?: string | undefined;
}

const detailsText = (d: Record<string, unknown>): string => {
  const s = Object.entries(d)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' · ');
  return s.length > 160 ? `${s.slice(0, 160)}…` : s;
};

/** Settings → Audit log (docs/audit.md): filters, the events newest first, the pager and the CSV export with the same filters. */
export function auditView(
  ctx: PageContext,
  o: {
    events: AuditEvent[];
    filters: AuditPageFilters;
    iterator: string | null;
    onFirst: boolean;
    retentionDays: number;
    error?: { code: string; message: string; param?: string | undefined } | undefined;
  },
): string {
  const t = ctx.t;
  const a = t.audit;
  const f = o.filters;
  const query: Record<string, string | undefined> = { actor: f.actor, action: f.action, since: f.since, until: f.until };
  const qs = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => !!e[1])).toString();
  const filters = html`<form method="get" action="/settings/audit" class="filters">
${field({ name: 'actor', label: a.actor, value: f.actor, hint: a.actorHint, maxlength: 320, t })}
${field({ name: 'action', label: a.action, value: f.action, hint: a.actionHint, maxlength: 100, t })}
${field({ name: 'since', label: a.since, value: f.since, kind: 'date', t })}
${field({ name: 'until', label: a.until, value: f.until, kind: 'date', t })}
<div>${submit(t.common.filter, 'secondary')}</div></form>`;
  const rows = o.events.map((e) => [
    formatDateTime(e.createdAt, t),
    html`${e.actor.label} <span class="muted">(${a.actorType[e.actor.type] ?? e.actor.type})</span>`,
    html`<code>${e.action}</code>${e.livemode ? '' : html` ${badge(a.test, 'warn')}`}`,
    html`<span class="muted">${e.target.type}</span> <code>${e.target.id ?? '—'}</code>`,
    e.ip ?? '—',
    html`<span class="muted">${detailsText(e.details)}</span>`,
  ]);
  return layout(ctx, {
    title: a.title,
    active: 'audit',
    body: html`<p>${a.intro} ${a.retention(o.retentionDays)}</p>${formError(o.error, t)}${filters}${section(
      a.title,
      html`${table({ caption: a.title, head: [a.when, a.actor, a.action, a.target, a.from, a.details], rows, empty: a.none })}${pager({
        path: '/settings/audit',
        query,
        iterator: o.iterator,
        t,
        onFirst: o.onFirst,
      })}`,
      { id: 'events', actions: linkButton(`/settings/audit.csv${qs ? `?${qs}` : ''}`, a.exportCsv, 'secondary') },
    )}`,
  });
}
