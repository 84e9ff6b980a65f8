import type { FastifyReply, FastifyRequest } from 'fastify';
import { statusOf } from '../../../http/plugins/errors.ts';
import { isEventType } from '../../../events/event-types.ts';
import { errors, isAppError } from '../../../errors.ts';
import { SIGNATURE_SCHEMES, type SignatureScheme } from '../../../modules/webhooks/index.ts';
import { asForm, list, optionalText, text, type FormBody } from '../http/form.ts';
import { accountId, pageContext, seeOther, sendPage, t } from '../http/state.ts';
import { webhookDeleteView, webhooksListView, webhookView, type EndpointForm } from '../views/webhooks.view.ts';
import { errorText } from '../ui/components.ts';
import type { DashboardRoutes } from './types.ts';

type Id = { Params: { endpointId: string } };

const readForm = (body: FormBody): EndpointForm & { url: string; filterTypes: string[] } => ({
  url: text(body, 'url', 2048).trim(),
  description: optionalText(body, 'description', 500) ?? '',
  filterTypes: list(body, 'filterTypes', 10, 64),
  signatureScheme: text(body, 'signatureScheme', 32) || 'hmac-sha256-body',
});

const scheme = (v: string | undefined): SignatureScheme => {
  if (!SIGNATURE_SCHEMES.includes(v as SignatureScheme))
    throw errors.invalid('invalid_field', `signatureScheme must be one of: ${SIGNATURE_SCHEMES.join(', ')}.`, { param: 'signatureScheme' });
  return v as SignatureScheme;
};

/**
 * Webhooks: endpoints (create, edit, disable, delete), the signing secret (revealed only on an
 * explicit POST, rotated), and test events, all through the webhooks service the API uses.
 */
export const webhooksRoutes: DashboardRoutes = (app, { ctx }) => {
  const { webhooks } = ctx.services;
  const allEndpoints = async (account: string) => (await webhooks.listEndpoints(account, { limit: 100 })).data;
  const flashes = (req: FastifyRequest, done: string | undefined) => {
    const m = t(req).webhooks;
    return done === 'created'
      ? m.created
      : done === 'updated'
        ? m.updated
        : done === 'deleted'
          ? m.deleted
          : done === 'tested'
            ? m.testSent
            : undefined;
  };
  const formFailure = (e: unknown) => {
    if (!isAppError(e) || statusOf(e) >= 500 || e.kind === 'not_found') throw e;
    return e;
  };

  app.get<{ Querystring: { done?: string } }>('/webhooks', async (req, reply) =>
    sendPage(
      reply,
      webhooksListView(pageContext(req), { endpoints: await allEndpoints(accountId(req)), flash: flashes(req, req.query.done) }),
    ),
  );

  app.post('/webhooks', async (req, reply) => {
    const account = accountId(req);
    let form: EndpointForm = {};
    try {
      const f = readForm(asForm(req.body));
      form = f;
      const created = await webhooks.createEndpoint(account, {
        url: f.url,
        filterTypes: f.filterTypes,
        description: f.description || undefined,
        signatureScheme: scheme(f.signatureScheme),
      });
      return seeOther(reply, `/webhooks/${created.id}?done=created`);
    } catch (e) {
      const err = formFailure(e);
      const page = webhooksListView(pageContext(req), {
        endpoints: await allEndpoints(account),
        form,
        error: { message: errorText(err, t(req)), param: err.param },
      });
      return sendPage(reply, page, statusOf(err));
    }
  });

  const show = async (req: FastifyRequest<Id>, reply: FastifyReply, extra: { secret?: string; flash?: string; status?: number } = {}) => {
    const endpoint = await webhooks.getEndpoint(accountId(req), req.params.endpointId);
    const done = (req.query as { done?: string } | undefined)?.done;
    const page = webhookView(pageContext(req), { endpoint, secret: extra.secret, flash: extra.flash ?? flashes(req, done) });
    return sendPage(reply, page, extra.status ?? 200);
  };

  app.get<Id>('/webhooks/:endpointId', async (req, reply) => show(req, reply));

  app.post<Id>('/webhooks/:endpointId', async (req, reply) => {
    const account = accountId(req);
    const endpoint = await webhooks.getEndpoint(account, req.params.endpointId);
    let form: EndpointForm | undefined;
    try {
      const f = readForm(asForm(req.body));
      form = f;
      await webhooks.updateEndpoint(account, endpoint.id, {
        url: f.url,
        filterTypes: f.filterTypes,
        description: f.description || null,
        signatureScheme: scheme(f.signatureScheme),
      });
      return seeOther(reply, `/webhooks/${endpoint.id}?done=updated`);
    } catch (e) {
      const err = formFailure(e);
      return sendPage(
        reply,
        webhookView(pageContext(req), { endpoint, form, error: { message: errorText(err, t(req)), param: err.param } }),
        statusOf(err),
      );
    }
  });

  for (const [action, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const)
    app.post<Id>(`/webhooks/:endpointId/${action}`, async (req, reply) => {
      const e = await webhooks.updateEndpoint(accountId(req), req.params.endpointId, { disabled });
      return seeOther(reply, `/webhooks/${e.id}?done=updated`);
    });

  // Revealing is a POST (a deliberate click with the CSRF token): a GET could be prefetched,
  // cached or left in history. The page that shows it is no-store like every dashboard page.
  app.post<Id>('/webhooks/:endpointId/secret', async (req, reply) => {
    const { secret } = await webhooks.getSecret(accountId(req), req.params.endpointId);
    return show(req, reply, { secret });
  });

  app.post<Id>('/webhooks/:endpointId/secret/rotate', async (req, reply) => {
    const { secret } = await webhooks.rotateSecret(accountId(req), req.params.endpointId);
    return show(req, reply, { secret, flash: t(req).webhooks.rotated });
  });

  app.post<Id>('/webhooks/:endpointId/test', async (req, reply) => {
    const type = text(asForm(req.body), 'eventType', 64);
    if (type && !isEventType(type)) throw errors.invalid('invalid_event_type', `'${type}' is not an event name.`, { param: 'eventType' });
    const message = await webhooks.sendTestEvent(accountId(req), req.params.endpointId, {
      eventType: type && isEventType(type) ? type : undefined,
    });
    return seeOther(reply, `/logs/webhooks/${message.id}?done=tested`);
  });

  app.get<Id>('/webhooks/:endpointId/delete', async (req, reply) => {
    const endpoint = await webhooks.getEndpoint(accountId(req), req.params.endpointId);
    return sendPage(reply, webhookDeleteView(pageContext(req), { endpoint }));
  });

  app.post<Id>('/webhooks/:endpointId/delete', async (req, reply) => {
    await webhooks.deleteEndpoint(accountId(req), req.params.endpointId);
    return seeOther(reply, '/webhooks?done=deleted');
  });
};
