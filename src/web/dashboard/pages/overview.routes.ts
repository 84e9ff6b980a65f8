import { accountId, pageContext, sendPage } from '../http/state.ts';
import { overviewView } from '../views/overview.view.ts';
import type { DashboardRoutes } from './types.ts';
import type { Tenant } from '../../../modules/tenants/index.ts';

/** How far the overview looks: enough for a glance; the full lists are one click away. */
const TENANTS_SHOWN = 25;
const TENANTS_SCANNED = 10;
const DOCUMENTS_SHOWN = 10;
const FAILURES_SHOWN = 10;

/** The overview (/): tenants and their readiness, folio stock, recent documents, recent webhook failures. */
export const overviewRoutes: DashboardRoutes = (app, { ctx }) => {
  const { tenants, webhooks, folios, dte } = ctx.services;

  app.get('/', async (req, reply) => {
    const account = accountId(req);
    const page = await tenants.list(account, { limit: TENANTS_SHOWN });
    const scanned = page.data.filter((x: Tenant) => x.status === 'active').slice(0, TENANTS_SCANNED);
    const [stock, docs, messages] = await Promise.all([
      Promise.all(
        scanned.map(async (tenant) =>
          (await folios.inventory({ account_id: account, id: tenant.id })).data.map((stock) => ({ tenant, stock })),
        ),
      ).then((r) => r.flat()),
      Promise.all(
        scanned.map(async (tenant) =>
          (await dte.list({ account_id: account, id: tenant.id }, { limit: DOCUMENTS_SHOWN })).data.map((d) => ({ tenant, dte: d })),
        ),
      ).then((r) =>
        r
          .flat()
          .sort((a, b) => b.dte.createdAt.localeCompare(a.dte.createdAt))
          .slice(0, DOCUMENTS_SHOWN),
      ),
      webhooks.listMessages(account, { limit: 100 }),
    ]);
    const failures = messages.data
      .filter((m) => m.status === 'failed' || m.attempts.some((a) => a.status === 'failed'))
      .slice(0, FAILURES_SHOWN);
    return sendPage(
      reply,
      overviewView(pageContext(req), { tenants: page.data, moreTenants: !page.done, folios: stock, documents: docs, failures }),
    );
  });
};
