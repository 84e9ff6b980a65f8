import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { TenantRow, TenantsService } from '../../modules/tenants/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenant of a `/api/v1/tenants/:tenantId/…` route, resolved once, within the caller's account. */
    tenant: TenantRow | null;
  }
}

/** Routes whose path names a tenant. */
const TENANT_ROUTE = /^\/api\/v1\/tenants\/:tenantId(\/|$)/;

/**
 * Resolves the `:tenantId` of every tenant-scoped API route once per request, after
 * authentication and validation: another account's tenant (or an id that cannot exist) is a 404
 * `tenant_not_found` before any service runs. Services then take the resolved row.
 */
export default fp(async function tenantScopePlugin(app: FastifyInstance, opts: { tenants: Pick<TenantsService, 'readRow' | 'writeRow'> }) {
  app.decorateRequest('tenant', null);
  const resolve: preHandlerAsyncHookHandler = async (req) => {
    const { tenantId } = req.params as { tenantId: string };
    // A read may take the row from the process's tenant cache (every change reaches it before the
    // change is answered); a write resolves it from the database, except on PGlite, where the
    // cache holds exactly the committed row (writeRow, src/modules/tenants/tenants.service.ts).
    req.tenant = await (req.method === 'GET' || req.method === 'HEAD' ? opts.tenants.readRow : opts.tenants.writeRow)(
      req.auth!.accountId,
      tenantId,
    );
  };
  app.addHook('onRoute', (route) => {
    if (!TENANT_ROUTE.test(route.url)) return;
    const existing = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
    route.preHandler = [resolve, ...existing];
  });
});

/** The tenant the plugin resolved; only on tenant-scoped routes. */
export function tenantOf(req: FastifyRequest): TenantRow {
  if (!req.tenant) throw new Error(`tenantOf called on a route without :tenantId (${req.routeOptions.url})`);
  return req.tenant;
}

/** The authenticated account; only on API-key routes. */
export function accountOf(req: FastifyRequest): string {
  if (!req.auth) throw new Error(`accountOf called on a route without an API key (${req.routeOptions.url})`);
  return req.auth.accountId;
}
