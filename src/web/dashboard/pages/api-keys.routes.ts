import { isAppError } from '../../../errors.ts';
import { statusOf } from '../../../http/plugins/errors.ts';
import { asForm, optionalText } from '../http/form.ts';
import { accountId, pageContext, seeOther, sendPage, t } from '../http/state.ts';
import { apiKeysView } from '../views/api-keys.view.ts';
import { errorText } from '../ui/components.ts';
import type { DashboardRoutes } from './types.ts';

/** Settings → API keys: the API's own service; the new key is shown once, in the POST's answer. */
export const apiKeysRoutes: DashboardRoutes = (app, { ctx }) => {
  const { apiKeys } = ctx.services;
  // 250 active keys is the API's largest page; an account with more pages through the API.
  const allKeys = async (account: string) => (await apiKeys.list(account, { limit: 250 })).data;

  app.get<{ Querystring: { done?: string } }>('/settings/api-keys', async (req, reply) => {
    const flash = req.query.done === 'revoked' ? t(req).apiKeys.revoked : undefined;
    return sendPage(reply, apiKeysView(pageContext(req), { keys: await allKeys(accountId(req)), flash }));
  });

  app.post('/settings/api-keys', async (req, reply) => {
    const account = accountId(req);
    let name: string | undefined;
    try {
      name = optionalText(asForm(req.body), 'name', 100);
      const created = await apiKeys.create(account, { name });
      return sendPage(
        reply,
        apiKeysView(pageContext(req), { keys: await allKeys(account), created: { key: created.key, name: created.name } }),
        201,
      );
    } catch (e) {
      if (!isAppError(e) || statusOf(e) >= 500) throw e;
      return sendPage(
        reply,
        apiKeysView(pageContext(req), { keys: await allKeys(account), error: { message: errorText(e, t(req)), param: e.param } }),
        statusOf(e),
      );
    }
  });

  app.post<{ Params: { id: string } }>('/settings/api-keys/:id/revoke', async (req, reply) => {
    await apiKeys.revoke(accountId(req), req.params.id);
    return seeOther(reply, '/settings/api-keys?done=revoked');
  });
};
