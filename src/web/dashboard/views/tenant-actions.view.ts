import type { CredentialStatus } from '../../../modules/credentials/index.ts';
import type { FolioRequest } from '../../../modules/folios/index.ts';
import type { Tenant } from '../../../modules/tenants/index.ts';
import { field as fileField } from '../../shared/forms.ts';
import { html } from '../../shared/html.ts';
import { TIPOS_DTE, type FolioStock } from '../pages/issuing.ts';
import type { FormProblem } from '../ui/actions.ts';
import { badge, csrfInput, dl, field, formError, notice, section, select, submit, table } from '../ui/components.ts';
import { formatDate, formatDateTime } from '../ui/format.ts';
import { layout, type PageContext } from '../ui/layout.ts';
import { folioTable, providerShown } from './tenants.view.ts';

/** The company's actions on their own pages (issue 18): request folios, upload credentials. */

const errFor = (e: FormProblem | undefined, param: string) => (e?.param === param ? e.message : undefined);
const tipoLabel = (n: number, t: PageContext['t']) => `${n} · ${t.dte.tipos[n] ?? ''}`;

export function folioRequestView(
  ctx: PageContext,
  o: {
    tenant: Tenant;
    stock: FolioStock[];
    form: { tipoDte?: string; cantidad?: string };
    maxCantidad: number;
    ready: boolean;
    /** The request just made (after the redirect), to say how it went. */
    request?: FolioRequest | undefined;
    error?: FormProblem | undefined;
    /** The form's one-time token (http/form-once.ts): submitted twice, it asks the SII once. */
    formToken: string;
  },
): string {
  const t = ctx.t;
  const a = t.actions.folios;
  const r = o.request;
  const flash = !r
    ? ''
    : r.status === 'completed' && r.rango
      ? notice(a.completed(tipoLabel(r.tipoDte, t), r.rango.desde, r.rango.hasta))
      : r.status === 'pending'
        ? notice(a.pending(tipoLabel(r.tipoDte, t)), 'info')
        : notice(a.failed(r.error?.message ?? ''), 'bad');
  const form = html`${formError(o.error, t)}<form method="post" action="/tenants/${o.tenant.id}/folios/request" class="card" novalidate>${csrfInput(ctx.csrf)}<input type="hidden" name="formToken" value="${o.formToken}">
<p>${a.intro}</p>
${o.ready ? '' : notice(a.notReady, 'warn')}
<div class="cols">
${select({
  name: 'tipoDte',
  label: t.folios.tipoDte,
  // The first type of the catalogue (the factura) is preselected.
  value: o.form.tipoDte ?? String(TIPOS_DTE[0]),
  options: TIPOS_DTE.map((n) => ({ value: String(n), label: tipoLabel(n, t) })),
  error: errFor(o.error, 'tipoDte'),
})}
${field({ t, name: 'cantidad', label: a.cantidad, kind: 'number', value: o.form.cantidad ?? '50', required: true, hint: a.cantidadHint(o.maxCantidad), error: errFor(o.error, 'cantidad'), maxlength: 4 })}
</div>
<div class="actions">${submit(a.submit)} <a href="/tenants/${o.tenant.id}#folios">${t.common.cancel}</a></div></form>`;
  return layout(ctx, {
    title: a.requestTitle(o.tenant.razonSocial),
    active: 'tenants',
    flash,
    body: html`<p><a href="/tenants/${o.tenant.id}">← ${o.tenant.razonSocial}</a></p>${form}
${section(t.folios.title, html`<p class="hint">${a.stockHint}</p>${folioTable(o.stock, t)}`, { id: 'folios' })}`,
  });
}

export function credentialsView(
  ctx: PageContext,
  o: {
    tenant: Tenant;
    status: CredentialStatus;
    form: { rutCertificado?: string; nombreTitular?: string; fechaVencimiento?: string; esPrincipal?: boolean };
    flash?: string | undefined;
    apiKeyError?: FormProblem | undefined;
    certificateError?: FormProblem | undefined;
    maxBytes: number;
  },
): string {
  const t = ctx.t;
  const a = t.actions.credentials;
  const x = o.tenant;
  const s = o.status;
  const apiKeyForm = html`${dl([
    [t.tenant.provider, providerShown(ctx, s.provider)],
    [
      t.tenant.apiKey,
      s.apiKey.configured
        ? badge(t.tenant.configured, 'ok')
        : s.apiKey.required
          ? badge(t.tenant.notConfigured, 'warn')
          : badge(t.tenant.apiKeyNotNeeded, 'neutral'),
    ],
    [t.tenant.lastVerified, s.apiKey.lastVerified ? formatDateTime(s.apiKey.lastVerified, t) : '—'],
  ])}${formError(o.apiKeyError, t)}<form method="post" action="/tenants/${x.id}/credentials/api-key" class="action-form" novalidate>${csrfInput(ctx.csrf)}
${fileField({ name: 'apiKey', label: a.apiKey, type: 'password', required: true, autocomplete: 'off', hint: a.apiKeyHint, maxlength: 512, ...(errFor(o.apiKeyError, 'apiKey') ? { error: errFor(o.apiKeyError, 'apiKey')! } : {}), errorPrefix: t.common.errorPrefix })}
<p class="row">${submit(a.apiKeySave)}</p></form>`;
  const certErr = (p: string) => errFor(o.certificateError, p);
  const certs = table({
    caption: t.tenant.certificates,
    head: [t.tenant.holder, t.tenant.rutCertificado, t.tenant.expires, t.tenant.principal],
    empty: t.tenant.noCertificates,
    rows: s.certificates.map((c) => [
      c.nombreTitular,
      c.rutCertificado,
      formatDate(c.fechaVencimiento, t),
      c.esPrincipal ? t.common.yes : t.common.no,
    ]),
  });
  const certificateForm = html`${certs}${formError(o.certificateError, t)}<form method="post" action="/tenants/${x.id}/credentials/certificate" enctype="multipart/form-data" class="action-form" novalidate>${csrfInput(ctx.csrf)}
${fileField({ name: 'file', label: a.file, type: 'file', accept: '.pfx,.p12,application/x-pkcs12', required: true, hint: a.fileHint(Math.floor(o.maxBytes / 1024)), ...(certErr('file') ? { error: certErr('file')! } : {}), errorPrefix: t.common.errorPrefix })}
${fileField({ name: 'password', label: a.password, type: 'password', required: true, autocomplete: 'off', maxlength: 256, ...(certErr('password') ? { error: certErr('password')! } : {}), errorPrefix: t.common.errorPrefix })}
<div class="cols">
${field({ t, name: 'rutCertificado', label: a.rutCertificado, value: o.form.rutCertificado, required: true, hint: a.rutHint, maxlength: 12, error: certErr('rutCertificado') })}
${field({ t, name: 'nombreTitular', label: a.nombreTitular, value: o.form.nombreTitular, required: true, maxlength: 100, error: certErr('nombreTitular') })}
${field({ t, name: 'fechaVencimiento', label: a.fechaVencimiento, kind: 'date', value: o.form.fechaVencimiento, required: true, hint: a.fechaHint, maxlength: 10, error: certErr('fechaVencimiento') })}
</div>
<div class="field"><ul class="checks"><li><input type="checkbox" id="f-esPrincipal" name="esPrincipal" value="true"${o.form.esPrincipal ? html` checked` : ''}> <label for="f-esPrincipal">${a.esPrincipal}</label></li></ul></div>
<p class="row">${submit(a.certificateSave)}</p></form>`;
  return layout(ctx, {
    title: a.title(x.razonSocial),
    active: 'tenants',
    flash: o.flash ? notice(o.flash) : '',
    body: html`<p><a href="/tenants/${x.id}#credentials">← ${x.razonSocial}</a></p><p>${a.intro}</p>
<div class="grid">
${section(a.apiKeyTitle, apiKeyForm, { id: 'api-key' })}
${section(a.certificateTitle, certificateForm, { id: 'certificate' })}
</div>`,
  });
}
