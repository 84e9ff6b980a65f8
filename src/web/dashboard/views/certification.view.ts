import type { BookKind, CertificationSet } from '../../../modules/certification/index.ts';
import type { Tenant } from '../../../modules/tenants/index.ts';
import { field as sharedField } from '../../shared/forms.ts';
import { html, type SafeHtml } from '../../shared/html.ts';
import {
  documentCounts,
  STAGE_ORDER,
  stageStates,
  type CaseDocument,
  type PageBook,
  type StageKey,
  type StageState,
} from '../pages/certification-stages.ts';
import type { FormProblem } from '../ui/actions.ts';
import { badge, csrfInput, field, formError, linkButton, notice, submit, table, type Tone } from '../ui/components.ts';
import { formatDateTime } from '../ui/format.ts';
import { layout, type PageContext } from '../ui/layout.ts';
import { dteStatus, tipoLabel } from './documents.view.ts';

/**
 * The certification page (issue 28; docs/dashboard.md "Certification"): the SII's stages in order,
 * each with what the service did, what the SII answered and, for those the service does, its form.
 * Stages done by hand in the SII's site say what to do; stages this service does not do yet say so.
 */
export interface CertificationPage {
  tenant: Tenant;
  /** The member may act (operator and up); read_only sees the page without forms. */
  canAct: boolean;
  /** The tenant sends straight to the SII, so its books can be sent from here. */
  directBooks: boolean;
  sets: { id: string; createdAt: string; cases: number }[];
  set: CertificationSet | null;
  documents: CaseDocument[];
  books: PageBook[];
  flash?: string | undefined;
  /** A refused form: its stage (and book), its problem. */
  error?: { stage: StageKey; kind?: BookKind | undefined; problem: FormProblem } | undefined;
  form?: { fechaEmision?: string; folioNotificacion?: string; facturaFolio?: string } | undefined;
  maxKb: number;
}

const STATE_TONE: Record<StageState, Tone> = {
  done: 'ok',
  current: 'info',
  todo: 'neutral',
  failed: 'bad',
  manual: 'warn',
  notYet: 'neutral',
};
const API_DOCS = '/docs#tag/certification';

export function certificationView(ctx: PageContext, o: CertificationPage): string {
  const t = ctx.t;
  const m = t.certification;
  const s = m.stages;
  const x = o.tenant;
  const states = stageStates({ set: o.set, documents: o.documents, books: o.books });
  const counts = documentCounts({ set: o.set, documents: o.documents, books: o.books });
  const base = `/tenants/${x.id}/certification`;
  const setQ = o.set ? `?set=${o.set.id}` : '';
  const errOf = (stage: StageKey, kind?: BookKind) =>
    o.error && o.error.stage === stage && (kind === undefined || o.error.kind === kind) ? o.error.problem : undefined;
  const stageError = (stage: StageKey) => formError(errOf(stage), t);

  const setBody = (): SafeHtml => {
    const e = errOf('set');
    const form = html`${stageError('set')}<form method="post" action="${base}/set" enctype="multipart/form-data" class="action-form" novalidate>${csrfInput(ctx.csrf)}
${sharedField({ name: 'file', label: s.set.file, type: 'file', accept: '.txt,text/plain', required: true, hint: s.set.fileHint(o.maxKb), ...(e ? { error: e.message } : {}), errorPrefix: t.common.errorPrefix })}
<p class="row">${submit(s.set.submit, o.set ? 'secondary' : 'primary')}</p></form>`;
    // Once a set is read, uploading another one is the exception: folded away unless it just failed.
    const upload = !o.canAct ? '' : o.set && !e ? html`<details><summary>${s.set.another}</summary>${form}</details>` : form;
    const read = o.set
      ? html`<p>${s.set.uploaded(o.set.cases.length, o.set.sections.length)}</p>${table({
          caption: s.set.title,
          head: [s.set.section, s.set.attention, s.set.cases],
          rows: o.set.sections.map((sec) => [sec.title, sec.attentionNumber ?? '—', String(sec.caseIds.length)]),
          empty: '',
          numeric: [2],
        })}`
      : '';
    const others = o.sets.filter((z) => z.id !== o.set?.id);
    const switcher = others.length
      ? html`<p class="row">${s.set.other}: ${others.map(
          (z) => html`<a href="${base}?set=${z.id}">${formatDateTime(z.createdAt, t)} (${String(z.cases)})</a> `,
        )}</p>`
      : '';
    return html`${read}${switcher}${upload}`;
  };

  const documentsBody = (): SafeHtml => {
    if (!o.set) return html``;
    const progress = html`<p>${s.documents.progress(counts.made, counts.cases)}</p>`;
    if (!o.canAct || counts.made === counts.cases) return progress;
    const e = errOf('documents');
    return html`${progress}${stageError('documents')}<form method="post" action="${base}/documents${setQ}" class="action-form" novalidate>${csrfInput(ctx.csrf)}<input type="hidden" name="setId" value="${o.set.id}">
${field({ t, name: 'fechaEmision', label: s.documents.fecha, kind: 'date', value: o.form?.fechaEmision, hint: s.documents.fechaHint, maxlength: 10, optionalLabel: t.common.optional, error: e?.param === 'fechaEmision' ? e.message : undefined })}
<p class="row">${submit(s.documents.submit)} ${linkButton(`/tenants/${x.id}/folios/request`, s.documents.foliosLink, 'secondary')}</p></form>`;
  };

  const sendBody = (): SafeHtml => {
    if (!o.set || counts.made === 0) return html``;
    const progress = html`<p>${s.send.progress(counts.sent, counts.cases)}</p>`;
    const sendable = o.documents.some((d) => d.status === 'created' || d.status === 'send_failed');
    if (!o.canAct || !sendable) return progress;
    return html`${progress}${stageError('send')}<form method="post" action="${base}/send${setQ}" class="action-form">${csrfInput(ctx.csrf)}<input type="hidden" name="setId" value="${o.set.id}">
<p class="row">${submit(s.send.submit)}</p></form>`;
  };

  const verdictsBody = (): SafeHtml => {
    if (!o.set || counts.made === 0) return html``;
    return html`<p>${s.verdicts.summary(counts.accepted, counts.cases, counts.rejected)}</p>${table({
      caption: s.verdicts.title,
      head: [s.verdicts.caseCol, s.verdicts.typeCol, s.verdicts.folioCol, s.verdicts.statusCol, s.verdicts.siiCol],
      empty: '',
      rows: o.documents.map((d) => [
        html`<span class="nowrap">${d.caseId}</span>`,
        d.tipoDte ? tipoLabel(d.tipoDte, t) : '—',
        d.dteId ? html`<a href="/tenants/${x.id}/documents/${d.dteId}">${String(d.folio)}</a>` : '—',
        d.status ? dteStatus(d.status, t) : badge(s.verdicts.notMade),
        [d.sii.estado, d.sii.glosa].filter(Boolean).join(' · ') || '—',
      ]),
    })}`;
  };

  const bookStatus = (b: PageBook): SafeHtml | string => {
    const env = b.envio;
    if (!env) return s.books.notSent;
    const tone: Tone = env.status === 'accepted' ? 'ok' : env.status === 'rejected' ? 'bad' : 'info';
    return html`${badge(s.books[env.status], tone)} ${env.trackId ? html`<span class="hint">Track ID ${env.trackId}</span>` : ''}`;
  };
  const bookForm = (b: PageBook): SafeHtml | '' => {
    if (!o.canAct || !o.directBooks || !b.ready || b.envio?.status === 'accepted' || b.envio?.status === 'pending') return '';
    const e = errOf('books', b.kind);
    const label = s.books.kind[b.kind] ?? b.kind;
    return html`${e ? formError(e, t) : ''}<form method="post" action="${base}/books/${b.kind}/send${setQ}" class="action-form" novalidate>${csrfInput(ctx.csrf)}<input type="hidden" name="setId" value="${o.set!.id}">
<div class="cols">
${field({ t, name: `folioNotificacion-${b.kind}`, label: s.books.folioNotificacion, value: (errOf('books', b.kind) ? o.form?.folioNotificacion : undefined) ?? (b.folioNotificacion === null ? '' : String(b.folioNotificacion)), hint: s.books.folioHint, kind: 'number', maxlength: 12, optionalLabel: t.common.optional, error: e?.param === 'folioNotificacion' ? e.message : undefined })}
${b.kind === 'guias' ? field({ t, name: 'facturaFolio', label: s.books.facturaFolio, value: o.form?.facturaFolio, hint: s.books.facturaHint, kind: 'number', maxlength: 12, optionalLabel: t.common.optional, error: e?.param === 'facturaFolio' ? e.message : undefined }) : ''}
</div>
<p class="row">${submit(s.books.send(label))}</p></form>`;
  };
  const booksBody = (): SafeHtml => {
    if (!o.set || o.books.length === 0) return html``;
    const rows = o.books.map((b) => [
      s.books.kind[b.kind] ?? b.kind,
      b.ready ? badge(s.books.ready, 'ok') : s.books.waiting(b.missingCases.join(', ') || '—'),
      bookStatus(b),
      [b.envio?.estado, b.envio?.glosa].filter(Boolean).join(' · ') || '—',
      b.ready ? html`<a href="${base}/books/${b.kind}.xml${setQ}">${s.books.xml}</a>` : '—',
    ]);
    return html`${o.directBooks ? '' : notice(s.books.manualUpload, 'info')}${table({
      caption: s.books.title,
      head: [s.books.kindCol, s.books.builtCol, s.books.sentCol, s.books.siiCol, 'XML'],
      rows,
      empty: '',
    })}${o.books.map((b) => bookForm(b))}`;
  };

  const bodies: Partial<Record<StageKey, () => SafeHtml>> = {
    set: setBody,
    documents: documentsBody,
    send: sendBody,
    verdicts: verdictsBody,
    books: booksBody,
  };
  const stage = (k: StageKey, i: number): SafeHtml => {
    const st = states[k];
    const info = s[k];
    const extra =
      st === 'manual'
        ? html`<p class="hint">${m.byHand}</p>`
        : st === 'notYet'
          ? html`<p class="hint">${m.notYetHint} <a href="${API_DOCS}">${m.apiReference}</a></p>`
          : (bodies[k]?.() ?? '');
    return html`<li><section class="card stage stage-${st}" id="stage-${k}" aria-labelledby="stage-${k}-h"><div class="card-head"><h2 id="stage-${k}-h"><span class="visually-hidden">${m.stepOf(i + 1, STAGE_ORDER.length)}: </span>${String(i + 1)}. ${info.title}</h2>${badge(m.stageState[st] ?? st, STATE_TONE[st])}</div>
<p>${info.text}</p>${extra}</section></li>`;
  };

  return layout(ctx, {
    title: m.title(x.razonSocial),
    active: 'tenants',
    flash: o.flash ? notice(o.flash) : '',
    body: html`<p><a href="/tenants/${x.id}">← ${x.razonSocial}</a></p>
<p>${m.intro}</p>
${x.ambiente === 'certificacion' ? '' : notice(m.notCertification, 'warn')}${o.canAct ? '' : notice(m.readOnly, 'info')}
<ol class="stages">${STAGE_ORDER.map((k, i) => stage(k, i))}</ol>`,
  });
}
