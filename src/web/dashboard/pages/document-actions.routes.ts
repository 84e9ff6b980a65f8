import { statusOf } from '../../../http/plugins/errors.ts';
import { isDteEngineError } from '../../../dte/index.ts';
import { errors } from '../../../errors.ts';
import { toTenant } from '../../../modules/tenants/index.ts';
import { asForm, text, type FormBody } from '../http/form.ts';
import { FormAlreadySubmitted, formOnce, newFormToken } from '../http/form-once.ts';
import { accountId, auditActor, pageContext, seeOther, sendPage, t } from '../http/state.ts';
import type { Messages } from '../i18n/index.ts';
import { formFailure, isConfirmed, problemOf } from '../ui/actions.ts';
import { creditNoteForm, creditNoteView, resendView, type CreditNoteForm } from '../views/document-actions.view.ts';
import { canCredit, creditNoteBody, needsReceptor, type CreditNoteChoice } from './credit-note.ts';
import { documentPage, type DocumentParams } from './document-page.ts';
import type { DteRecord } from './issuing.ts';
import type { DashboardRoutes } from './types.ts';

/**
 * A document's actions (issue 18), each through the same service as its API route:
 * - send to the SII (POST …/dte/send with this one id): created or send_failed documents;
 * - e-mail an accepted document to its receptor again (POST …/dte/{id}/deliveries), after a
 *   confirmation page;
 * - issue a nota de crédito (61) referencing it (POST …/dte), from a form prefilled with it
 *   (pages/credit-note.ts), confirmed with a ticked box.
 * Every POST answers 303 to the document with the outcome; a refused one is shown in the page
 * with its status. There is no "query the SII again" action: the API has none (the poll job
 * follows every envelope until its verdict, docs/dte.md "Sending").
 */

/** "1.5", "1,5", "35000": a non-negative decimal as typed in Chile or elsewhere. */
function decimal(raw: string, param: string, label: string, m: Messages): number {
  const v = raw.trim().replace(',', '.');
  if (!/^\d{1,12}(\.\d{1,6})?$/.test(v)) throw errors.invalid('invalid_field', m.actions.validation.number(label), { param });
  return Number(v);
}

const fieldText = (body: FormBody, name: string): string => {
  const v = body[name];
  return (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).slice(0, 200);
};

function readCreditNote(body: FormBody, d: DteRecord) {
  const form: CreditNoteForm = {
    codRef: fieldText(body, 'codRef'),
    razonRef: fieldText(body, 'razonRef').trim(),
    lines: d.detalle.map((_, i) => ({ cantidad: fieldText(body, `cantidad_${i}`), precio: fieldText(body, `precio_${i}`) })),
    rut: fieldText(body, 'rut').trim(),
    razonSocial: fieldText(body, 'razonSocial').trim(),
  };
  const choice = (m: Messages): CreditNoteChoice => {
    const a = m.actions.creditNote;
    if (form.codRef !== '1' && form.codRef !== '3')
      throw errors.invalid('invalid_field', m.actions.validation.choose(a.codRef), { param: 'codRef' });
    const codRef = form.codRef === '1' ? 1 : 3;
    const razonRef = text(body, 'razonRef', 90).trim() || (codRef === 1 ? a.razonAnula : a.razonMontos);
    const lines =
      codRef === 3
        ? form.lines.map((l, i) => ({
            cantidad: l.cantidad.trim() === '' ? 0 : decimal(l.cantidad, `cantidad_${i}`, a.cantidad(i + 1), m),
            precioUnitario: l.precio.trim() === '' ? 0 : decimal(l.precio, `precio_${i}`, a.precio(i + 1), m),
          }))
        : undefined;
    if (lines && !lines.some((l) => l.cantidad > 0)) throw errors.invalid('invalid_field', a.noLines, { param: 'cantidad_0' });
    let receptor: CreditNoteChoice['receptor'];
    if (needsReceptor(d)) {
      if (!form.rut) throw errors.invalid('invalid_field', m.actions.validation.required('RUT'), { param: 'rut' });
      if (!form.razonSocial)
        throw errors.invalid('invalid_field', m.actions.validation.required(m.tenant.razonSocial), { param: 'razonSocial' });
      receptor = { rut: text(body, 'rut', 12).trim(), razonSocial: text(body, 'razonSocial', 100).trim() };
    }
    return { codRef, razonRef, lines, receptor };
  };
  return { form, choice };
}

export const documentActionsRoutes: DashboardRoutes = (app, { ctx }) => {
  const { tenants, dte, dteSend, dteDeliveries } = ctx.services;
  const base = (tenantId: string, dteId: string) => `/tenants/${tenantId}/documents/${dteId}`;

  app.post<DocumentParams>('/tenants/:tenantId/documents/:dteId/send', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    try {
      await dteSend.send(row, [req.params.dteId], auditActor(req));
      return seeOther(reply, `${base(row.id, req.params.dteId)}?done=sent`);
    } catch (e) {
      const err = formFailure(e);
      return sendPage(reply, await documentPage(ctx, req, { error: problemOf(err, t(req)) }), statusOf(err));
    }
  });

  app.get<DocumentParams>('/tenants/:tenantId/documents/:dteId/resend', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const doc = await dte.get(row, req.params.dteId);
    return sendPage(reply, resendView(pageContext(req), { tenant: toTenant(row), dte: doc, to: doc.receptor.correo ?? '' }));
  });

  app.post<DocumentParams>('/tenants/:tenantId/documents/:dteId/resend', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const doc = await dte.get(row, req.params.dteId);
    const body = asForm(req.body);
    const to = fieldText(body, 'to').trim();
    try {
      if (!isConfirmed(body)) throw errors.invalid('confirmation_required', t(req).actions.confirm.tickRequired, { param: 'confirmed' });
      await dteDeliveries.resend(row, doc.id, { to: text(body, 'to', 254).trim() || undefined });
      return seeOther(reply, `${base(row.id, doc.id)}?done=resent#deliveries`);
    } catch (e) {
      const err = formFailure(e);
      return sendPage(
        reply,
        resendView(pageContext(req), { tenant: toTenant(row), dte: doc, to, error: problemOf(err, t(req)) }),
        statusOf(err),
      );
    }
  });

  const creditable = (doc: DteRecord, m: Messages) => {
    if (!canCredit(doc)) throw errors.conflict('credit_note_not_applicable', m.actions.creditNote.notApplicable);
  };

  app.get<DocumentParams>('/tenants/:tenantId/documents/:dteId/credit-note', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const doc = await dte.get(row, req.params.dteId);
    creditable(doc, t(req));
    return sendPage(
      reply,
      creditNoteView(pageContext(req), { tenant: toTenant(row), dte: doc, form: creditNoteForm(doc), formToken: newFormToken() }),
    );
  });

  app.post<DocumentParams>('/tenants/:tenantId/documents/:dteId/credit-note', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const doc = await dte.get(row, req.params.dteId);
    const m = t(req);
    creditable(doc, m);
    const body = asForm(req.body);
    const { form, choice } = readCreditNote(body, doc);
    const token = formOnce.token(body.formToken);
    // The same form again (a double click, a reload): its note, not a second one.
    const prior = token && (await formOnce.resultOf(ctx.db, row.account_id, 'credit-note', token));
    if (prior) return seeOther(reply, `${base(row.id, prior)}?done=credit-note`);
    try {
      const c = choice(m);
      if (!isConfirmed(body)) throw errors.invalid('confirmation_required', m.actions.confirm.tickRequired, { param: 'confirmed' });
      let input;
      try {
        input = creditNoteBody(doc, c);
      } catch (e) {
        // The engine's amount rules (computeTotals) speak DteEngineError: the same code, as a 400.
        if (isDteEngineError(e)) throw errors.invalid(e.code, e.message, e.param ? { param: e.param } : {});
        throw e;
      }
      const bindResult = token ? formOnce.binder(row.account_id, 'credit-note', token, ctx.clock.now()) : undefined;
      const note = await dte.create(row, input, { bindResult });
      return seeOther(reply, `${base(row.id, note.id)}?done=credit-note`);
    } catch (e) {
      if (e instanceof FormAlreadySubmitted) return seeOther(reply, `${base(row.id, e.resultId)}?done=credit-note`);
      const err = formFailure(e);
      return sendPage(
        reply,
        creditNoteView(pageContext(req), {
          tenant: toTenant(row),
          dte: doc,
          form,
          formToken: token ?? newFormToken(),
          error: problemOf(err, m),
        }),
        statusOf(err),
      );
    }
  });
};
