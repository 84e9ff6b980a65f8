import { asForm, queryValue, text } from '../http/form.ts';
import { accountId, pageContext, seeOther, sendPage, t } from '../http/state.ts';
import { logsListView, messageView } from '../views/webhook-logs.view.ts';
import type { DashboardRoutes } from './types.ts';

/** Logs → Webhooks: the delivery history (messages and every attempt), and resend. */
export const webhookLogsRoutes: DashboardRoutes = (app, { ctx }) => {
  const { webhooks } = ctx.services;
  const endpoints = async (account: string) => (await webhooks.listEndpoints(account, { limit: 100 })).data;

  app.get('/logs/webhooks', async (req, reply) => {
    const account = accountId(req);
    const filters = { eventType: queryValue(req.query, 'eventType', 64), endpointId: queryValue(req.query, 'endpointId', 64) };
    const iterator = queryValue(req.query, 'iterator');
    const page = await webhooks.listMessages(account, { limit: 25, iterator, ...filters });
    return sendPage(
      reply,
      logsListView(pageContext(req), {
        messages: page.data,
        endpoints: await endpoints(account),
        filters,
        iterator: page.iterator,
        onFirst: !iterator,
      }),
    );
  });

  app.get<{ Params: { messageId: string } }>('/logs/webhooks/:messageId', async (req, reply) => {
    const account = accountId(req);
    const message = await webhooks.getMessage(account, req.params.messageId);
    const done = queryValue(req.query, 'done', 16);
    const flash = done === 'resent' ? t(req).logs.resent : done === 'tested' ? t(req).webhooks.testSent : undefined;
    return sendPage(reply, messageView(pageContext(req), { message, endpoints: await endpoints(account), flash }));
  });

  app.post<{ Params: { messageId: string } }>('/logs/webhooks/:messageId/resend', async (req, reply) => {
    const endpointId = text(asForm(req.body), 'endpointId', 64);
    const message = await webhooks.resend(accountId(req), req.params.messageId, endpointId);
    return seeOther(reply, `/logs/webhooks/${message.id}?done=resent`);
  });
};
