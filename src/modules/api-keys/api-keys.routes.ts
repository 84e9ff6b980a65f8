import { Type, type Static } from '@sinclair/typebox';
import type { RouteModule } from '../../http/route-module.ts';
import { IdParams, Livemode, Nullable, PageOf, PageQuery, Timestamp, Uuid, withErrors } from '../../http/schemas.ts';
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
    livemode: Livemode(),
  },
  { $id: 'ApiKey', title: 'ApiKey' },
);

const CreatedApiKey = Type.Object({
  id: Uuid(),
  name: Nullable(Type.String()),
  key: Type.String({ description: 'The full secret. Shown only in this response: store it now.' }),
  prefix: Type.String(),
  createdAt: Timestamp(),
  livemode: Livemode(),
});

const CreateBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100 })),
    mode: Type.Optional(
      Type.Union([Type.Literal('live'), Type.Literal('test')], {
        description:
          'The mode of the new key: `test` makes an `sk_test_…` key, whose objects never reach the tax authority (the account’s test ' +
          'mode is set up on first use). Default: the mode of the key that asks. A test key can only make test keys.',
      }),
    ),
  },
  { additionalProperties: false },
);

const routes: RouteModule = async (app, { ctx }) => {
  const { apiKeys, accounts } = ctx.services;
  app.post<{ Body: Static<typeof CreateBody> | undefined }>(
    '/api/v1/api-keys',
    {
      schema: {
        tags: ['API Keys'],
        summary: 'Create an API key',
        description:
          'The full key (`sk_live_…`, or `sk_test_…` when the request is made with a test key) is returned once, in this response. ' +
          'Only its SHA-256 is stored. A key is made in the mode of the key that asks, unless `mode` says otherwise: a live key ' +
          'may make test keys (`{"mode":"test"}`: how an account gets its first test key), a test key only test keys (403 ' +
          '`live_key_from_test_key`).',
        body: Type.Optional(CreateBody),
        response: withErrors({ 201: CreatedApiKey }, [403]),
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(
          await accounts.createApiKey(
            { scopeId: accountOf(req), livemode: req.auth!.livemode },
            { name: req.body?.name, mode: req.body?.mode },
            apiActor(req),
          ),
        ),
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
