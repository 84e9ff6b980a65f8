import { errors, isAppError } from '../../../errors.ts';
import { statusOf } from '../../../http/plugins/errors.ts';
import { asForm, optionalText, queryValue } from '../http/form.ts';
import { accountId, auditActor, flashKey, sessionMode, pageContext, seeOther, sendPage, t } from '../http/state.ts';
import { apiKeysView } from '../views/api-keys.view.ts';
import { confirmView } from '../views/confirm.view.ts';
import { errorText } from '../ui/components.ts';
import { formatDateTime } from '../ui/format.ts';
import type { DashboardRoutes } from './types.ts';

type Created = { key: string; name: string | null };
const SLOT = 'api-key';

/**
 * Settings → API keys: the API's own service, on the keys of the session's mode (each mode's keys
 * live in its scope, so the list, the revocation and a new key all follow the mode). A new key is created by the POST, held in the
 * session's one-time flash, and shown by the GET the POST redirects to (303): reloading that page
 * creates nothing and shows the key no more. Revoking goes through a confirmation page.
 */
export const apiKeysRoutes: DashboardRoutes = (app, { ctx, flash }) => {
  const { apiKeys } = ctx.services;
  // 250 active keys is the API's largest page; an account with more pages through the API.
  const allKeys = async (account: string) => (await apiKeys.list(account, { limit: 250 })).data;

  app.get('/settings/api-keys', async (req, reply) => {
    const done = queryValue(req.query, 'done', 16);
    const created = done === 'created' ? flash.take<Created>(flashKey(req), SLOT) : undefined;
    const flashText = done === 'revoked' ? t(req).apiKeys.revoked : done === 'created' && !created ? t(req).confirm.keyGone : undefined;
    return sendPage(reply, apiKeysView(pageContext(req), { keys: await allKeys(accountId(req)), created, flash: flashText }));
  });

  app.post('/settings/api-keys', async (req, reply) => {
    const account = accountId(req);
    const raw = asForm(req.body).name;
    try {
      const name = optionalText(asForm(req.body), 'name', 100);
      // The session's mode decides the key's: sk_test_… in test mode (docs/dashboard.md "Test mode").
      const created = await apiKeys.create({ id: account, livemode: sessionMode(req) === 'live' }, { name }, auditActor(req));
      flash.put(flashKey(req), SLOT, { key: created.key, name: created.name } satisfies Created);
      return seeOther(reply, '/settings/api-keys?done=created#new-key');
    } catch (e) {
      if (!isAppError(e) || statusOf(e) >= 500) throw e;
      return sendPage(
        reply,
        apiKeysView(pageContext(req), {
          keys: await allKeys(account),
          error: { message: errorText(e, t(req)), param: e.param },
          name: typeof raw === 'string' ? raw.slice(0, 200) : undefined,
        }),
        statusOf(e),
      );
    }
  });

  app.get<{ Params: { id: string } }>('/settings/api-keys/:id/revoke', async (req, reply) => {
    const key = (await allKeys(accountId(req))).find((k) => k.id === req.params.id);
    if (!key) throw errors.notFound('api_key', req.params.id);
    const m = t(req);
    return sendPage(
      reply,
      confirmView(pageContext(req), {
        title: m.confirm.revokeKeyTitle,
        message: m.confirm.revokeKey,
        subject: [
          [m.apiKeys.name, key.name ?? '—'],
          [m.apiKeys.prefix, `${key.prefix}…`],
          [m.common.createdAt, formatDateTime(key.createdAt, m)],
        ],
        action: `/settings/api-keys/${key.id}/revoke`,
        button: m.apiKeys.revoke,
        cancelHref: '/settings/api-keys',
        active: 'apiKeys',
      }),
    );
  });

  app.post<{ Params: { id: string } }>('/settings/api-keys/:id/revoke', async (req, reply) => {
    await apiKeys.revoke(accountId(req), req.params.id, auditActor(req));
    return seeOther(reply, '/settings/api-keys?done=revoked');
  });
};
