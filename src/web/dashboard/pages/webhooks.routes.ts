import type { FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../../shared/html.ts';
import { statusOf } from '../../../http/plugins/errors.ts';
import { isEventType } from '../../../events/event-types.ts';
import { errors, isAppError, type AppError } from '../../../errors.ts';
import { SIGNATURE_SCHEMES, type SignatureScheme } from '../../../modules/webhooks/index.ts';
import { asForm, fieldChecks, list, oneOf, optionalText, required, text, type FormBody } from '../http/form.ts';
import { accountId, auditActor, flashKey, pageContext, seeOther, sendPage, t } from '../http/state.ts';
import { webhookDeleteView, webhooksListView, webhookView, type EndpointForm } from '../views/webhooks.view.ts';
import { errorText } from '../ui/components.ts';
import { confirmView } from '../views/confirm.view.ts';
import type { DashboardRoutes } from './types.ts';

type Id = { Params: { endpointId: string } };

/** What was typed (to show back), every problem of the form at once, and the checked values. */
function readForm(body: FormBody) {
  const raw = (k: string) => {
    const v = body[k];
    return (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).slice(0, 2048);
  };
  const { check, problems } = fieldChecks();
  const url = check(() => required(body, 'url', 2048));
  const description = check(() => optionalText(body, 'description', 500));
  const filterTypes = check(() => list(body, 'filterTypes', 10, 64));
  const signatureScheme = check(() => oneOf(body, 'signatureScheme', SIGNATURE_SCHEMES, 'hmac-sha256-body'));
  const form: EndpointForm = {
    url: raw('url').trim(),
    description: raw('description'),
    filterTypes: (filterTypes ?? []).slice(0, 10),
    signatureScheme: raw('signatureScheme') || 'hmac-sha256-body',
  };
  if (problems.length > 0 || url === undefined || filterTypes === undefined || signatureScheme === undefined)
    return { form, problems, input: undefined };
  return {
    form,
    problems,
    input: { url, description: description ?? '', filterTypes, signatureScheme: signatureScheme as SignatureScheme },
  };
}

type Secret = { secret: string };
const secretSlot = (endpointId: string) => `secret:${endpointId}`;

/**
 * Webhooks: endpoints (create, edit, disable, delete), the signing secret (revealed only on an
 * explicit POST, rotated), and test events, all through the webhooks service the API uses.
 */
export const webhooksRoutes: DashboardRoutes = (app, { ctx, flash }) => {
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
  const problemsOf = (req: FastifyRequest, errs: AppError[]) => errs.map((e) => ({ message: errorText(e, t(req)), param: e.param }));

  app.get<{ Querystring: { done?: string } }>('/webhooks', async (req, reply) =>
    sendPage(
      reply,
      webhooksListView(pageContext(req), { endpoints: await allEndpoints(accountId(req)), flash: flashes(req, req.query.done) }),
    ),
  );

  app.post('/webhooks', async (req, reply) => {
    const account = accountId(req);
    const { form, problems, input } = readForm(asForm(req.body));
    const fail = async (errs: AppError[]) =>
      sendPage(
        reply,
        webhooksListView(pageContext(req), { endpoints: await allEndpoints(account), form, error: problemsOf(req, errs) }),
        statusOf(errs[0]!),
      );
    if (!input) return fail(problems);
    try {
      const created = await webhooks.createEndpoint(
        account,
        { ...input, description: input.description || undefined },
        {},
        auditActor(req),
      );
      return seeOther(reply, `/webhooks/${created.id}?done=created`);
    } catch (e) {
      return fail([formFailure(e)]);
    }
  });

  const show = async (req: FastifyRequest<Id>, reply: FastifyReply) => {
    const endpoint = await webhooks.getEndpoint(accountId(req), req.params.endpointId);
    const done = (req.query as { done?: string } | undefined)?.done;
    // A secret revealed or rotated by the POST that redirected here, shown once.
    const shown = done === 'secret' || done === 'rotated' ? flash.take<Secret>(flashKey(req), secretSlot(endpoint.id)) : undefined;
    const m = t(req);
    const text = shown
      ? done === 'rotated'
        ? m.webhooks.rotated
        : undefined
      : done === 'secret' || done === 'rotated'
        ? m.confirm.secretGone
        : flashes(req, done);
    const page = webhookView(pageContext(req), { endpoint, secret: shown?.secret, flash: text });
    return sendPage(reply, page);
  };

  app.get<Id>('/webhooks/:endpointId', async (req, reply) => show(req, reply));

  app.post<Id>('/webhooks/:endpointId', async (req, reply) => {
    const account = accountId(req);
    const endpoint = await webhooks.getEndpoint(account, req.params.endpointId);
    const { form, problems, input } = readForm(asForm(req.body));
    const fail = (errs: AppError[]) =>
      sendPage(reply, webhookView(pageContext(req), { endpoint, form, error: problemsOf(req, errs) }), statusOf(errs[0]!));
    if (!input) return fail(problems);
    try {
      await webhooks.updateEndpoint(account, endpoint.id, { ...input, description: input.description || null }, auditActor(req));
      return seeOther(reply, `/webhooks/${endpoint.id}?done=updated`);
    } catch (e) {
      return fail([formFailure(e)]);
    }
  });

  for (const [action, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const)
    app.post<Id>(`/webhooks/:endpointId/${action}`, async (req, reply) => {
      const e = await webhooks.updateEndpoint(accountId(req), req.params.endpointId, { disabled }, auditActor(req));
      return seeOther(reply, `/webhooks/${e.id}?done=updated`);
    });

  // Revealing is a POST (a deliberate click with the CSRF token): a GET could be prefetched,
  // cached or left in history. The secret then rides the session's one-time flash to the GET the
  // POST redirects to (no-store like every dashboard page), which shows it once.
  app.post<Id>('/webhooks/:endpointId/secret', async (req, reply) => {
    const { secret } = await webhooks.getSecret(accountId(req), req.params.endpointId);
    flash.put(flashKey(req), secretSlot(req.params.endpointId), { secret } satisfies Secret);
    return seeOther(reply, `/webhooks/${req.params.endpointId}?done=secret#secret`);
  });

  // Rotating ends the current secret at once: a confirmation page first.
  app.get<Id>('/webhooks/:endpointId/secret/rotate', async (req, reply) => {
    const endpoint = await webhooks.getEndpoint(accountId(req), req.params.endpointId);
    const m = t(req);
    return sendPage(
      reply,
      confirmView(pageContext(req), {
        title: m.confirm.rotateSecretTitle,
        message: m.confirm.rotateSecret,
        subject: [[m.webhooks.url, html`<code>${endpoint.url}</code>`]],
        action: `/webhooks/${endpoint.id}/secret/rotate`,
        button: m.webhooks.rotate,
        cancelHref: `/webhooks/${endpoint.id}#secret`,
        active: 'webhooks',
      }),
    );
  });

  app.post<Id>('/webhooks/:endpointId/secret/rotate', async (req, reply) => {
    const { secret } = await webhooks.rotateSecret(accountId(req), req.params.endpointId, auditActor(req));
    flash.put(flashKey(req), secretSlot(req.params.endpointId), { secret } satisfies Secret);
    return seeOther(reply, `/webhooks/${req.params.endpointId}?done=rotated#secret`);
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
    await webhooks.deleteEndpoint(accountId(req), req.params.endpointId, auditActor(req));
    return seeOther(reply, '/webhooks?done=deleted');
  });
};
