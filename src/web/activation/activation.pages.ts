import { formatRutDotted } from '../../dte/index.ts';
import type { LinkView } from '../../modules/credentials/index.ts';
import type { StagedCertificate } from '../../modules/credentials/index.ts';
import { button, csrfInput, errorSummary, field } from '../shared/forms.ts';
import { html, type SafeHtml } from '../shared/html.ts';
import { layout } from '../shared/layout.ts';

/**
 * The hosted activation page, in Spanish (es-CL). Three screens for a usable link (the API key,
 * the certificate, its confirmation) — two for a direct tenant (provider `sii`), which needs no API
 * key —, a success screen, and one screen for every link that can no longer be used — unknown,
 * expired, replaced or already used look the same, so a guessed token learns nothing.
 */
const BRAND = 'Activación de facturación electrónica';

const dateEs = (d: Date | string) =>
  new Intl.DateTimeFormat('es-CL', { dateStyle: 'long', timeZone: 'America/Santiago' }).format(new Date(d));

const rutEs = (rut: string) => {
  try {
    return formatRutDotted(rut);
  } catch {
    return rut;
  }
};

const page = (title: string, main: SafeHtml, footer?: SafeHtml) =>
  layout({
    title: `${title} · ${BRAND}`,
    lang: 'es',
    brand: BRAND,
    main,
    skipLinkText: 'Saltar al contenido',
    footer:
      footer ??
      html`<p>Sus datos viajan cifrados y se guardan cifrados. Nunca le pediremos esta información por correo ni por teléfono.</p>`,
  });

export type StepName = 'apiKey' | 'certificate' | 'confirm';

/** The page's steps for this link: a direct tenant (provider `sii`) has no API-key step. */
export const stepsOf = (view: Pick<LinkView, 'needsApiKey'>): StepName[] =>
  view.needsApiKey ? ['apiKey', 'certificate', 'confirm'] : ['certificate', 'confirm'];

/** The step's number on this link's page (1-based), as shown and as `?paso=` takes it. */
export const stepNumber = (view: Pick<LinkView, 'needsApiKey'>, step: StepName): number => stepsOf(view).indexOf(step) + 1;

const LABEL: Record<StepName, string> = { apiKey: 'Clave API', certificate: 'Certificado digital', confirm: 'Confirmación' };

const steps = (current: StepName, view: LinkView) => {
  const done = (s: StepName) => (s === 'apiKey' ? !!view.apiKeyVerifiedAt : s === 'certificate' ? !!view.certificate : false);
  return html`<nav aria-label="Progreso"><ol class="steps">${stepsOf(view).map((s, i) => {
    const finished = done(s) && s !== current;
    return html`<li${s === current ? html` aria-current="step"` : ''}${finished ? html` class="done"` : ''}>${String(i + 1)}. ${LABEL[s]}${finished ? html`<span class="visually-hidden"> (completado)</span>` : ''}</li>`;
  })}</ol></nav>`;
};

/** "Paso 2 de 3" on this link's page. */
const stepOf = (view: LinkView, step: StepName) => `Paso ${stepNumber(view, step)} de ${stepsOf(view).length}`;

/**
 * Who asks, and for which company, on every step: a person can check both against what they
 * expect before typing a secret (a look-alike page cannot know them).
 */
const requester = (issuer: string, company: { razonSocial: string; rutEmpresa: string }) =>
  html`<div class="requester">
<p>Solicitado por <strong>${issuer || 'su proveedor del sistema de facturación'}</strong>, para la empresa <strong>${company.razonSocial}</strong> (RUT <span class="rut">${rutEs(company.rutEmpresa)}</span>).</p>
<p class="muted">Si no reconoce a quien lo solicita o no esperaba este enlace, no ingrese datos: consúltelo por un canal que ya conozca (su teléfono o correo habitual).</p>
</div>`;

const intro = (view: LinkView) =>
  html`${requester(view.issuer, view.tenant)}
<p class="muted">Este enlace es personal y de un solo uso. Vence el ${dateEs(view.expiresAt)}.</p>`;

export function apiKeyPage(o: { view: LinkView; token: string; csrf: string; error?: string }): string {
  return page(
    o.error ? 'Error: Paso 1, clave API' : 'Paso 1, clave API',
    html`${steps('apiKey', o.view)}
<div class="card">
<h1>${stepOf(o.view, 'apiKey')}: clave API del proveedor de facturación</h1>
${intro(o.view)}
<p>Para emitir documentos tributarios electrónicos en nombre de su empresa necesitamos la clave API de su cuenta en SimpleAPI y, en el paso siguiente, su certificado digital.</p>
${o.error ? errorSummary('Hay un problema', [{ fieldId: 'f-apiKey', message: o.error }]) : ''}
<form method="post" action="/activate/${o.token}/api-key">
${csrfInput(o.csrf)}
${field({
  name: 'apiKey',
  label: 'Clave API de SimpleAPI',
  type: 'password',
  hint: 'La encuentra en su cuenta de SimpleAPI. La verificaremos con el proveedor antes de guardarla.',
  required: true,
  autocomplete: 'off',
  maxlength: 512,
  ...(o.error ? { error: o.error, autofocus: true } : {}),
})}
<div class="actions">${button('Verificar y continuar')}</div>
</form>
</div>`,
  );
}

export function certificatePage(o: {
  view: LinkView;
  token: string;
  csrf: string;
  errors?: { file?: string; password?: string };
  maxKb: number;
}): string {
  const e = o.errors ?? {};
  const items = [
    ...(e.file ? [{ fieldId: 'f-file', message: e.file }] : []),
    ...(e.password ? [{ fieldId: 'f-password', message: e.password }] : []),
  ];
  const n = stepNumber(o.view, 'certificate');
  return page(
    items.length ? `Error: Paso ${n}, certificado digital` : `Paso ${n}, certificado digital`,
    html`${steps('certificate', o.view)}
<div class="card">
<h1>${stepOf(o.view, 'certificate')}: certificado digital</h1>
${intro(o.view)}
${
  o.view.needsApiKey && o.view.apiKeyVerifiedAt
    ? html`<p class="success">Clave API verificada el ${dateEs(o.view.apiKeyVerifiedAt)}. <a href="/activate/${o.token}?paso=1">Cambiar la clave API</a></p>`
    : ''
}
${
  o.view.needsApiKey
    ? ''
    : html`<p>Sus documentos se enviarán directamente al SII con su certificado digital: no necesita una clave API de un proveedor de facturación.</p>`
}
<p>Suba el certificado digital del representante (archivo .pfx o .p12) y su contraseña. Leeremos el nombre del titular, su RUT y la fecha de vencimiento para que los confirme antes de guardar.</p>
${errorSummary('Hay un problema', items)}
<form method="post" action="/activate/${o.token}/certificate" enctype="multipart/form-data">
${csrfInput(o.csrf)}
${field({
  name: 'file',
  label: 'Archivo del certificado (.pfx o .p12)',
  type: 'file',
  accept: '.pfx,.p12,application/x-pkcs12',
  hint: `Tamaño máximo: ${o.maxKb} KB.`,
  required: true,
  ...(e.file ? { error: e.file, autofocus: true } : {}),
})}
${field({
  name: 'password',
  label: 'Contraseña del certificado',
  type: 'password',
  hint: 'Déjela en blanco solo si su archivo no tiene contraseña.',
  autocomplete: 'off',
  maxlength: 256,
  ...(e.password ? { error: e.password, autofocus: !e.file } : {}),
})}
<div class="actions">${button('Leer el certificado')}</div>
</form>
</div>`,
  );
}

const certificateSummary = (c: StagedCertificate | { holderName: string; rut: string; notAfter: string }) =>
  html`<dl class="summary">
<dt>Titular</dt><dd>${c.holderName}</dd>
<dt>RUT del titular</dt><dd class="rut">${rutEs(c.rut)}</dd>
<dt>Vence el</dt><dd>${dateEs(c.notAfter)}</dd>
${'issuer' in c ? html`<dt>Emitido por</dt><dd>${/CN=([^\n]*)/.exec(c.issuer)?.[1] ?? c.issuer}</dd>` : ''}
</dl>`;

export function confirmPage(o: { view: LinkView; token: string; csrf: string; error?: string }): string {
  const c = o.view.certificate!;
  return page(
    'Confirmación',
    html`${steps('confirm', o.view)}
<div class="card">
<h1>${stepOf(o.view, 'confirm')}: revise y confirme</h1>
${intro(o.view)}
${o.error ? html`<div class="error-summary" role="alert"><h2>Hay un problema</h2><p>${o.error}</p></div>` : ''}
<h2>Certificado digital</h2>
${certificateSummary(c)}
<p>Si los datos son correctos, confirme para terminar. ${o.view.needsApiKey ? 'La clave API y el certificado quedarán guardados' : 'El certificado quedará guardado'} de forma cifrada y este enlace dejará de funcionar.</p>
<form method="post" action="/activate/${o.token}/confirm">
${csrfInput(o.csrf)}
<div class="actions">${button('Confirmar y activar')} <a href="/activate/${o.token}?paso=${String(stepNumber(o.view, 'certificate'))}">Usar otro certificado</a></div>
</form>
</div>`,
  );
}

export function successPage(o: {
  razonSocial: string;
  rutEmpresa: string;
  issuer: string;
  /** false for a direct tenant (provider `sii`): no API key was asked. */
  needsApiKey: boolean;
  certificate: { nombreTitular: string; rutCertificado: string; fechaVencimiento: string };
}): string {
  return page(
    'Activación completada',
    html`<div class="card">
<h1>Activación completada</h1>
<p class="success" role="status">Listo: las credenciales de <strong>${o.razonSocial}</strong> (RUT <span class="rut">${rutEs(o.rutEmpresa)}</span>) quedaron configuradas para <strong>${o.issuer || 'su proveedor del sistema de facturación'}</strong>. Ya puede cerrar esta página.</p>
<dl class="summary">
${o.needsApiKey ? html`<dt>Clave API</dt><dd>Verificada</dd>` : html`<dt>Envío al SII</dt><dd>Directo, con su certificado</dd>`}
<dt>Certificado</dt><dd>${o.certificate.nombreTitular} (RUT <span class="rut">${rutEs(o.certificate.rutCertificado)}</span>), vence el ${dateEs(`${o.certificate.fechaVencimiento}T12:00:00Z`)}</dd>
</dl>
<p class="muted">Este enlace ya fue usado y no volverá a funcionar.</p>
</div>`,
  );
}

const WHY_INVALID = {
  unknown: 'El enlace de activación no existe. Revise que lo haya copiado completo.',
  expired: 'El enlace de activación venció.',
  invalidated: 'El enlace de activación fue reemplazado por uno más reciente.',
  completed: 'El enlace de activación ya se usó: la activación quedó completa.',
} as const;

/** One page for every unusable link: why, and whom to ask (the sender, when the link is known). */
export function invalidLinkPage(o: { state: keyof typeof WHY_INVALID; issuer?: string | undefined }): string {
  return page(
    'Enlace no válido',
    html`<div class="card">
<h1>Este enlace ya no es válido</h1>
<p>${WHY_INVALID[o.state]}</p>
<p>${
      o.issuer
        ? html`Si necesita un enlace nuevo, pídalo a <strong>${o.issuer}</strong>, que le envió este.`
        : 'Si necesita un enlace nuevo, pídalo a la empresa que le envió este (su proveedor del sistema de facturación).'
    }</p>
</div>`,
  );
}

export function messagePage(o: { title: string; message: string; retryHref?: string }): string {
  return page(
    o.title,
    html`<div class="card">
<h1>${o.title}</h1>
<p>${o.message}</p>
${o.retryHref ? html`<p><a href="${o.retryHref}">Volver a intentarlo</a></p>` : ''}
</div>`,
  );
}
