import { html, type SafeHtml } from './html.ts';

/**
 * Accessible form pieces: every input has a visible label; hints and errors are tied to it with
 * aria-describedby; an invalid field gets aria-invalid and its message right above it, and the
 * first invalid field gets autofocus (the only way to move focus without JavaScript).
 */
export interface FieldOptions {
  name: string;
  label: string;
  id?: string;
  type?: 'text' | 'password' | 'file' | 'email' | 'date';
  value?: string;
  hint?: string;
  error?: string;
  required?: boolean;
  autocomplete?: string;
  autofocus?: boolean;
  accept?: string;
  inputmode?: string;
  maxlength?: number;
  /** Prefix read by screen readers before an error message. */
  errorPrefix?: string;
}

export function field(o: FieldOptions): SafeHtml {
  const id = o.id ?? `f-${o.name}`;
  const describedBy = [o.hint ? `${id}-hint` : '', o.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<div class="field${o.error ? ' field-error' : ''}">
<label for="${id}">${o.label}</label>
${o.hint ? html`<p class="hint" id="${id}-hint">${o.hint}</p>` : ''}
${o.error ? html`<p class="error-message" id="${id}-error"><span class="visually-hidden">${o.errorPrefix ?? 'Error:'} </span>${o.error}</p>` : ''}
<input id="${id}" name="${o.name}" type="${o.type ?? 'text'}"${o.value !== undefined && o.type !== 'password' && o.type !== 'file' ? html` value="${o.value}"` : ''}${o.required ? html` required` : ''}${o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''}${o.accept ? html` accept="${o.accept}"` : ''}${o.inputmode ? html` inputmode="${o.inputmode}"` : ''}${o.maxlength ? html` maxlength="${String(o.maxlength)}"` : ''}${describedBy ? html` aria-describedby="${describedBy}"` : ''}${o.error ? html` aria-invalid="true"` : ''}${o.autofocus ? html` autofocus` : ''} spellcheck="false" autocapitalize="off">
</div>`;
}

/** A summary of the errors at the top of a form, each linking to its field. */
export function errorSummary(title: string, items: { fieldId: string; message: string }[]): SafeHtml | '' {
  if (items.length === 0) return '';
  return html`<div class="error-summary" role="alert" aria-labelledby="error-summary-title">
<h2 id="error-summary-title">${title}</h2>
<ul>${items.map((i) => html`<li><a href="#${i.fieldId}">${i.message}</a></li>`)}</ul>
</div>`;
}

export const csrfInput = (token: string): SafeHtml => html`<input type="hidden" name="_csrf" value="${token}">`;

export const button = (label: string, opts: { secondary?: boolean; name?: string; value?: string } = {}): SafeHtml =>
  html`<button type="submit" class="button${opts.secondary ? ' button-secondary' : ''}"${opts.name ? html` name="${opts.name}" value="${opts.value ?? ''}"` : ''}>${label}</button>`;
