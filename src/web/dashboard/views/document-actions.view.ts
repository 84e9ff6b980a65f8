import type { Tenant } from '../../../modules/tenants/index.ts';
import { field as sharedField } from '../../shared/forms.ts';
import { html, type SafeHtml } from '../../shared/html.ts';
import { canCredit, needsReceptor } from '../pages/credit-note.ts';
import { isExchanged, RUT_ANONYMOUS, type DteRecord } from '../pages/issuing.ts';
import { confirmBox, type FormProblem } from '../ui/actions.ts';
import { csrfInput, dl, field, formError, linkButton, section, submit, table } from '../ui/components.ts';
import { formatAmount, formatDate, formatNumber, formatUnitPrice } from '../ui/format.ts';
import { layout, type PageContext } from '../ui/layout.ts';

/** The document's actions (issue 18): send to the SII, e-mail the receptor again, issue a credit note. */

const SENDABLE = ['created', 'send_failed'];
const ACCEPTED = ['accepted', 'accepted_with_objections'];

/** The bar of buttons under the document's title, or nothing when no action applies. */
export function documentActions(ctx: PageContext, tenantId: string, d: DteRecord): SafeHtml | '' {
  const t = ctx.t;
  const a = t.actions;
  const base = `/tenants/${tenantId}/documents/${d.id}`;
  const buttons: SafeHtml[] = [];
  if (SENDABLE.includes(d.status))
    buttons.push(
      html`<form method="post" action="${base}/send" class="inline">${csrfInput(ctx.csrf)}${submit(
        d.status === 'send_failed' ? a.send.sendAgain : a.send.send,
      )}</form>`,
    );
  if (ACCEPTED.includes(d.status) && isExchanged(d.tipoDte)) buttons.push(linkButton(`${base}/resend`, a.send.resend, 'secondary'));
  if (canCredit(d)) buttons.push(linkButton(`${base}/credit-note`, a.creditNote.issue, 'secondary'));
  if (buttons.length === 0) return '';
  return html`<nav class="actions-bar" aria-label="${a.send.actions}">${buttons}</nav>`;
}

const docTitle = (d: DteRecord, t: PageContext['t']) => t.dte.viewTitle(t.dte.tipos[d.tipoDte] ?? String(d.tipoDte), d.folio);

const summary = (d: DteRecord, t: PageContext['t']) =>
  dl([
    [t.dte.tipo, `${d.tipoDte} · ${t.dte.tipos[d.tipoDte] ?? ''}`],
    [t.dte.folio, String(d.folio)],
    [t.dte.fecha, formatDate(d.fechaEmision, t)],
    [t.dte.receptor, d.receptor.rut === RUT_ANONYMOUS ? t.dte.consumidorFinal : (d.receptor.razonSocial ?? '—')],
    ['RUT', d.receptor.rut],
    [t.dte.montoTotal, formatAmount(d.montoTotal, d.exportacion?.moneda)],
  ]);

/** The confirmation step before the document is e-mailed to its receptor again (no JavaScript needed). */
export function resendView(ctx: PageContext, o: { tenant: Tenant; dte: DteRecord; to: string; error?: FormProblem | undefined }): string {
  const t = ctx.t;
  const a = t.actions.send;
  const d = o.dte;
  const base = `/tenants/${o.tenant.id}/documents/${d.id}`;
  const err = (p: string) => (o.error?.param === p ? o.error.message : undefined);
  return layout(ctx, {
    title: a.resendTitle,
    active: 'tenants',
    body: html`<p><a href="${base}">← ${docTitle(d, t)}</a></p>${formError(o.error, t)}
<form method="post" action="${base}/resend" class="card" novalidate>${csrfInput(ctx.csrf)}
<div class="confirm-summary">${summary(d, t)}</div>
<p>${a.resendIntro}</p>
${sharedField({ name: 'to', label: a.resendTo, type: 'email', value: o.to, hint: a.resendToHint, autocomplete: 'off', maxlength: 254, ...(err('to') ? { error: err('to')! } : {}), errorPrefix: t.common.errorPrefix })}
${confirmBox(t.actions.confirm.tick, t, err('confirmed'))}
<div class="actions">${submit(a.resendSubmit)} <a href="${base}">${t.common.cancel}</a></div></form>`,
  });
}

export interface CreditNoteForm {
  codRef: string;
  razonRef: string;
  lines: { cantidad: string; precio: string }[];
  rut: string;
  razonSocial: string;
}

export const creditNoteForm = (d: DteRecord): CreditNoteForm => ({
  codRef: '1',
  razonRef: '',
  lines: d.detalle.map((l) => ({
    cantidad: l.cantidad === null ? '' : String(l.cantidad),
    precio: l.precioUnitario === null ? '' : String(l.precioUnitario),
  })),
  rut: d.receptor.rut === RUT_ANONYMOUS ? '' : d.receptor.rut,
  razonSocial: d.receptor.razonSocial ?? '',
});

/** The credit note's form, prefilled from the document; its submit is the confirmation (a ticked box). */
export function creditNoteView(
  ctx: PageContext,
  o: { tenant: Tenant; dte: DteRecord; form: CreditNoteForm; formToken: string; error?: FormProblem | undefined },
): string {
  const t = ctx.t;
  const a = t.actions.creditNote;
  const d = o.dte;
  const f = o.form;
  const base = `/tenants/${o.tenant.id}/documents/${d.id}`;
  const err = (p: string) => (o.error?.param === p ? o.error.message : undefined);
  const moneda = d.exportacion?.moneda;
  const radio = (value: string, label: string) =>
    html`<li><input type="radio" id="f-codRef-${value}" name="codRef" value="${value}"${f.codRef === value ? html` checked` : ''}> <label for="f-codRef-${value}">${label}</label></li>`;
  const lineInput = (name: string, label: string, value: string) =>
    html`<label class="visually-hidden" for="f-${name}">${label}</label><input class="line-input" type="text" inputmode="decimal" id="f-${name}" name="${name}" value="${value}" maxlength="20"${err(name) ? html` aria-invalid="true"` : ''}>`;
  const lines = table({
    caption: a.lines,
    head: [t.dte.item, t.dte.cantidad, t.dte.precio, t.dte.monto, a.creditCantidad, a.creditPrecio],
    numeric: [1, 2, 3],
    empty: '—',
    rows: d.detalle.map((l, i) => [
      l.nombre,
      l.cantidad === null ? '—' : formatNumber(l.cantidad, t),
      moneda && moneda !== 'PESO CL' ? formatAmount(l.precioUnitario, moneda) : formatUnitPrice(l.precioUnitario),
      formatAmount(l.montoItem, moneda),
      lineInput(`cantidad_${i}`, a.cantidad(i + 1), f.lines[i]?.cantidad ?? ''),
      lineInput(`precio_${i}`, a.precio(i + 1), f.lines[i]?.precio ?? ''),
    ]),
  });
  const receptor = needsReceptor(d)
    ? html`<fieldset><legend>${a.receptor}</legend><div class="cols">
${field({ t, name: 'rut', label: 'RUT', value: f.rut, required: true, hint: t.tenant.rutHint, maxlength: 12, error: err('receptor.rut') ?? err('rut') })}
${field({ t, name: 'razonSocial', label: t.tenant.razonSocial, value: f.razonSocial, required: true, maxlength: 100, error: err('receptor.razonSocial') ?? err('razonSocial') })}
</div></fieldset>`
    : '';
  return layout(ctx, {
    title: a.title(t.dte.tipos[d.tipoDte] ?? String(d.tipoDte), d.folio),
    active: 'tenants',
    body: html`<p><a href="${base}">← ${docTitle(d, t)}</a></p>${formError(o.error, t)}
<form method="post" action="${base}/credit-note" class="card" novalidate>${csrfInput(ctx.csrf)}<input type="hidden" name="formToken" value="${o.formToken}">
<p>${a.intro}</p>
<div class="confirm-summary">${summary(d, t)}</div>
<fieldset class="field${err('codRef') ? ' field-error' : ''}" id="f-codRef"><legend>${a.codRef}</legend><ul class="checks">${radio('1', a.anula)}${radio('3', a.corrigeMontos)}</ul></fieldset>
${field({ t, name: 'razonRef', label: a.razonRef, value: f.razonRef, required: false, optionalLabel: t.common.optional, hint: a.razonHint, maxlength: 90, error: err('razonRef') ?? err('referencias[0].razonRef') })}
<fieldset id="lines"><legend>${a.lines}</legend><p class="hint">${a.linesHint}</p>${lines}</fieldset>
${receptor}
${confirmBox(a.confirm, t, err('confirmed'))}
<div class="actions">${submit(a.submit)} <a href="${base}">${t.common.cancel}</a></div></form>`,
  });
}

/** The documents a note references, each linked when it is one of this company's own. */
export function referencesSection(ctx: PageContext, tenantId: string, d: DteRecord, linked: ReadonlyMap<number, string>): SafeHtml | '' {
  if (d.referencias.length === 0) return '';
  const t = ctx.t;
  const a = t.actions.references;
  return section(
    a.title,
    table({
      caption: a.title,
      head: [t.dte.tipo, t.dte.folio, t.dte.fecha, a.codRef, a.razon],
      empty: '—',
      rows: d.referencias.map((r, i) => {
        const id = linked.get(i);
        const tipo = Number(r.tipoDocRef);
        return [
          t.dte.tipos[tipo] ? `${tipo} · ${t.dte.tipos[tipo]}` : r.tipoDocRef,
          id ? html`<a href="/tenants/${tenantId}/documents/${id}">${r.folioRef}</a>` : r.folioRef,
          formatDate(r.fechaRef, t),
          r.codRef ? (a.codRefLabel[r.codRef] ?? String(r.codRef)) : '—',
          r.razonRef ?? '—',
        ];
      }),
    }),
    { id: 'references' },
  );
}
