import type { Static } from '@sinclair/typebox';
import type { RouteModule } from '../../http/route-module.ts';
import { withErrors } from '../../http/schemas.ts';
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

const routes: RouteModule = async (app, { ctx }) => {
  const { folios } = ctx.services;
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
      const r = await folios.request(req.auth!.accountId, req.params.tenantId, req.body);
      return reply.status(r.status).send(r.body);
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
    async (req) => folios.getRequest(req.auth!.accountId, req.params.tenantId, req.params.requestId),
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
    async (req) => folios.inventory(req.auth!.accountId, req.params.tenantId),
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
    async (req) => folios.setThreshold(req.auth!.accountId, req.params.tenantId, req.params.tipoDte, req.body.lowThreshold),
  );
};

export default routes;
