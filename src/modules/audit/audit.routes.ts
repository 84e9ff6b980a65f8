import { Type, type Static } from '@sinclair/typebox';
import type { RouteModule } from '../../http/route-module.ts';
import { Nullable, PageOf, Timestamp, Uuid, withErrors } from '../../http/schemas.ts';
import { accountOf } from '../../http/plugins/tenant-scope.ts';

const AuditEventSchema = Type.Object(
  {
    id: Uuid(),
    action: Type.String({ maxLength: 100, description: 'What happened, like `api_key.created` or `tenant.updated` (docs/audit.md).' }),
    actor: Type.Object({
      type: Type.Union([Type.Literal('member'), Type.Literal('api_key'), Type.Literal('system')]),
      id: Nullable(Type.String({ maxLength: 64 })),
      label: Type.String({ maxLength: 320, description: "A member's e-mail, or an API key's display prefix (never the key)." }),
    }),
    target: Type.Object({ type: Type.String({ maxLength: 64 }), id: Nullable(Type.String({ maxLength: 128 })) }),
    ip: Nullable(Type.String({ maxLength: 64, description: 'The address the change came from.' })),
    userAgent: Nullable(Type.String({ maxLength: 256 })),
    details: Type.Object({}, { additionalProperties: true, description: 'Non-secret facts of the change (names, states, counts).' }),
    livemode: Type.Boolean({ description: 'Whether the change was made in live mode.' }),
    createdAt: Timestamp(),
  },
  { $id: 'AuditEvent', title: 'AuditEvent' },
);

const AuditQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, default: 50 })),
    iterator: Type.Optional(Type.String({ maxLength: 512 })),
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
