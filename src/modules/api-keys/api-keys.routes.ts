import { Type, type Static } from '@sinclair/typebox';
import type { RouteModule } from '../../http/route-module.ts';
import { IdParams, Nullable, PageOf, PageQuery, Timestamp, Uuid, withErrors } from '../../http/schemas.ts';
import { accountOf } from '../../http/plugins/tenant-scope.ts';
import { apiActor } from '../../http/audit-actor.ts';

const ApiKeySchema = Type.Object(
  {
    id: Uuid(),
    name: Nullable(Type.String()),
    prefix: Type.String({ description: 'The first characters of the key, for recognising it.' }),
    createdAt: Timestamp(),
    lastUsedAt: Nullable(Timestamp()),
    revokedAt: Nullable(Timestamp()),
  },
  { $id: 'ApiKey', title: 'ApiKey' },
);

const CreatedApiKey = Type.Object({
  id: Uuid(),
  name: Nullable(Type.String()),
  key: Type.String({ description: 'The full secret. Shown only in this response: store it now.' }),
  prefix: Type.String(),
  createdAt: Timestamp(),
});

const CreateBody = Type.Object({ name: Type.Optional(Type.String({ maxLength: 100 })) }, { additionalProperties: false });

const routes: RouteModule = async (app, { ctx }) => {
  const { apiKeys } = ctx.services;
  app.post<{ Body: Static<typeof CreateBody> | undefined }>(
    '/api/v1/api-keys',
    {
      schema: {
        tags: ['API Keys'],
        summary: 'Create an API key',
        description:
          'The full key (`sk_live_…`, or `sk_test_…` when the request is made with a test key) is returned once, in this response. ' +
          'Only its SHA-256 is stored. A key is made in the mode of the key that asks.',
        body: Type.Optional(CreateBody),
        response: withErrors({ 201: CreatedApiKey }),
      },
    },
    async (req, reply) =>
      reply.status(201).send(await apiKeys.create({ id: accountOf(req), livemode: req.auth!.livemode }, { name: req.body?.name }, apiActor(req))),
  );
  app.get<{ Querystring: Static<typeof PageQuery> }>(
    '/api/v1/api-keys',
    {
      schema: {
        tags: ['API Keys'],
        summary: 'List active API keys',
        querystring: PageQuery,
        response: withErrors({ 200: PageOf(ApiKeySchema) }),
      },
    },
    async (req) => apiKeys.list(accountOf(req), { limit: req.query.limit ?? 50, iterator: req.query.iterator }),
  );
  app.delete<{ Params: { id: string } }>(
    '/api/v1/api-keys/:id',
    {
      schema: {
        tags: ['API Keys'],
        summary: 'Revoke an API key',
        description: 'Takes effect at once: the very next request with the key gets 401 revoked_api_key.',
        params: IdParams('id', 'API key id'),
        response: withErrors({ 200: ApiKeySchema }),
      },
    },
    async (req) => apiKeys.revoke(accountOf(req), req.params.id, apiActor(req)),
  );
};

export default routes;
