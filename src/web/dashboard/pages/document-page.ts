import { queryValue } from '../http/form.ts';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.ts';
import { toTenant } from '../../../modules/tenants/index.ts';
import { accountId, pageContext, t } from '../http/state.ts';
import { type FormProblem } from '../ui/actions.ts';
import { notice } from '../ui/components.ts';
import { html } from '../../shared/html.ts';
import { documentActions, referencesSection } from '../views/document-actions.view.ts';
import { documentView } from '../views/documents.view.ts';

export type DocumentParams = { Params: { tenantId: string; dteId: string } };

/**
 * One document's page: amounts, history, SII answer, deliveries, and the actions it allows. Its
 * banner is the outcome of the action that redirected here (?done=…), or the error of one that
 * was refused (shown in the page with the error's status, never as a 500).
 */
export async function documentPage(ctx: AppContext, req: FastifyRequest<DocumentParams>, o: { error?: FormProblem } = {}): Promise<string> {
  const { tenants, dte, dteDeliveries, exchange } = ctx.services;
  const row = await tenants.getRow(accountId(req), req.params.tenantId);
  const [doc, history, deliveries] = await Promise.all([
    dte.get(row, req.params.dteId),
    dte.history(row, req.params.dteId),
    dteDeliveries.list(row, req.params.dteId),
  ]);
  const mailbox = await exchange.mailboxOfDeliveries(
    row.account_id,
    deliveries.data.map((d) => d.id),
  );
  const m = t(req).actions;
  const done = queryValue(req.query, 'done', 32);
  const flash = o.error
    ? notice(o.error.message, 'bad')
    : done === 'sent'
      ? notice(m.send.sent(doc.trackId))
      : done === 'resent'
        ? notice(m.send.resent)
        : done === 'credit-note'
          ? notice(m.creditNote.created(doc.folio))
          : '';
  // The referenced documents that are this company's own, found by type and folio (a few at most).
  const linked = new Map<number, string>();
  await Promise.all(
    doc.referencias.slice(0, 5).map(async (r, i) => {
      const tipoDte = Number(r.tipoDocRef);
      const folio = Number(r.folioRef);
      if (!Number.isSafeInteger(tipoDte) || !Number.isSafeInteger(folio) || folio <= 0 || r.rutOtro) return;
      const found = await dte.list(row, { limit: 1, tipoDte, folio });
      if (found.data[0]) linked.set(i, found.data[0].id);
    }),
  );
  const ctxPage = pageContext(req);
  return documentView(ctxPage, {
    tenant: toTenant(row),
    dte: doc,
    history: history.data,
    deliveries: deliveries.data,
    mailbox,
    flash,
    actions: html`${documentActions(ctxPage, row.id, doc)}${referencesSection(ctxPage, row.id, doc, linked)}`,
  });
}
