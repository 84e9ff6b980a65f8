import { Type, type Static } from '@sinclair/typebox';
import type { RouteModule } from '../../http/route-module.ts';
import { IdParams, PageOf, PageQuery, withErrors } from '../../http/schemas.ts';
import { accountOf, tenantOf } from '../../http/plugins/tenant-scope.ts';
import { idempotencyBinder } from '../../http/plugins/idempotency.ts';
import { apiActor } from '../../http/audit-actor.ts';
import { CreateTenantBody, PatchTenantBody, TenantSchema } from './tenants.schemas.ts';
import { tenantView } from './tenants.service.ts';
import { logoRoutes } from './tenants.logo.routes.ts';

const TenantParams = IdParams('tenantId', 'Tenant id');
const ListQuery = Type.Composite(
  [PageQuery, Type.Object({ status: Type.Optional(Type.Union([Type.Literal('pending_credentials'), Type.Literal('active')])) })],
  {
    additionalProperties: false,
  },
);

const routes: RouteModule = async (app, { ctx }) => {
  const { tenants } = ctx.services;
  app.replayIdempotent('tenant', async (accountId, id) => ({ statusCode: 201, body: await tenants.get(accountId, id) }));
  app.post<{ Body: Static<typeof CreateTenantBody> }>(
    '/api/v1/tenants',
    {
      schema: {
        tags: ['Tenants'],
        summary: 'Create a tenant',
        description: 'All eight contract fields are required. `rutEmpresa` is checked with its modulo-11 check digit.',
        body: CreateTenantBody,
        response: withErrors({ 201: TenantSchema }),
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(await tenants.create(accountOf(req), req.body, { bindResult: idempotencyBinder(req, 'tenant') }, apiActor(req))),
  );
  app.get<{ Querystring: Static<typeof ListQuery> }>(
    '/api/v1/tenants',
    {
      schema: {
        tags: ['Tenants'],
        summary: 'List tenants, newest first',
        querystring: ListQuery,
        response: withErrors({ 200: PageOf(TenantSchema) }),
      },
    },
    async (req) => tenants.list(accountOf(req), { limit: req.query.limit ?? 50, iterator: req.query.iterator, status: req.query.status }),
  );
  app.get<{ Params: { tenantId: string } }>(
    '/api/v1/tenants/:tenantId',
    { schema: { tags: ['Tenants'], summary: 'Read a tenant', params: TenantParams, response: withErrors({ 200: TenantSchema }) } },
    async (req) => tenantView(tenantOf(req)),
  );
  app.patch<{ Params: { tenantId: string }; Body: Static<typeof PatchTenantBody> }>(
    '/api/v1/tenants/:tenantId',
    {
      schema: {
        tags: ['Tenants'],
        summary: 'Change a tenant',
        params: TenantParams,
        body: PatchTenantBody,
        response: withErrors({ 200: TenantSchema }),
      },
    },
    async (req) => tenants.update(tenantOf(req), req.body, apiActor(req)),
  );
  await logoRoutes(app, { ctx });
};

export default routes;
