import { isAppError, type AppError } from '../../../errors.ts';
import { html, type SafeHtml } from '../../shared/html.ts';
import type { Messages } from '../i18n/index.ts';

/**
 * Pieces shared by the dashboard's actions (issue 18): the text of a service error in the page's
 * language, which errors a form shows in place, and the confirmation checkbox that stands in for
 * window.confirm — it works without JavaScript and the server checks it.
 */

/** The action's own texts first, then the dashboard's, then the service's message. */
export const actionErrorText = (err: { code: string; message: string }, t: Messages): string =>
  t.actions.errorCodes[err.code] ?? t.errorCodes[err.code] ?? err.message;

/**
 * The error a form shows in its page, with its status: every AppError but a 404 (another account's
 * id, which stays a plain not-found page). The provider's 502/503/504 are shown too: they say to
 * retry. Anything that is not an AppError goes to the dashboard's error handler (logged, 500).
 */
export function formFailure(e: unknown): AppError {
  if (!isAppError(e) || e.kind === 'not_found') throw e;
  return e;
}

export interface FormProblem {
  message: string;
  param?: string | undefined;
}

export const problemOf = (err: AppError, t: Messages): FormProblem => ({ message: actionErrorText(err, t), param: err.param });

/** A required "I understand" checkbox; the POST is refused unless it is ticked (`confirmed=yes`). */
export function confirmBox(label: string, t: Messages, error?: string): SafeHtml {
  return html`<div class="field${error ? ' field-error' : ''}">${
    error
      ? html`<p class="error-message" id="f-confirmed-error"><span class="visually-hidden">${t.common.errorPrefix} </span>${error}</p>`
      : ''
  }<ul class="checks"><li><input type="checkbox" id="f-confirmed" name="confirmed" value="yes" required${
    error ? html` aria-invalid="true" aria-describedby="f-confirmed-error"` : ''
  }> <label for="f-confirmed">${label}</label></li></ul></div>`;
}

export const isConfirmed = (body: Record<string, unknown>): boolean => body.confirmed === 'yes';
