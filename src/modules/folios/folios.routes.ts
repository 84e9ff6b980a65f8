import type { Static } from '@sinclair/typebox';
import type { RouteModule } from '../../http/route-module.ts';
import { idempotencyBinder } from '../../http/plugins/idempotency.ts';
import { tenantOf } from '../../http/plugins/tenant-scope.ts';
import { withErrors } from '../../http/schemas.ts';
import type { FolioRequestOutcome } from './folios.request.ts';
import {
  FolioRequestBody,
  FolioRequestSchema,
  InventoryItemSchema,
  InventorySchema,
  RequestParams,
  TenantParams,
  ThresholdBody,
  TipoParams,
} from './folios.schemas.ts';

/** A request answered within the wait is created (201); one still running is accepted (202), to poll. */
const REQUEST_STATUS: Record<FolioRequestOutcome['state'], 201 | 202> = { completed: 201, pending: 202 };

/** The tenant of every route here is resolved once by the tenant-scope plugin (src/http/plugins/tenant-scope.ts). */
const routes: RouteModule = async (app, { ctx }) => {
  const { folios } = ctx.services;
  // As the route answers below; a failed request throws its stored error.
  app.replayIdempotent('folio_request', async (accountId, id) => {
    const r = await folios.requestOutcomeById(accountId, id);
    return { statusCode: REQUEST_STATUS[r.state], body: r.request };
  });
  app.post<{ Params: Static<typeof TenantParams>; Body: Static<typeof FolioRequestBody> }>(
    '/api/v1/tenants/:tenantId/folios/request',
    {
      schema: {
        tags: ['Folios'],
        summary: 'Request folios (a CAF) from the tax authority',
        description:
          'Runs as a background job. Waits up to FOLIO_REQUEST_WAIT (25 s) and answers 201 with the authorized range, or 202 with the ' +
          'pending request to poll at GET …/folios/requests/{requestId}. Needs both tenant credentials (409 tenant_not_ready).',
        params: TenantParams,
        body: FolioRequestBody,
        response: withErrors({ 201: FolioRequestSchema, 202: FolioRequestSchema }, [502, 503, 504]),
      },
    },
    async (req, reply) => {
      const r = await folios.request(tenantOf(req), req.body, { bindResult: idempotencyBinder(req, 'folio_request') });
      return reply.status(REQUEST_STATUS[r.state]).send(r.request);
    },
  );
  app.get<{ Params: Static<typeof RequestParams> }>(
    '/api/v1/tenants/:tenantId/folios/requests/:requestId',
    {
      schema: {
        tags: ['Folios'],
        summary: 'Read a folio request',
        params: RequestParams,
        response: withErrors({ 200: FolioRequestSchema }),
      },
    },
    async (req) => folios.getRequest(tenantOf(req), req.params.requestId),
  );
  app.get<{ Params: Static<typeof TenantParams> }>(
    '/api/v1/tenants/:tenantId/folios',
    {
      schema: {
        tags: ['Folios'],
        summary: 'Folio inventory per document type',
        description: 'Counts cover the usable ranges: not used up and not expired.',
        params: TenantParams,
        response: withErrors({ 200: InventorySchema }),
      },
    },
    async (req) => folios.inventory(tenantOf(req)),
  );
  app.patch<{ Params: Static<typeof TipoParams>; Body: Static<typeof ThresholdBody> }>(
    '/api/v1/tenants/:tenantId/folios/:tipoDte',
    {
      schema: {
        tags: ['Folios'],
        summary: 'Set the folio.low threshold of a document type',
        params: TipoParams,
        body: ThresholdBody,
        response: withErrors({ 200: InventoryItemSchema }),
      },
    },
    async (req) => folios.setThreshold(tenantOf(req), req.params.tipoDte, req.body.lowThreshold),
  );
};

export default routes;
