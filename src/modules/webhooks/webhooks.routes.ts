import { Type, type Static } from '@sinclair/typebox';
import { apiActor } from '../../http/audit-actor.ts';
import type { RouteModule } from '../../http/route-module.ts';
import { IdParams, PageOf, PageQuery, withErrors } from '../../http/schemas.ts';
import { idempotencyBinder } from '../../http/plugins/idempotency.ts';
import { accountOf } from '../../http/plugins/tenant-scope.ts';
import { validatorCompiler } from '../../http/validation.ts';
import { EVENT_DATA_SCHEMAS, WebhookPayloadSchema } from './event-schemas.ts';
import {
  CreatedEndpointSchema,
  CreateEndpointBody,
  EndpointSchema,
  MessageSchema,
  MessagesQuery,
  PatchEndpointBody,
  ResendBody,
  SecretSchema,
  TestEventBody,
} from './webhooks.schemas.ts';

const EndpointParams = IdParams('endpointId', 'Webhook endpoint id');
const MessageParams = IdParams('messageId', 'Webhook message id (the webhook-id header)');
const tags = ['Webhooks'];

const routes: RouteModule = async (app, { ctx }) => {
  const { webhooks } = ctx.services;
  app.replayIdempotent('webhook_endpoint', async (accountId, id) => ({
    statusCode: 201,
    body: await webhooks.createdEndpointById(accountId, id),
  }));
  // Documentation only: the payload and each event's data appear as named schemas in the OpenAPI
  // document. Fastify rebuilds a child context's validator with its default (coercing, extra-field
  // stripping) compiler once the child adds a schema, so this context sets the app's strict one again.
  for (const s of [WebhookPayloadSchema, ...Object.values(EVENT_DATA_SCHEMAS)]) app.addSchema(s);
  app.setValidatorCompiler(validatorCompiler);

  app.post<{ Body: Static<typeof CreateEndpointBody> }>(
    '/api/v1/webhooks/endpoints',
    {
      schema: {
        tags,
        summary: 'Register a webhook endpoint',
        description:
          'Returns the endpoint and its signing secret (`whsec_…`). `filterTypes` empty or absent = every event. ' +
          'The URL must be http(s), without credentials, and resolve only to public addresses.',
        body: CreateEndpointBody,
        response: withErrors({ 201: CreatedEndpointSchema }),
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(
          await webhooks.createEndpoint(
            accountOf(req),
            req.body,
            { bindResult: idempotencyBinder(req, 'webhook_endpoint') },
            apiActor(req),
          ),
        ),
  );
  app.get<{ Querystring: Static<typeof PageQuery> }>(
    '/api/v1/webhooks/endpoints',
    {
      schema: {
        tags,
        summary: 'List webhook endpoints, newest first',
        querystring: PageQuery,
        response: withErrors({ 200: PageOf(EndpointSchema) }),
      },
    },
    async (req) => webhooks.listEndpoints(accountOf(req), { limit: req.query.limit ?? 50, iterator: req.query.iterator }),
  );
  app.get<{ Params: { endpointId: string } }>(
    '/api/v1/webhooks/endpoints/:endpointId',
    { schema: { tags, summary: 'Read a webhook endpoint', params: EndpointParams, response: withErrors({ 200: EndpointSchema }) } },
    async (req) => webhooks.getEndpoint(accountOf(req), req.params.endpointId),
  );
  app.patch<{ Params: { endpointId: string }; Body: Static<typeof PatchEndpointBody> }>(
    '/api/v1/webhooks/endpoints/:endpointId',
    {
      schema: {
        tags,
        summary: 'Change a webhook endpoint',
        description: '`disabled: false` re-enables it; deliveries that failed while it was disabled can be sent with resend.',
        params: EndpointParams,
        body: PatchEndpointBody,
        response: withErrors({ 200: EndpointSchema }),
      },
    },
    async (req) => webhooks.updateEndpoint(accountOf(req), req.params.endpointId, req.body, apiActor(req)),
  );
  app.delete<{ Params: { endpointId: string } }>(
    '/api/v1/webhooks/endpoints/:endpointId',
    {
      schema: {
        tags,
        summary: 'Remove a webhook endpoint',
        description: 'Deliveries not yet sent to it are cancelled; its past attempts stay in the message log.',
        params: EndpointParams,
        response: withErrors({ 204: Type.Null({ description: 'Removed.' }) }),
      },
    },
    async (req, reply) => {
      await webhooks.deleteEndpoint(accountOf(req), req.params.endpointId, apiActor(req));
      return reply.status(204).send();
    },
  );
  app.get<{ Params: { endpointId: string } }>(
    '/api/v1/webhooks/endpoints/:endpointId/secret',
    { schema: { tags, summary: 'Read the signing secret', params: EndpointParams, response: withErrors({ 200: SecretSchema }) } },
    async (req) => webhooks.getSecret(accountOf(req), req.params.endpointId),
  );
  app.post<{ Params: { endpointId: string } }>(
    '/api/v1/webhooks/endpoints/:endpointId/secret/rotate',
    {
      schema: {
        tags,
        summary: 'Rotate the signing secret',
        description:
          'The new secret signs from now on. With `standard-webhooks`, the previous secret also signs for 24 hours ' +
          '(two signatures in the header); with `hmac-sha256-body` the switch is immediate.',
        params: EndpointParams,
        response: withErrors({ 200: SecretSchema }),
      },
    },
    async (req) => webhooks.rotateSecret(accountOf(req), req.params.endpointId, apiActor(req)),
  );
  app.post<{ Params: { endpointId: string }; Body: Static<typeof TestEventBody> }>(
    '/api/v1/webhooks/endpoints/:endpointId/test',
    {
      schema: {
        tags,
        summary: 'Send a test event',
        description:
          'Delivers one event of the chosen type (default tenant.credentials.updated) to this endpoint only, signed like any other, ' +
          'with every id in `data` set to the nil UUID 00000000-0000-0000-0000-000000000000. Answers 202 with the message; follow it in the log.',
        params: EndpointParams,
        body: TestEventBody,
        response: withErrors({ 202: MessageSchema }),
      },
    },
    async (req, reply) => reply.status(202).send(await webhooks.sendTestEvent(accountOf(req), req.params.endpointId, req.body)),
  );
  app.get<{ Querystring: Static<typeof MessagesQuery> }>(
    '/api/v1/webhooks/messages',
    {
      schema: {
        tags,
        summary: 'List webhook messages with their attempts, newest first',
        description: `Kept ${ctx.config.webhooks.retentionDays} days. Filter by \`eventType\` or \`endpointId\`.`,
        querystring: MessagesQuery,
        response: withErrors({ 200: PageOf(MessageSchema) }),
      },
    },
    async (req) =>
      webhooks.listMessages(accountOf(req), {
        limit: req.query.limit ?? 50,
        iterator: req.query.iterator,
        eventType: req.query.eventType,
        endpointId: req.query.endpointId,
      }),
  );
  app.get<{ Params: { messageId: string } }>(
    '/api/v1/webhooks/messages/:messageId',
    {
      schema: {
        tags,
        summary: 'Read a webhook message and its attempts',
        params: MessageParams,
        response: withErrors({ 200: MessageSchema }),
      },
    },
    async (req) => webhooks.getMessage(accountOf(req), req.params.messageId),
  );
  app.post<{ Params: { messageId: string }; Body: Static<typeof ResendBody> }>(
    '/api/v1/webhooks/messages/:messageId/resend',
    {
      schema: {
        tags,
        summary: 'Send a message again to an endpoint',
        description: 'A new delivery with a full set of attempts and the same `webhook-id`. Answers 202 with the message.',
        params: MessageParams,
        body: ResendBody,
        response: withErrors({ 202: MessageSchema }),
      },
    },
    async (req, reply) => reply.status(202).send(await webhooks.resend(accountOf(req), req.params.messageId, req.body.endpointId)),
  );
};

export default routes;
