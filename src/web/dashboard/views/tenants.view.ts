import type { CredentialStatus } from '../../../modules/credentials/index.ts';
import type { Tenant } from '../../../modules/tenants/index.ts';
import { field as fileField } from '../../shared/forms.ts';
import { html, type SafeHtml } from '../../shared/html.ts';
import type { Messages } from '../i18n/index.ts';
import type { FolioStock } from '../pages/issuing.ts';
import {
  badge,
  copyable,
  csrfInput,
  dl,
  field,
  formError,
  linkButton,
  notice,
  pager,
  labelled,
  postButton,
  problemFor,
  rut,
  section,
  select,
  submit,
  table,
} from '../ui/components.ts';
import { daysUntil, formatDate, formatDateTime, formatNumber } from '../ui/format.ts';
import { layout, type PageContext } from '../ui/layout.ts';
import type { FormProblem } from './auth.view.ts';

export type TenantForm = Partial<
  Record<
    | 'rutEmpresa'
    | 'razonSocial'
    | 'giro'
    | 'direccion'
    | 'comuna'
    | 'ciudad'
    | 'numeroResolucion'
    | 'fechaResolucion'
    | 'acteco'
    | 'ambiente'
    | 'provider'
    | 'email',
    string
  >
>;

export const tenantForm = (t: Tenant): TenantForm => ({
  rutEmpresa: t.rutEmpresa,
  razonSocial: t.razonSocial,
  giro: t.giro,
  direccion: t.direccion,
  comuna: t.comuna,
  ciudad: t.ciudad,
  numeroResolucion: String(t.numeroResolucion),
  fechaResolucion: t.fechaResolucion,
  acteco: t.acteco.join(', '),
  ambiente: t.ambiente,
  provider: t.provider,
  email: t.email ?? '',
});

export const tenantStatus = (tenant: Tenant, t: Messages): SafeHtml =>
  badge(t.tenant.statusLabel[tenant.status] ?? tenant.status, tenant.status === 'active' ? 'ok' : 'warn');

export const credentialBadges = (tenant: Tenant, t: Messages): SafeHtml =>
  html`${
    tenant.provider === 'sii'
      ? badge(t.tenant.providerLabel.sii ?? 'sii', 'neutral')
      : badge(
          `${t.tenant.apiKey}: ${tenant.credentials.apiKey.configured ? t.common.yes : t.common.no}`,
          tenant.credentials.apiKey.configured ? 'ok' : 'neutral',
        )
  } ${badge(
    `${t.tenant.certificates}: ${tenant.credentials.certificate.configured ? t.common.yes : t.common.no}`,
    tenant.credentials.certificate.configured ? 'ok' : 'neutral',
  )}`;

/**
 * How a company sends, as the page says it: in test mode always the built-in emulator, whatever the
 * company's provider (docs/dashboard.md "Test mode"), so the page never suggests a test document
 * reaches the SII.
 */
export const providerShown = (ctx: PageContext, provider: string): string =>
  ctx.mode === 'test' ? ctx.t.testMode.provider : (ctx.t.tenant.providerLabel[provider] ?? provider);

export function tenantsListView(
  ctx: PageContext,
  o: { tenants: Tenant[]; iterator: string | null; onFirst: boolean; flash?: string | undefined },
): string {
  const t = ctx.t;
  return layout(ctx, {
    title: t.tenant.listTitle,
    active: 'tenants',
    flash: o.flash ? notice(o.flash) : '',
    body: html`<p>${linkButton('/tenants/new', t.tenant.newTitle)}</p>
${section(
  t.tenant.listTitle,
  html`${table({
    caption: t.tenant.listTitle,
    head: [t.tenant.razonSocial, t.tenant.rutEmpresa, t.common.status, t.tenant.credentials, t.common.createdAt],
    empty: t.tenant.noTenantsYet,
    rows: o.tenants.map((x) => [
      html`<a href="/tenants/${x.id}">${x.razonSocial}</a>`,
      rut(x.rutEmpresa),
      tenantStatus(x, t),
      credentialBadges(x, t),
      formatDateTime(x.createdAt, t),
    ]),
  })}${pager({ path: '/tenants', query: {}, iterator: o.iterator, t, onFirst: o.onFirst })}`,
  { id: 'tenants' },
)}`,
  });
}

function tenantFields(ctx: PageContext, v: TenantForm, error: FormProblem | readonly FormProblem[] | undefined): SafeHtml {
  const t = ctx.t;
  const err = (p: string) => problemFor(error, p);
  const f = (name: keyof TenantForm, label: string, extra: Partial<Parameters<typeof field>[0]> = {}) =>
    field({ t, name, label, value: v[name], required: true, error: err(name), ...extra });
  return html`<div class="cols">
${f('rutEmpresa', t.tenant.rutEmpresa, { hint: t.tenant.rutHint, maxlength: 12 })}
${f('razonSocial', t.tenant.razonSocial, { maxlength: 100, autocomplete: 'organization' })}
${f('giro', t.tenant.giro, { maxlength: 80 })}
${f('direccion', t.tenant.direccion, { maxlength: 70, autocomplete: 'street-address' })}
${f('comuna', t.tenant.comuna, { maxlength: 20 })}
${f('ciudad', t.tenant.ciudad, { maxlength: 20 })}
${f('numeroResolucion', t.tenant.numeroResolucion, { kind: 'number', maxlength: 6 })}
${f('fechaResolucion', t.tenant.fechaResolucion, { kind: 'date', hint: t.tenant.dateHint, maxlength: 10 })}
${f('acteco', t.tenant.acteco, { required: false, optionalLabel: t.common.optional, hint: t.tenant.actecoHint, maxlength: 100 })}
${select({
  name: 'ambiente',
  label: t.tenant.ambiente,
  value: v.ambiente ?? 'produccion',
  options: [
    { value: 'produccion', label: t.tenant.produccion },
    { value: 'certificacion', label: t.tenant.certificacion },
  ],
  error: err('ambiente'),
})}
${select({
  name: 'provider',
  label: t.tenant.provider,
  value: v.provider ?? 'simpleapi',
  options: [
    { value: 'simpleapi', label: t.tenant.providerLabel.simpleapi ?? 'simpleapi' },
    { value: 'sii', label: t.tenant.providerLabel.sii ?? 'sii' },
  ],
  hint: ctx.mode === 'test' ? `${t.testMode.providerHint} ${t.tenant.providerHint}` : t.tenant.providerHint,
  error: err('provider'),
})}
${f('email', t.tenant.email, { kind: 'email', required: false, optionalLabel: t.common.optional, maxlength: 80, autocomplete: 'email' })}
</div>`;
}

/** The form's fields in their order on the page, with their labels (for the error summary). */
const tenantLabels = (t: Messages) =>
  (
    [
      'rutEmpresa',
      'razonSocial',
      'giro',
      'direccion',
      'comuna',
      'ciudad',
      'numeroResolucion',
      'fechaResolucion',
      'acteco',
      'ambiente',
      'provider',
      'email',
    ] as const
  ).map((k) => [k, t.tenant[k]] as const);

export function tenantFormView(
  ctx: PageContext,
  o: { tenant?: Tenant; form: TenantForm; error?: FormProblem | readonly FormProblem[] },
): string {
  const t = ctx.t;
  const action = o.tenant ? `/tenants/${o.tenant.id}/edit` : '/tenants/new';
  return layout(ctx, {
    title: o.tenant ? `${t.tenant.editTitle}: ${o.tenant.razonSocial}` : t.tenant.newTitle,
    active: 'tenants',
    body: html`${formError(labelled(o.error, tenantLabels(t)), t)}<form method="post" action="${action}" class="card" novalidate>${csrfInput(ctx.csrf)}${tenantFields(ctx, o.form, o.error)}
<div class="actions">${submit(o.tenant ? t.common.save : t.tenant.create)} <a href="${o.tenant ? `/tenants/${o.tenant.id}` : '/tenants'}">${t.common.cancel}</a></div></form>`,
  });
}

export interface LinkStatus {
  state: string;
  expiresAt: string | null;
}

const LINK_TONE: Record<string, 'ok' | 'warn' | 'bad' | 'neutral' | 'info'> = {
  none: 'neutral',
  pending: 'info',
  expired: 'warn',
  invalidated: 'neutral',
  completed: 'ok',
};

export function folioTable(stock: FolioStock[], t: Messages): SafeHtml {
  return table({
    caption: t.folios.title,
    head: [t.folios.tipoDte, t.folios.disponibles, t.folios.usados, t.folios.total, t.folios.threshold],
    numeric: [1, 2, 3, 4],
    empty: t.overview.noFolios,
    rows: stock.map((s) => [
      `${s.tipoDte} · ${t.dte.tipos[s.tipoDte] ?? ''}`,
      html`${formatNumber(s.disponibles, t)}${s.disponibles < s.lowThreshold ? html` ${badge(t.overview.lowStock, 'bad')}` : ''}`,
      formatNumber(s.usados, t),
      formatNumber(s.total, t),
      formatNumber(s.lowThreshold, t),
    ]),
  });
}

export function tenantView(
  ctx: PageContext,
  o: {
    tenant: Tenant;
    credentials: CredentialStatus;
    link: LinkStatus;
    newLink?: { url: string; expiresAt: string };
    folios: FolioStock[];
    now: Date;
    flash?: string | undefined;
    /** The logo printed on the documents (its updatedAt busts the browser cache), and an upload's error. */
    logo?: { updatedAt: string } | null;
    logoError?: { message: string; param?: string | undefined } | undefined;
  },
): string {
  const t = ctx.t;
  const x = o.tenant;
  const c = o.credentials;
  const logoBlock = html`${
    o.logo
      ? html`<p><img class="logo-preview" src="/tenants/${x.id}/logo?v=${encodeURIComponent(o.logo.updatedAt)}" alt="${t.tenant.logoAlt(x.razonSocial)}"></p>`
      : html`<p class="muted">${t.tenant.logoNone}</p>`
  }<form method="post" action="/tenants/${x.id}/logo" enctype="multipart/form-data">${csrfInput(ctx.csrf)}${fileField({
    name: 'logo',
    label: t.tenant.logoFile,
    type: 'file',
    accept: 'image/png,image/jpeg',
    required: true,
    hint: t.tenant.logoHelp,
    ...(o.logoError ? { error: o.logoError.message } : {}),
    errorPrefix: t.common.errorPrefix,
  })}<p class="row">${submit(t.tenant.logoUpload, 'secondary')}</p></form>${
    o.logo ? linkButton(`/tenants/${x.id}/logo/delete`, t.tenant.logoRemove, 'danger') : ''
  }`;
  const certs = table({
    caption: t.tenant.certificates,
    head: [t.tenant.holder, t.tenant.rutCertificado, t.tenant.expires, t.tenant.principal],
    empty: t.tenant.noCertificates,
    rows: c.certificates.map((cert) => {
      const days = daysUntil(cert.fechaVencimiento, o.now);
      return [
        cert.nombreTitular,
        rut(cert.rutCertificado),
        html`${formatDate(cert.fechaVencimiento, t)} ${badge(t.tenant.expiresIn(days), days < 0 ? 'bad' : days <= 30 ? 'warn' : 'ok')}`,
        // No button for an expired certificate: it cannot sign (the service refuses it too).
        cert.esPrincipal
          ? t.common.yes
          : days < 0
            ? t.common.no
            : html`${t.common.no} ${postButton({
                action: `/tenants/${x.id}/certificates/${cert.id}/primary`,
                label: t.tenant.makePrincipal,
                ariaLabel: t.tenant.makePrincipalFor(cert.nombreTitular, formatDate(cert.fechaVencimiento, t)),
                csrf: ctx.csrf,
              })}`,
      ];
    }),
  });
  const linkBlock = html`${
    o.newLink
      ? html`<div class="success" role="status" id="new-link"><p><strong>${t.tenant.linkReady}</strong></p>${copyable({ id: 'activation-url', label: t.tenant.activation, value: o.newLink.url, t })}<p>${t.tenant.linkExpires(
          formatDateTime(o.newLink.expiresAt, t),
        )}</p></div>`
      : ''
  }<p>${badge(t.tenant.linkState[o.link.state] ?? o.link.state, LINK_TONE[o.link.state] ?? 'neutral')}${
    o.link.state === 'pending' && o.link.expiresAt
      ? html` <span class="muted">${t.tenant.linkExpires(formatDateTime(o.link.expiresAt, t))}</span>`
      : ''
  }</p><p class="hint">${t.tenant.activationHelp}</p>${
    // A pending link may already be with the customer: replacing it goes through a confirmation.
    o.link.state === 'pending'
      ? linkButton(`/tenants/${x.id}/activation-link`, t.tenant.regenerateLink)
      : postButton({
          action: `/tenants/${x.id}/activation-link`,
          label: o.link.state === 'none' ? t.tenant.generateLink : t.tenant.regenerateLink,
          csrf: ctx.csrf,
          tone: 'primary',
        })
  }`;
  return layout(ctx, {
    title: x.razonSocial,
    active: 'tenants',
    flash: o.flash ? notice(o.flash) : '',
    body: html`<p class="row"><a href="/tenants">← ${t.tenant.listTitle}</a> ${tenantStatus(x, t)}</p>
<p class="row">${linkButton(`/tenants/${x.id}/documents`, t.tenant.documents)} ${x.ambiente === 'certificacion' ? linkButton(`/tenants/${x.id}/certification`, t.certification.link, 'secondary') : ''} ${linkButton(`/tenants/${x.id}/edit`, t.common.edit, 'secondary')}</p>
<div class="grid">
${section(
  t.tenant.credentials,
  html`${dl([
    [t.tenant.provider, providerShown(ctx, c.provider)],
    [
      t.tenant.apiKey,
      c.apiKey.configured
        ? badge(t.tenant.configured, 'ok')
        : c.apiKey.required
          ? badge(t.tenant.notConfigured, 'warn')
          : badge(t.tenant.apiKeyNotNeeded, 'neutral'),
    ],
    [t.tenant.lastVerified, c.apiKey.lastVerified ? formatDateTime(c.apiKey.lastVerified, t) : '—'],
  ])}<h3>${t.tenant.certificates}</h3>${certs}`,
  { id: 'credentials', actions: linkButton(`/tenants/${x.id}/credentials`, t.actions.credentials.manage, 'secondary') },
)}
${section(t.tenant.activation, linkBlock, { id: 'activation' })}
</div>
${section(
  t.tenant.details,
  dl([
    [t.tenant.rutEmpresa, rut(x.rutEmpresa)],
    [t.tenant.razonSocial, x.razonSocial],
    [t.tenant.giro, x.giro],
    [t.tenant.direccion, x.direccion],
    [t.tenant.comuna, x.comuna],
    [t.tenant.ciudad, x.ciudad],
    [t.tenant.numeroResolucion, String(x.numeroResolucion)],
    [t.tenant.fechaResolucion, formatDate(x.fechaResolucion, t)],
    [t.tenant.acteco, x.acteco.join(', ')],
    [t.tenant.ambiente, x.ambiente === 'certificacion' ? t.tenant.certificacion : t.tenant.produccion],
    [t.tenant.provider, providerShown(ctx, x.provider)],
    [t.tenant.email, x.email],
  ]),
  { id: 'details' },
)}
${section(t.tenant.logo, logoBlock, { id: 'logo' })}
${section(t.folios.title, folioTable(o.folios, t), {
  id: 'folios',
  actions: linkButton(`/tenants/${x.id}/folios/request`, t.actions.folios.request, 'secondary'),
})}`,
  });
}
