import { Readable } from 'node:stream';
import { siiDate } from '../../../dte/index.ts';
import { errors } from '../../../errors.ts';
import { queryValue } from '../http/form.ts';
import { accountId, pageContext, sendPage, t } from '../http/state.ts';
import { documentsView } from '../views/documents.view.ts';
import { documentPage } from './document-page.ts';
import { readDocumentFilters } from './document-filters.ts';
import { CSV_BOM, csvFilename, csvHeader, csvRow } from './documents-csv.ts';
import type { DashboardRoutes } from './types.ts';
import { toTenant } from '../../../modules/tenants/index.ts';

type Id = { Params: { tenantId: string; dteId: string } };

const CSV_PAGE = 500;
/** A bound on one export; a larger one is cut there (narrow the dates to get the rest). */
const CSV_MAX_ROWS = 100_000;

/** Documents of a tenant: list with filters, one document (amounts, history, SII answer, deliveries), its XML and its PDF. */
export const documentsRoutes: DashboardRoutes = (app, { ctx }) => {
  const { tenants, dte } = ctx.services;

  // The search (issue 18): filters in the query string, kept by the pager and the CSV export.
  app.get<{ Params: { tenantId: string } }>('/tenants/:tenantId/documents', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const tenant = toTenant(row);
    const { filters, query, problems } = readDocumentFilters(req.query, t(req));
    const iterator = queryValue(req.query, 'iterator');
    const page = problems.length ? { data: [], iterator: null } : await dte.list(row, { limit: 50, iterator, ...query });
    return sendPage(
      reply,
      documentsView(pageContext(req), { tenant, documents: page.data, filters, problems, iterator: page.iterator, onFirst: !iterator }),
      problems.length ? 400 : 200,
    );
  });

  // Every document of the search, not one page: read in pages of 500 and streamed, so memory stays flat.
  app.get<{ Params: { tenantId: string } }>('/tenants/:tenantId/documents.csv', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const { query, problems } = readDocumentFilters(req.query, t(req));
    if (problems.length)
      throw errors.invalid('invalid_parameter', problems.map((p) => p.message).join(' '), { param: problems[0]!.param! });
    const first = await dte.list(row, { limit: CSV_PAGE, ...query });
    async function* lines() {
      yield CSV_BOM + csvHeader();
      let page = first;
      for (let n = 0; ; n += page.data.length) {
        yield page.data.map(csvRow).join('');
        if (!page.iterator || n + page.data.length >= CSV_MAX_ROWS) return;
        page = await dte.list(row, { limit: CSV_PAGE, iterator: page.iterator, ...query });
      }
    }
    const day = siiDate(ctx.clock.now());
    return reply
      .header('Content-Disposition', `attachment; filename="${csvFilename(row.rut_empresa, day)}"`)
      .type('text/csv; charset=utf-8')
      .send(Readable.from(lines()));
  });

  app.get<Id>('/tenants/:tenantId/documents/:dteId', async (req, reply) => sendPage(reply, await documentPage(ctx, req)));

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
