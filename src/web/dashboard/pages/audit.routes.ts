import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { isAppError } from '../../../errors.ts';
import { statusOf } from '../../../http/plugins/errors.ts';
import { siiDate } from '../../../dte/index.ts';
import type { AuditQuery } from '../../../modules/audit/index.ts';
import { queryValue } from '../http/form.ts';
import { accountId, pageContext, sendPage, t } from '../http/state.ts';
import { errorText } from '../ui/components.ts';
import { auditView, type AuditPageFilters } from '../views/audit.view.ts';
import { auditCsvHeader, auditCsvRow, CSV_BOM } from './audit-csv.ts';
import type { DashboardRoutes } from './types.ts';

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
const CSV_PAGE = 500;
/** A bound on one export; a larger one is cut there (narrow the dates to get the rest). */
const CSV_MAX_ROWS = 100_000;

/** The page's filters from its query string: days are whole UTC days, `until` included. */
function readFilters(req: FastifyRequest): { filters: AuditPageFilters; query: AuditQuery } {
  const filters: AuditPageFilters = {
    actor: queryValue(req.query, 'actor', 320)?.trim() || undefined,
    action: queryValue(req.query, 'action', 100)?.trim() || undefined,
    since: queryValue(req.query, 'since', 10),
    until: queryValue(req.query, 'until', 10),
  };
  const day = (d: string | undefined, plus = 0) => {
    if (d === undefined) return undefined;
    if (!DAY_RE.test(d)) return 'invalid';
    const at = new Date(`${d}T00:00:00.000Z`);
    return Number.isNaN(at.getTime()) ? 'invalid' : new Date(at.getTime() + plus * 86_400_000).toISOString();
  };
  return { filters, query: { actor: filters.actor, action: filters.action, since: day(filters.since), until: day(filters.until, 1) } };
}

/**
 * Settings → Audit log (docs/audit.md): the account's events in the mode the dashboard shows,
 * filtered and paged like the API's list, and the same list as CSV.
 */
export const auditRoutes: DashboardRoutes = (app, { ctx }) => {
  const { audit } = ctx.services;
  const retentionDays = ctx.config.auditRetentionDays;

  app.get('/settings/audit', async (req, reply) => {
    const { filters, query } = readFilters(req);
    const iterator = queryValue(req.query, 'iterator');
    try {
      const page = await audit.list(accountId(req), { ...query, limit: 50, iterator });
      return sendPage(
        reply,
        auditView(pageContext(req), { events: page.data, filters, iterator: page.iterator, onFirst: !iterator, retentionDays }),
      );
    } catch (e) {
      if (!isAppError(e) || statusOf(e) >= 500) throw e;
      const error = { code: e.code, message: errorText(e, t(req)), param: e.param };
      return sendPage(
        reply,
        auditView(pageContext(req), { events: [], filters, iterator: null, onFirst: true, retentionDays, error }),
        statusOf(e),
      );
    }
  });

  app.get('/settings/audit.csv', async (req, reply) => {
    const account = accountId(req);
    const { query } = readFilters(req);
    // The first page before the answer starts: a bad filter is a 400 page, never half a file.
    const first = await audit.list(account, { ...query, limit: CSV_PAGE });
    async function* lines() {
      yield CSV_BOM + auditCsvHeader();
      let page = first;
      for (let n = 0; ; n += page.data.length) {
        yield page.data.map(auditCsvRow).join('');
        if (!page.iterator || n + page.data.length >= CSV_MAX_ROWS) return;
        page = await audit.list(account, { ...query, limit: CSV_PAGE, iterator: page.iterator });
      }
    }
    return reply
      .header('Content-Disposition', `attachment; filename="auditoria-${siiDate(ctx.clock.now())}.csv"`)
      .type('text/csv; charset=utf-8')
      .send(Readable.from(lines()));
  });
};
