import { errors } from '../../../errors.ts';
import { queryValue } from '../http/form.ts';
import { accountId, pageContext, sendPage } from '../http/state.ts';
import { documentsView, documentView } from '../views/documents.view.ts';
import { DTE_STATUSES, TIPOS_DTE } from './issuing.ts';
import type { DashboardRoutes } from './types.ts';
import { toTenant } from '../../../modules/tenants/index.ts';

type Id = { Params: { tenantId: string; dteId: string } };

/** Documents of a tenant: list with filters, one document (amounts, history, SII answer, deliveries), its XML and its PDF. */
export const documentsRoutes: DashboardRoutes = (app, { ctx }) => {
  const { tenants, dte, exchange } = ctx.services;

  app.get<{ Params: { tenantId: string } }>('/tenants/:tenantId/documents', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const tenant = toTenant(row);
    const status = queryValue(req.query, 'status', 32);
    const tipo = queryValue(req.query, 'tipoDte', 4);
    // Unknown filter values are ignored, like an unselected filter: the select offers only valid ones.
    const filters = {
      status: DTE_STATUSES.includes(status as (typeof DTE_STATUSES)[number]) ? status : undefined,
      tipoDte: (TIPOS_DTE as readonly number[]).includes(Number(tipo)) ? tipo : undefined,
    };
    const iterator = queryValue(req.query, 'iterator');
    const page = await dte.list(row, {
      limit: 50,
      iterator,
      status: filters.status,
      tipoDte: filters.tipoDte ? Number(filters.tipoDte) : undefined,
    });
    return sendPage(
      reply,
      documentsView(pageContext(req), { tenant, documents: page.data, filters, iterator: page.iterator, onFirst: !iterator }),
    );
  });

  app.get<Id>('/tenants/:tenantId/documents/:dteId', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const tenant = toTenant(row);
    const [doc, history, deliveries] = await Promise.all([
      dte.get(row, req.params.dteId),
      dte.history(row, req.params.dteId),
      exchange.list(row, req.params.dteId),
    ]);
    const mailbox = await exchange.mailboxOfDeliveries(
      row.account_id,
      deliveries.data.map((d) => d.id),
    );
    return sendPage(
      reply,
      documentView(pageContext(req), { tenant, dte: doc, history: history.data, deliveries: deliveries.data, mailbox }),
    );
  });

  app.get<Id>('/tenants/:tenantId/documents/:dteId/xml', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const doc = await dte.get(row, req.params.dteId);
    const xml = await dte.xml(row, doc.id);
    // The signed bytes exactly as stored (ISO-8859-1, as the SII requires): never re-encoded.
    return reply
      .header('Content-Disposition', `attachment; filename="DTE-T${doc.tipoDte}-F${doc.folio}.xml"`)
      .type('application/xml; charset=ISO-8859-1')
      .send(xml);
  });

  // The printed document, as GET …/dte/{dteId}/pdf gives it: ?formato=carta|80mm&cedible=true.
  // A download (attachment): the pages' strict CSP would stop some browsers' inline PDF viewers.
  app.get<Id>('/tenants/:tenantId/documents/:dteId/pdf', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const formato = queryValue(req.query, 'formato', 8) ?? 'carta';
    const cedible = queryValue(req.query, 'cedible', 8) ?? 'false';
    if (formato !== 'carta' && formato !== '80mm')
      throw errors.invalid('invalid_parameter', 'formato must be carta or 80mm.', { param: 'formato' });
    if (cedible !== 'true' && cedible !== 'false')
      throw errors.invalid('invalid_parameter', 'cedible must be true or false.', { param: 'cedible' });
    const r = await dte.pdf(row, req.params.dteId, { formato, cedible: cedible === 'true' });
    return reply.header('Content-Disposition', `attachment; filename="${r.filename}"`).type('application/pdf').send(r.pdf);
  });
};
