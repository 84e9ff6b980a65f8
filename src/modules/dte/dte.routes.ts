import type { Static } from '@sinclair/typebox';
import { apiActor } from '../../http/audit-actor.ts';
import type { FastifySchema } from 'fastify';
import type { RouteModule } from '../../http/route-module.ts';
import { idempotencyBinder } from '../../http/plugins/idempotency.ts';
import { accountOf, tenantOf } from '../../http/plugins/tenant-scope.ts';
import { PageOf, withErrors } from '../../http/schemas.ts';
import { familyCodes, typesWhere } from '../../dte/index.ts';
import {
  CreateDteBody,
  DteParams,
  DteSchema,
  DteStatusSchema,
  EnvioSchema,
  HistorySchema,
  ListDteQuery,
  PdfQuery,
  SendBody,
  SendResponse,
  TenantDteParams,
  TenantEnvioParams,
  TenantParams,
} from './dte.schemas.ts';

const XML_TYPE = 'application/xml; charset=ISO-8859-1';

/** A route that answers signed XML bytes (ISO-8859-1) instead of JSON. */
const xmlResponse = (description: string): FastifySchema['response'] => ({
  ...withErrors({}),
  200: { description, content: { [XML_TYPE]: { schema: { type: 'string' } } } },
});

/** The printed document: binary PDF bytes instead of JSON. */
const pdfResponse: FastifySchema['response'] = {
  ...withErrors({}),
  200: { description: 'The PDF.', content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } },
};

const routes: RouteModule = async (app, { ctx }) => {
  const { dte, dteSend } = ctx.services;
  // A create whose response was lost (the key is bound to the DTE in its transaction) is answered with it.
  app.replayIdempotent('dte', async (accountId, id) => ({ statusCode: 201, body: await dte.byId(accountId, id) }));

  app.post<{ Params: Static<typeof TenantParams>; Body: Static<typeof CreateDteBody> }>(
    '/api/v1/tenants/:tenantId/dte',
    {
      schema: {
        tags: ['DTE'],
        summary: 'Create a DTE: allocate a folio, build, stamp (TED) and sign it',
        description:
          'All or nothing. Amounts are checked (422 amount_mismatch names the field and the expected value); 409 tenant_not_ready, ' +
          '409 folios_exhausted. The document is not sent until POST …/dte/send.',
        params: TenantParams,
        body: CreateDteBody,
        response: withErrors({ 201: DteSchema }, [503]),
      },
    },
    async (req, reply) => reply.status(201).send(await dte.create(tenantOf(req), req.body, { bindResult: idempotencyBinder(req, 'dte') })),
  );

  app.get<{ Params: Static<typeof TenantParams>; Querystring: Static<typeof ListDteQuery> }>(
    '/api/v1/tenants/:tenantId/dte',
    {
      schema: {
        tags: ['DTE'],
        summary: 'List DTEs, newest first',
        params: TenantParams,
        querystring: ListDteQuery,
        response: withErrors({ 200: PageOf(DteSchema) }),
      },
    },
    async (req) =>
      dte.list(tenantOf(req), {
        limit: req.query.limit ?? 50,
        iterator: req.query.iterator,
        status: req.query.status,
        tipoDte: req.query.tipoDte,
      }),
  );

  app.post<{ Params: Static<typeof TenantParams>; Body: Static<typeof SendBody> }>(
    '/api/v1/tenants/:tenantId/dte/send',
    {
      schema: {
        tags: ['DTE'],
        summary: 'Send DTEs to the tax authority',
        description:
          `Boletas (${familyCodes('boleta')}) go in an EnvioBOLETA, the rest in an EnvioDTE. Uploaded by a background job; the answer waits briefly ` +
          '(DTE_SEND_WAIT) so it usually carries the trackId. Progress: GET /api/v1/dte/{dteId}/status and dte.status.changed events.',
        params: TenantParams,
        body: SendBody,
        response: withErrors({ 202: SendResponse }),
      },
    },
    async (req, reply) => reply.status(202).send(await dteSend.send(tenantOf(req), req.body.dteIds, apiActor(req))),
  );

  app.get<{ Params: Static<typeof TenantEnvioParams> }>(
    '/api/v1/tenants/:tenantId/dte/envios/:envioId',
    {
      schema: {
        tags: ['DTE'],
        summary: 'Read an envío (one uploaded envelope)',
        params: TenantEnvioParams,
        response: withErrors({ 200: EnvioSchema }),
      },
    },
    async (req) => dte.envio(tenantOf(req), req.params.envioId),
  );

  app.get<{ Params: Static<typeof TenantEnvioParams> }>(
    '/api/v1/tenants/:tenantId/dte/envios/:envioId/xml',
    {
      schema: {
        tags: ['DTE'],
        summary: 'The signed EnvioDTE / EnvioBOLETA as uploaded',
        params: TenantEnvioParams,
        response: xmlResponse('The envelope bytes, ISO-8859-1.'),
      },
    },
    async (req, reply) => reply.type(XML_TYPE).send(await dte.envioXml(tenantOf(req), req.params.envioId)),
  );

  app.get<{ Params: Static<typeof TenantDteParams> }>(
    '/api/v1/tenants/:tenantId/dte/:dteId',
    { schema: { tags: ['DTE'], summary: 'Read a DTE', params: TenantDteParams, response: withErrors({ 200: DteSchema }) } },
    async (req) => dte.get(tenantOf(req), req.params.dteId),
  );

  app.get<{ Params: Static<typeof TenantDteParams> }>(
    '/api/v1/tenants/:tenantId/dte/:dteId/xml',
    {
      schema: {
        tags: ['DTE'],
        summary: 'The signed DTE XML, byte for byte',
        params: TenantDteParams,
        response: xmlResponse('The signed DTE, ISO-8859-1.'),
      },
    },
    async (req, reply) => reply.type(XML_TYPE).send(await dte.xml(tenantOf(req), req.params.dteId)),
  );

  app.get<{ Params: Static<typeof TenantDteParams>; Querystring: Static<typeof PdfQuery> }>(
    '/api/v1/tenants/:tenantId/dte/:dteId/pdf',
    {
      schema: {
        tags: ['DTE'],
        summary: 'The printed document (PDF) with the timbre',
        description:
          'The printed representation of the signed DTE, available from creation: issuer (with the tenant logo), the red box with ' +
          'RUT, document name, number and SII unit, receptor, lines, references, totals, and the timbre (PDF417, security level 5, ' +
          `the TED bytes as signed). formato=carta (default) or 80mm; cedible=true adds the acuse de recibo (${typesWhere((t) => t.cedible !== null).join(', ')}; ` +
          'others: 422 not_cedible).',
        params: TenantDteParams,
        querystring: PdfQuery,
        response: pdfResponse,
      },
    },
    async (req, reply) => {
      const r = await dte.pdf(tenantOf(req), req.params.dteId, {
        formato: req.query.formato ?? 'carta',
        cedible: req.query.cedible ?? false,
      });
      return reply.type('application/pdf').header('Content-Disposition', `inline; filename="${r.filename}"`).send(r.pdf);
    },
  );

  app.get<{ Params: Static<typeof TenantDteParams> }>(
    '/api/v1/tenants/:tenantId/dte/:dteId/history',
    {
      schema: {
        tags: ['DTE'],
        summary: 'Every state the DTE went through',
        params: TenantDteParams,
        response: withErrors({ 200: HistorySchema }),
      },
    },
    async (req) => dte.history(tenantOf(req), req.params.dteId),
  );

  const statusSchema = (prefix: string) => ({
    schema: {
      tags: ['DTE'],
      summary: `Current status of a DTE${prefix ? '' : ' (the contract path, same answer)'}`,
      params: DteParams,
      response: withErrors({ 200: DteStatusSchema }),
    },
  });
  app.get<{ Params: Static<typeof DteParams> }>('/api/v1/dte/:dteId/status', statusSchema('/api/v1'), async (req) =>
    dte.status(accountOf(req), req.params.dteId),
  );
  app.get<{ Params: Static<typeof DteParams> }>('/dte/:dteId/status', statusSchema(''), async (req) =>
    dte.status(accountOf(req), req.params.dteId),
  );
};

export default routes;
