import type { Message } from '../../../modules/webhooks/index.ts';
import type { Tenant } from '../../../modules/tenants/index.ts';
import { html } from '../../shared/html.ts';
import type { DteRecord, FolioStock } from '../pages/issuing.ts';
import { badge, linkButton, rut, section, table } from '../ui/components.ts';
import { formatAmount, formatDateTime, formatNumber } from '../ui/format.ts';
import { layout, type PageContext } from '../ui/layout.ts';
import { dteStatus, tipoLabel } from './documents.view.ts';
import { tenantStatus } from './tenants.view.ts';
import { messageStatus } from './webhook-logs.view.ts';

export interface OverviewData {
  tenants: Tenant[];
  moreTenants: boolean;
  folios: { tenant: Tenant; stock: FolioStock }[];
  documents: { tenant: Tenant; dte: DteRecord }[];
  failures: Message[];
}

export function overviewView(ctx: PageContext, d: OverviewData): string {
  const t = ctx.t;
  const tenantName = (x: Tenant) => html`<a href="/tenants/${x.id}">${x.razonSocial}</a>`;
  const tenants = d.tenants.length
    ? html`${table({
        caption: t.overview.tenants,
        head: [t.tenant.razonSocial, t.tenant.rutEmpresa, t.common.status, t.tenant.credentials],
        empty: t.overview.noTenants,
        rows: d.tenants.map((x) => [
          tenantName(x),
          rut(x.rutEmpresa),
          tenantStatus(x, t),
          x.credentials.ready ? badge(t.overview.ready, 'ok') : badge(t.overview.notReady, 'warn'),
        ]),
      })}${d.moreTenants ? html`<p><a href="/tenants">${t.tenant.listTitle} →</a></p>` : ''}`
    : html`<p class="empty">${t.overview.noTenants}</p><p>${linkButton('/tenants/new', t.overview.createFirst)}</p>`;
  const folios = table({
    caption: t.overview.folios,
    head: [t.overview.tenant, t.folios.tipoDte, t.folios.disponibles, t.folios.threshold],
    numeric: [2, 3],
    empty: t.overview.noFolios,
    rows: d.folios.map(({ tenant, stock }) => [
      tenantName(tenant),
      tipoLabel(stock.tipoDte, t),
      html`${formatNumber(stock.disponibles, t)}${stock.disponibles < stock.lowThreshold ? html` ${badge(t.overview.lowStock, 'bad')}` : ''}`,
      formatNumber(stock.lowThreshold, t),
    ]),
  });
  const documents = table({
    caption: t.overview.recentDocuments,
    head: [t.overview.tenant, t.dte.tipo, t.dte.folio, t.dte.montoTotal, t.common.status],
    numeric: [2, 3],
    empty: t.overview.noDocuments,
    rows: d.documents.map(({ tenant, dte }) => [
      tenantName(tenant),
      tipoLabel(dte.tipoDte, t),
      html`<a href="/tenants/${tenant.id}/documents/${dte.id}">${String(dte.folio)}</a>`,
      formatAmount(dte.montoTotal, dte.exportacion?.moneda),
      dteStatus(dte.status, t),
    ]),
  });
  const failures = table({
    caption: t.overview.recentFailures,
    head: [t.logs.attemptedAt, t.logs.event, t.common.status, t.logs.code],
    empty: t.overview.noFailures,
    rows: d.failures.map((m) => {
      const last = [...m.attempts].reverse().find((a) => a.status === 'failed');
      return [
        html`<a href="/logs/webhooks/${m.id}">${formatDateTime(last?.attemptedAt ?? m.createdAt, t)}</a>`,
        html`<code>${m.eventType}</code>`,
        messageStatus(m.status, t),
        last?.responseStatusCode === null || last === undefined ? (last?.error ?? '—') : String(last.responseStatusCode),
      ];
    }),
  });
  return layout(ctx, {
    title: t.overview.title,
    active: 'overview',
    body: html`${section(t.overview.tenants, tenants, { id: 'overview-tenants' })}
<div class="grid">${section(t.overview.folios, folios, { id: 'overview-folios' })}${section(t.overview.recentFailures, failures, { id: 'overview-failures' })}</div>
${section(t.overview.recentDocuments, documents, { id: 'overview-documents' })}`,
  });
}
