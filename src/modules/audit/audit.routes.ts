import { Type, type Static } from '@sinclair/typebox';
import type { RouteModule } from '../../http/route-module.ts';
import { Nullable, PageOf, PageQuery, Timestamp, Uuid, withErrors } from '../../http/schemas.ts';
import { accountOf } from '../../http/plugins/tenant-scope.ts';

const AuditEventSchema = Type.Object(
  {
    id: Uuid(),
    action: Type.String({
      maxLength: 100,
      examples: ['tenant.created'],
      description: 'What happened, like `api_key.created` or `tenant.updated` (docs/audit.md).',
    }),
    actor: Type.Object({
      type: Type.Union([Type.Literal('member'), Type.Literal('api_key'), Type.Literal('system')]),
      id: Nullable(Type.String({ maxLength: 64, examples: ['4f0c2d8e-6a1b-4c3d-9e8f-1a2b3c4d5e6f'] })),
      label: Type.String({
        maxLength: 320,
        examples: ['sk_live_AbCdEf'],
        description: "A member's e-mail, or an API key's display prefix (never the key).",
      }),
    }),
    target: Type.Object({
      type: Type.String({ maxLength: 64, examples: ['tenant'] }),
      id: Nullable(Type.String({ maxLength: 128, examples: ['9b2e7c1a-3d4f-4e5a-8b6c-7d8e9f0a1b2c'] })),
    }),
    ip: Nullable(Type.String({ maxLength: 64, examples: ['203.0.113.9'], description: 'The address the change came from.' })),
    userAgent: Nullable(Type.String({ maxLength: 256, examples: ['curl/8.5.0'] })),
    details: Type.Object(
      {},
      {
        additionalProperties: true,
        examples: [{ rutEmpresa: '76192083-9', razonSocial: 'Comercial Andes SpA', ambiente: 'produccion', provider: 'simpleapi' }],
        description: 'Non-secret facts of the change (names, states, counts).',
      },
    ),
    livemode: Type.Boolean({ examples: [true], description: 'Whether the change was made in live mode.' }),
    createdAt: Timestamp(),
  },
  { $id: 'AuditEvent', title: 'AuditEvent' },
);

const AuditQuery = Type.Object(
  {
    ...PageQuery.properties,
    actor: Type.Optional(Type.String({ maxLength: 320, description: "A member's e-mail or id, or an API key's prefix or id." })),
    action: Type.Optional(
      Type.String({ maxLength: 100, description: 'An exact action (`tenant.created`) or a prefix ending in a dot (`tenant.`).' }),
    ),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'Only events at or after this instant.' })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'Only events before this instant.' })),
  },
  { additionalProperties: false },
);

const routes: RouteModule = async (app, { ctx }) => {
  const { audit } = ctx.services;
  app.get<{ Querystring: Static<typeof AuditQuery> }>(
    '/api/v1/audit-events',
    {
      schema: {
        tags: ['Audit Events'],
        summary: 'List audit events',
        description:
          'Changes to keys, tenants, credentials, folios, documents, webhooks and members, newest first: who (member or API key prefix), what, when, from where. Never a secret.',
        querystring: AuditQuery,
        response: withErrors({ 200: PageOf(AuditEventSchema) }),
      },
    },
    async (req) => audit.list(accountOf(req), { ...req.query, limit: req.query.limit ?? 50 }),
  );
};

export default routes;
