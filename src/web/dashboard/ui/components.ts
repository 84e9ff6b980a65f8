import type { Messages } from '../i18n/index.ts';
import { field as sharedField, csrfInput, errorSummary } from '../../shared/forms.ts';
import { html, type SafeHtml } from '../../shared/html.ts';

/**
 * The dashboard's page pieces, on top of the shared ones (src/web/shared: escaping, labelled
 * fields with their hints and errors, the CSRF input). Everything is built with `html`, which
 * escapes every value, so nothing read from the database can become markup.
 */
export { csrfInput };

export interface FieldOptions {
  name: string;
  label: string;
  value?: string | number | null | undefined;
  kind?: 'text' | 'email' | 'password' | 'url' | 'date' | 'number';
  required?: boolean;
  hint?: string | undefined;
  error?: string | undefined;
  autocomplete?: string;
  maxlength?: number;
  /** Appended to the label of a field that is not required, e.g. "opcional". */
  optionalLabel?: string;
  t: Messages;
}

/** A labelled input (shared/forms field); URLs and numbers are text inputs with the right keyboard. */
export function field(o: FieldOptions): SafeHtml {
  const type = o.kind === 'url' || o.kind === 'number' ? 'text' : (o.kind ?? 'text');
  return sharedField({
    name: o.name,
    label: !o.required && o.optionalLabel ? `${o.label} (${o.optionalLabel})` : o.label,
    type,
    ...(o.value !== undefined && o.value !== null ? { value: String(o.value) } : {}),
    ...(o.hint ? { hint: o.hint } : {}),
    ...(o.error ? { error: o.error } : {}),
    ...(o.required ? { required: true } : {}),
    ...(o.autocomplete ? { autocomplete: o.autocomplete } : {}),
    ...(o.maxlength ? { maxlength: o.maxlength } : {}),
    ...(o.kind === 'url' ? { inputmode: 'url' } : o.kind === 'number' ? { inputmode: 'numeric' } : {}),
    errorPrefix: o.t.common.errorPrefix,
  });
}

const fieldId = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

export function select(o: {
  name: string;
  label: string;
  options: readonly { value: string; label: string }[];
  value?: string | undefined;
  error?: string | undefined;
  hint?: string | undefined;
}): SafeHtml {
  const id = fieldId(o.name);
  const describedBy = [o.hint ? `${id}-hint` : '', o.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field${o.error ? ' field-error' : ''}"><label for="${id}">${o.label}</label>
${o.hint ? html`<p class="hint" id="${id}-hint">${o.hint}</p>` : ''}
${o.error ? html`<p class="error-message" id="${id}-error">${o.error}</p>` : ''}
<select id="${id}" name="${o.name}"${o.error ? html` aria-invalid="true"` : ''}${describedBy ? html` aria-describedby="${describedBy}"` : ''}>${o.options.map(
    (op) => html`<option value="${op.value}"${op.value === (o.value ?? '') ? html` selected` : ''}>${op.label}</option>`,
  )}</select></div>`;
}

export function checkboxes(o: {
  name: string;
  legend: string;
  hint?: string;
  options: readonly { value: string; label: string }[];
  checked: readonly string[];
  error?: string | undefined;
}): SafeHtml {
  return html`<fieldset class="field${o.error ? ' field-error' : ''}" id="${fieldId(o.name)}" tabindex="-1"${o.error ? html` aria-describedby="${fieldId(o.name)}-error"` : ''}><legend>${o.legend}</legend>${o.hint ? html`<p class="hint">${o.hint}</p>` : ''}${
    o.error ? html`<p class="error-message" id="${fieldId(o.name)}-error">${o.error}</p>` : ''
  }
<ul class="checks">${o.options.map((op, i) => {
    const id = `${fieldId(o.name)}-${i}`;
    return html`<li><input type="checkbox" id="${id}" name="${o.name}" value="${op.value}"${o.checked.includes(op.value) ? html` checked` : ''}> <label for="${id}">${op.label}</label></li>`;
  })}</ul></fieldset>`;
}

export type ButtonTone = 'primary' | 'secondary' | 'danger';
const buttonClass = (tone: ButtonTone) =>
  tone === 'primary' ? 'button' : tone === 'danger' ? 'button button-danger' : 'button button-secondary';

export const submit = (label: string, tone: ButtonTone = 'primary'): SafeHtml =>
  html`<button type="submit" class="${buttonClass(tone)}">${label}</button>`;

/** A one-button form that POSTs (with the CSRF token) to `action`. */
export function postButton(o: {
  action: string;
  label: string;
  csrf: string;
  tone?: ButtonTone;
  hidden?: Record<string, string>;
  /** Accessible name when the visible label alone is ambiguous (a button in a table row). */
  ariaLabel?: string;
}): SafeHtml {
  return html`<form method="post" action="${o.action}" class="inline">${csrfInput(o.csrf)}${Object.entries(o.hidden ?? {}).map(
    ([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`,
  )}<button type="submit" class="${buttonClass(o.tone ?? 'secondary')} button-small"${o.ariaLabel ? html` aria-label="${o.ariaLabel}"` : ''}>${o.label}</button></form>`;
}

export const linkButton = (href: string, label: string, tone: ButtonTone = 'primary'): SafeHtml =>
  html`<a class="${buttonClass(tone)}" href="${href}">${label}</a>`;

export type Tone = 'ok' | 'warn' | 'bad' | 'neutral' | 'info';
export const badge = (text: string, tone: Tone = 'neutral'): SafeHtml => html`<span class="badge badge-${tone}">${text}</span>`;

/** A value to copy (a key, a link): selectable text, plus a copy button once copy.js runs. */
export function copyable(o: { id: string; label: string; value: string; t: Messages }): SafeHtml {
  return html`<div class="copy"><label for="${o.id}" class="visually-hidden">${o.label}</label>
<input id="${o.id}" class="secret" type="text" readonly value="${o.value}" spellcheck="false" autocomplete="off">
<button type="button" class="button button-secondary button-small" data-copy="${o.id}" data-copied="${o.t.common.copied}" hidden>${o.t.common.copy}</button></div>`;
}

export function table(o: {
  caption: string;
  head: readonly unknown[];
  rows: readonly (readonly unknown[])[];
  empty: string;
  numeric?: readonly number[];
}): SafeHtml {
  if (o.rows.length === 0) return html`<p class="empty">${o.empty}</p>`;
  const num = (i: number) => (o.numeric?.includes(i) ? html` class="num"` : '');
  // A wide table scrolls inside its wrapper on a phone; the wrapper is focusable so keyboard users can scroll it.
  return html`<div class="table-wrap" role="region" aria-label="${o.caption}" tabindex="0"><table><caption class="visually-hidden">${o.caption}</caption>
<thead><tr>${o.head.map((h, i) => html`<th scope="col"${num(i)}>${h}</th>`)}</tr></thead>
<tbody>${o.rows.map((r) => html`<tr>${r.map((c, i) => html`<td${num(i)}>${c}</td>`)}</tr>`)}</tbody></table></div>`;
}

export function notice(text: unknown, tone: 'ok' | 'warn' | 'bad' | 'info' = 'ok'): SafeHtml {
  const cls = tone === 'ok' ? 'success' : tone === 'info' ? 'notice' : `notice notice-${tone}`;
  return html`<div class="${cls}" role="${tone === 'bad' ? 'alert' : 'status'}">${text}</div>`;
}

export type FormProblemLike = { message: string; param?: string | undefined; label?: string | undefined };

/**
 * A form's problems in the order of its fields, each with its field's label, for the summary at
 * the top ("Giro: Completa este campo."); problems of no listed field keep their place at the end.
 */
export function labelled(
  problems: FormProblemLike | readonly FormProblemLike[] | undefined,
  fields: readonly (readonly [name: string, label: string])[],
): FormProblemLike[] {
  const list = problems === undefined ? [] : Array.isArray(problems) ? problems : [problems as FormProblemLike];
  const index = (p: FormProblemLike) => {
    const i = fields.findIndex(([name]) => p.param === name || p.param?.startsWith(`${name}[`));
    return i < 0 ? fields.length : i;
  };
  return [...list].map((p) => ({ ...p, label: p.label ?? fields[index(p)]?.[1] })).sort((a, b) => index(a) - index(b));
}

/** The message for field `name` among a form's problems (one or several), if any. */
export function problemFor(problems: FormProblemLike | readonly FormProblemLike[] | undefined, name: string): string | undefined {
  const list = problems === undefined ? [] : Array.isArray(problems) ? problems : [problems as FormProblemLike];
  return list.find((p) => p.param === name || p.param?.startsWith(`${name}[`))?.message;
}

/**
 * The banner of a failed form submission: the shared error summary, one line per problem, each
 * linking to the field at fault when it names one (`param`), else the message alone.
 */
export function formError(err: FormProblemLike | readonly FormProblemLike[] | undefined, t: Messages): SafeHtml | '' {
  const list = err === undefined ? [] : Array.isArray(err) ? err : [err as FormProblemLike];
  if (list.length === 0) return '';
  const linked = list.map((e) => {
    const param = e.param?.replace(/\[\d+\]$/, '');
    const message = e.label ? `${e.label}: ${e.message}` : e.message;
    return { message, fieldId: param && /^[A-Za-z][A-Za-z0-9_]*$/.test(param) ? fieldId(param) : undefined };
  });
  if (linked.every((l) => l.fieldId))
    return errorSummary(
      t.common.errorTitle,
      linked.map((l) => ({ fieldId: l.fieldId!, message: l.message })),
    );
  return html`<div class="error-summary" role="alert"><h2>${t.common.errorTitle}</h2>${linked.map((l) => html`<p>${l.message}</p>`)}</div>`;
}

/** Iterator pagination: "first page" and "next page" links that keep the current filters. */
export function pager(o: {
  path: string;
  query: Record<string, string | undefined>;
  iterator: string | null;
  t: Messages;
  onFirst: boolean;
}): SafeHtml | '' {
  const href = (extra: Record<string, string | undefined>) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...o.query, ...extra })) if (v) p.set(k, v);
    const s = p.toString();
    return s ? `${o.path}?${s}` : o.path;
  };
  if (o.onFirst && !o.iterator) return '';
  return html`<nav class="pager" aria-label="${o.t.common.pages}">${o.onFirst ? '' : html`<a href="${href({ iterator: undefined })}">${o.t.common.first}</a>`}${
    o.iterator ? html`<a href="${href({ iterator: o.iterator })}" rel="next">${o.t.common.next}</a>` : ''
  }</nav>`;
}

const slug = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export const section = (title: string, body: unknown, opts: { id?: string; actions?: unknown } = {}): SafeHtml => {
  const id = opts.id ?? slug(title);
  return html`<section class="card" id="${id}" aria-labelledby="${id}-h"><div class="card-head"><h2 id="${id}-h">${title}</h2>${opts.actions ?? ''}</div>${body}</section>`;
};

export const dl = (items: readonly (readonly [string, unknown])[]): SafeHtml =>
  html`<dl class="props">${items.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v === '' || v === null || v === undefined ? '—' : v}</dd></div>`)}</dl>`;

/**
 * The message of an error in the page's language: the text of its code, or of the form rule that
 * failed (http/form.ts `details.rule`); a Spanish page never shows the service's English message.
 */
export const errorText = (err: { code: string; message: string; details?: Record<string, unknown> | undefined }, t: Messages): string => {
  const coded = t.errorCodes[err.code];
  if (coded) return coded;
  const v = t.validation;
  const d = err.details ?? {};
  const n = (k: string) => (typeof d[k] === 'number' ? (d[k] as number) : 0);
  switch (d.rule) {
    case 'required':
      return v.required;
    case 'too_long':
      return v.tooLong(n('max'));
    case 'too_many':
      return v.tooMany(n('max'));
    case 'whole_number':
      return v.wholeNumber(n('min'), n('max'));
    case 'activity_codes':
      return v.activityCodes(n('max'));
    case 'one_of':
      return v.oneOf;
  }
  if (err.code === 'body_too_large') return v.tooLarge;
  if (err.code === 'invalid_request' || err.code === 'invalid_multipart') return v.malformed;
  return t.lang === 'en' ? err.message : v.invalid;
};

/** A RUT, kept on one line (a phone would otherwise break it at the hyphen). */
export const rut = (value: string | null | undefined): SafeHtml | string => (value ? html`<span class="rut">${value}</span>` : '—');
