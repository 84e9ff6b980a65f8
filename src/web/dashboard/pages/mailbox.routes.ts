import { queryValue } from '../http/form.ts';
import { accountId, pageContext, sendPage } from '../http/state.ts';
import { mailboxMessageView, mailboxView } from '../views/mailbox.view.ts';
import type { DashboardRoutes } from './types.ts';

type Id = { Params: { mailboxId: string } };

/** The local mailbox (docs/exchange.md): the account's e-mails to receptors, each message, its attachments and the .eml. */
export const mailboxRoutes: DashboardRoutes = (app, { ctx }) => {
  const { exchange } = ctx.services;

  app.get('/mailbox', async (req, reply) => {
    const iterator = queryValue(req.query, 'iterator');
    const page = await exchange.mailbox(accountId(req), { limit: 50, iterator });
    return sendPage(
      reply,
      mailboxView(pageContext(req), {
        messages: page.data,
        iterator: page.iterator,
        onFirst: !iterator,
        transport: exchange.transportKind,
      }),
    );
  });

  app.get<Id>('/mailbox/:mailboxId', async (req, reply) =>
    sendPage(reply, mailboxMessageView(pageContext(req), await exchange.mailboxMessage(accountId(req), req.params.mailboxId))),
  );

  // Downloads (attachment): the pages' strict CSP and no-sniff apply; nothing is rendered inline.
  app.get<Id>('/mailbox/:mailboxId/raw', async (req, reply) => {
    const raw = await exchange.mailboxRaw(accountId(req), req.params.mailboxId);
    return reply
      .header('Content-Disposition', `attachment; filename="message-${req.params.mailboxId}.eml"`)
      .type('message/rfc822')
      .send(raw);
  });

  app.get<{ Params: { mailboxId: string; index: string } }>('/mailbox/:mailboxId/attachments/:index', async (req, reply) => {
    const index = /^\d{1,3}$/.test(req.params.index) ? Number(req.params.index) : -1;
    const a = await exchange.mailboxAttachment(accountId(req), req.params.mailboxId, index);
    const filename = a.filename.replace(/[^A-Za-z0-9._-]/g, '_');
    return reply.header('Content-Disposition', `attachment; filename="${filename}"`).type(a.contentType).send(a.content);
  });
};
