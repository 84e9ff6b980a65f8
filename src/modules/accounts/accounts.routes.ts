import { Type, type Static } from '@sinclair/typebox';
import type { RouteModule } from '../../http/route-module.ts';
import { Livemode, Timestamp, Uuid, withErrors } from '../../http/schemas.ts';
import { accountOf } from '../../http/plugins/tenant-scope.ts';

export const AccountSchema = Type.Object(
  {
    id: Uuid('The account (its live id, whichever key asks).'),
    livemode: Livemode(),
    name: Type.String(),
    email: Type.String(),
    createdAt: Timestamp(),
  },
  { $id: 'Account', title: 'Account' },
);

const PatchBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    email: Type.Optional(Type.String({ minLength: 3, maxLength: 320 })),
  },
  { additionalProperties: false },
);

const routes: RouteModule = async (app, { ctx }) => {
  const { accounts } = ctx.services;
  app.get(
    '/api/v1/account',
    { schema: { tags: ['Account'], summary: 'Read your account', response: withErrors({ 200: AccountSchema }) } },
    async (req) => accounts.get(accountOf(req)),
  );
  app.patch<{ Body: Static<typeof PatchBody> }>(
    '/api/v1/account',
    {
      schema: {
        tags: ['Account'],
        summary: 'Change your account name or e-mail',
        body: PatchBody,
        response: withErrors({ 200: AccountSchema }),
      },
    },
    async (req) => accounts.update(accountOf(req), req.body),
  );
};

export default routes;
