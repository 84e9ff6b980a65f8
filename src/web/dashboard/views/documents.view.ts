import type { Delivery, MailboxMessage } from '../../../modules/exchange/index.ts';
import type { Tenant } from '../../../modules/tenants/index.ts';
import { html, type SafeHtml } from '../../shared/html.ts';
import type { Messages } from '../i18n/index.ts';
import { DTE_STATUSES, isCedibleType, RUT_ANONYMOUS, TIPOS_DTE, type DteHistoryEntry, type DteRecord } from '../pages/issuing.ts';
import { filterQuery, type DocumentFilters } from '../pages/document-filters.ts';
import type { FormProblem } from '../ui/actions.ts';
import { badge, dl, field, formError, linkButton, pager, rut, section, select, submit, table, type Tone } from '../ui/components.ts';
import { formatAmount, formatDate, formatDateTime, formatNumber, formatUnitPrice } from '../ui/format.ts';
import { layout, type PageContext } from '../ui/layout.ts';
import { deliveriesSection } from './mailbox.view.ts';

const STATUS_TONE: Record<string, Tone> = {
  created: 'neutral',
  sending: 'info',
  sent: 'info',
  accepted: 'ok',
  accepted_with_objections: 'warn',
  rejected: 'bad',
  send_failed: 'bad',
};

export const dteStatus = (status: string, t: Messages): SafeHtml =>
  badge(t.dte.statusLabel[status] ?? status, STATUS_TONE[status] ?? 'neutral');
export const tipoLabel = (tipo: number, t: Messages): string => `${tipo} · ${t.dte.tipos[tipo] ?? ''}`;

/** A boleta's anonymous receptor (66.666.666-6) is the consumidor final, not a RUT to read. */
function receptorName(d: DteRecord, t: PageContext['t']): string {
  if (!d.receptor || d.receptor.rut === RUT_ANONYMOUS) return t.dte.consumidorFinal;
  return d.receptor.razonSocial ?? d.receptor.rut;
}

export function documentsView(
  ctx: PageContext,
  o: {
    tenant: Tenant;
    documents: DteRecord[];
    filters: DocumentFilters;
    /** Malformed filters, each shown beside its field (no list is read for them). */
    problems?: readonly FormProblem[];
    iterator: string | null;
    onFirst: boolean;
  },
): string {
  const t = ctx.t;
  const s = t.actions.search;
  const base = `/tenants/${o.tenant.id}/documents`;
  const f = o.filters;
  const problem = (p: string) => o.problems?.find((x) => x.param === p)?.message;
  const query = filterQuery(f);
  const qs = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => !!e[1])).toString();
  const searching = qs !== '';
  const filters = html`${formError(o.problems?.[0], t)}<form method="get" action="${base}" class="filters" role="search" aria-label="${s.title}">
${select({ name: 'status', label: t.common.status, value: f.status, options: [{ value: '', label: t.dte.anyStatus }, ...DTE_STATUSES.map((x) => ({ value: x, label: t.dte.statusLabel[x] ?? x }))] })}
${select({ name: 'tipoDte', label: t.dte.tipo, value: f.tipoDte, options: [{ value: '', label: t.dte.anyType }, ...TIPOS_DTE.map((n) => ({ value: String(n), label: tipoLabel(n, t) }))] })}
${field({ t, name: 'folio', label: s.folio, kind: 'number', value: f.folio, maxlength: 15, error: problem('folio') })}
${field({ t, name: 'receptorRut', label: s.receptorRut, value: f.receptorRut, maxlength: 12, error: problem('receptorRut') })}
${field({ t, name: 'desde', label: s.desde, kind: 'date', value: f.desde, maxlength: 10, error: problem('desde') })}
${field({ t, name: 'hasta', label: s.hasta, kind: 'date', value: f.hasta, maxlength: 10, error: problem('hasta') })}
<div class="row">${submit(t.common.filter, 'secondary')}${searching ? html` <a href="${base}">${s.clear}</a>` : ''}</div></form>`;
  const exportLink = linkButton(`${base}.csv${qs ? `?${qs}` : ''}`, s.exportCsv, 'secondary');
  const body = html`${filters}${section(
    t.tenant.documents,
    html`${table({
      caption: t.tenant.documents,
      head: [t.dte.tipo, t.dte.folio, t.dte.fecha, t.dte.receptor, t.dte.montoTotal, t.common.status],
      numeric: [1, 4],
      empty: t.dte.none,
      rows: o.documents.map((d) => [
        tipoLabel(d.tipoDte, t),
        html`<a href="${base}/${d.id}">${String(d.folio)}</a>`,
        formatDate(d.fechaEmision, t),
        receptorName(d, t),
        formatAmount(d.montoTotal, d.exportacion?.moneda),
        dteStatus(d.status, t),
      ]),
    })}${pager({ path: base, query, iterator: o.iterator, t, onFirst: o.onFirst })}`,
    {
      id: 'documents',
      actions: o.problems?.length ? '' : html`<span class="row"><span class="hint">${s.exportHint}</span>${exportLink}</span>`,
    },
  )}`;
  return layout(ctx, {
    title: t.dte.listTitle(o.tenant.razonSocial),
    active: 'tenants',
    body: html`<p><a href="/tenants/${o.tenant.id}">← ${o.tenant.razonSocial}</a></p>${body}`,
  });
}

export function documentView(
  ctx: PageContext,
  o: {
    tenant: Tenant;
    dte: DteRecord;
    history: DteHistoryEntry[];
    deliveries: Delivery[];
    mailbox: Map<string, MailboxMessage>;
    /** The outcome of an action (issue 18), and the actions the document allows (views/document-actions.view.ts). */
    flash?: unknown;
    actions?: unknown;
  },
): string {
  const t = ctx.t;
  const d = o.dte;
  const base = `/tenants/${o.tenant.id}/documents`;
  const r = d.receptor;
  const moneda = d.exportacion?.moneda;
  return layout(ctx, {
    title: t.dte.viewTitle(t.dte.tipos[d.tipoDte] ?? String(d.tipoDte), d.folio),
    active: 'tenants',
    flash: o.flash,
    body: html`<p><a href="${base}">← ${t.dte.listTitle(o.tenant.razonSocial)}</a></p>
<p class="row">${dteStatus(d.status, t)} ${linkButton(`${base}/${d.id}/pdf`, t.dte.pdfCarta)} ${linkButton(`${base}/${d.id}/pdf?formato=80mm`, t.dte.pdfRoll, 'secondary')} ${
      isCedibleType(d.tipoDte) ? linkButton(`${base}/${d.id}/pdf?cedible=true`, t.dte.pdfCedible, 'secondary') : ''
    } ${linkButton(`${base}/${d.id}/xml`, t.dte.downloadXml, 'secondary')}</p>
${o.actions ?? ''}
<div class="grid">
${section(
  t.dte.montoTotal,
  dl([
    [t.dte.tipo, tipoLabel(d.tipoDte, t)],
    [t.dte.folio, String(d.folio)],
    [t.dte.fecha, formatDate(d.fechaEmision, t)],
    [t.dte.montoNeto, formatAmount(d.montoNeto, moneda)],
    [t.dte.montoExento, formatAmount(d.montoExento, moneda)],
    [t.dte.iva, formatAmount(d.iva, moneda)],
    [t.dte.montoTotal, html`<strong>${formatAmount(d.montoTotal, moneda)}</strong>`],
  ]),
  { id: 'amounts' },
)}
${section(
  t.dte.receptor,
  dl([
    ['RUT', r.rut === RUT_ANONYMOUS ? html`${rut(r.rut)} (${t.dte.consumidorFinal})` : rut(r.rut)],
    [t.tenant.razonSocial, r.razonSocial],
    [t.tenant.giro, r.giro],
    [t.tenant.direccion, [r.direccion, r.comuna, r.ciudad].filter(Boolean).join(', ')],
    [t.auth.email, r.correo],
  ]),
  { id: 'receptor' },
)}
</div>
${section(
  t.dte.sii,
  dl([
    [t.dte.trackId, d.trackId ? html`<code>${d.trackId}</code>` : '—'],
    [t.common.status, dteStatus(d.status, t)],
    ['SII', d.sii.estado],
    [t.logs.response, d.sii.glosa],
  ]),
  { id: 'sii' },
)}
${section(
  t.dte.items,
  table({
    caption: t.dte.items,
    head: [t.dte.item, t.dte.cantidad, t.dte.precio, t.dte.monto],
    numeric: [1, 2, 3],
    empty: '—',
    rows: d.detalle.map((l) => [
      l.nombre,
      formatNumber(l.cantidad, t),
      moneda && moneda !== 'PESO CL' ? formatAmount(l.precioUnitario, moneda) : formatUnitPrice(l.precioUnitario),
      formatAmount(l.montoItem, moneda),
    ]),
  }),
  { id: 'items' },
)}
${section(
  t.dte.history,
  table({
    caption: t.dte.history,
    head: [t.logs.attemptedAt, t.common.status, 'SII', t.dte.trackId],
    empty: '—',
    rows: o.history.map((h) => [
      formatDateTime(h.createdAt, t),
      html`${h.previousStatus ? html`${dteStatus(h.previousStatus, t)} → ` : ''}${dteStatus(h.status, t)}`,
      [h.sii.estado, h.sii.glosa].filter(Boolean).join(' — ') || '—',
      h.trackId ?? '—',
    ]),
  }),
  { id: 'history' },
)}
${deliveriesSection(o.deliveries, o.mailbox, t)}`,
  });
}
