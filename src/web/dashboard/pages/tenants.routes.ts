import type { FastifyReply, FastifyRequest } from 'fastify';
import { statusOf } from '../../../http/plugins/errors.ts';
import { parseMultipart, type MultipartFile } from '../../../http/multipart.ts';
import { LOGO_MAX_BYTES } from '../../../pdf/index.ts';
import { errors, isAppError } from '../../../errors.ts';
import { asForm, fieldChecks, integer, integerList, oneOf, optionalText, queryValue, required, type FormBody } from '../http/form.ts';
import { accountId, auditActor, flashKey, pageContext, seeOther, sendPage, t } from '../http/state.ts';
import { tenantForm, tenantFormView, tenantsListView, tenantView, type TenantForm } from '../views/tenants.view.ts';
import { errorText, rut } from '../ui/components.ts';
import type { DashboardRoutes } from './types.ts';
import { normaliseRutEmpresa, TENANT_PROVIDERS, toTenant } from '../../../modules/tenants/index.ts';
import { requireDate } from '../../../lib/validate.ts';
import { confirmView } from '../views/confirm.view.ts';
import type { AppError } from '../../../errors.ts';

type Id = { Params: { tenantId: string } };
type NewLink = { url: string; expiresAt: string };
const linkSlot = (tenantId: string) => `link:${tenantId}`;

/** Where the logo upload's file rides in the parsed form (a symbol: no form field can be named so). */
const LOGO_FILE = Symbol('logo');

const FIELDS = { rutEmpresa: 12, razonSocial: 100, giro: 80, direccion: 70, comuna: 20, ciudad: 20, fechaResolucion: 10 } as const;

/**
 * The raw form (to show back on an error), every problem found (all fields are checked, so the
 * page shows every error at once), and, when there is none, the typed input the service takes.
 * The service checks again: the page's checks are the same rules, run field by field.
 */
function readTenantForm(body: FormBody) {
  const raw: TenantForm = {};
  for (const k of [...Object.keys(FIELDS), 'numeroResolucion', 'acteco', 'ambiente', 'provider', 'email'] as (keyof TenantForm)[]) {
    const v = body[k];
    raw[k] = (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).slice(0, 200);
  }
  const { check, problems } = fieldChecks();
  const fields = Object.fromEntries(Object.entries(FIELDS).map(([k, max]) => [k, check(() => required(body, k, max))])) as Record<
    keyof typeof FIELDS,
    string | undefined
  >;
  if (fields.rutEmpresa) check(() => normaliseRutEmpresa(fields.rutEmpresa!));
  if (fields.fechaResolucion) check(() => requireDate(fields.fechaResolucion!, 'fechaResolucion'));
  const numeroResolucion = check(() => integer(body, 'numeroResolucion', 0, 999999));
  const ambiente = check(() => oneOf(body, 'ambiente', ['produccion', 'certificacion'] as const, 'produccion'));
  const provider = check(() => oneOf(body, 'provider', TENANT_PROVIDERS, 'simpleapi'));
  const email = check(() => {
    const v = optionalText(body, 'email', 80);
    if (v && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v))
      throw errors.invalid('invalid_email', `'${v}' is not a valid e-mail address.`, { param: 'email' });
    return v ?? null;
  });
  const acteco = check(() => integerList(body, 'acteco', 4));
  if (problems.length > 0) return { raw, problems, input: undefined };
  const input = {
    ...(fields as Record<keyof typeof FIELDS, string>),
    numeroResolucion: numeroResolucion!,
    ambiente: ambiente!,
    provider: provider!,
    email: email ?? null,
    ...(acteco ? { acteco } : {}),
  };
  return { raw, problems, input };
}

/** Companies (tenants): list, create, view with credentials and activation link, edit. */
export const tenantsRoutes: DashboardRoutes = (app, { ctx, flash }) => {
  const { tenants, credentials, activation, folios, tenantLogos } = ctx.services;
  const formFailure = (e: unknown) => {
    if (!isAppError(e) || statusOf(e) >= 500 || e.kind === 'not_found') throw e;
    return e;
  };
  const problemsOf = (req: FastifyRequest, errs: AppError[]) => errs.map((e) => ({ message: errorText(e, t(req)), param: e.param }));

  app.get('/tenants', async (req, reply) => {
    const iterator = queryValue(req.query, 'iterator');
    const page = await tenants.list(accountId(req), { limit: 50, iterator });
    return sendPage(reply, tenantsListView(pageContext(req), { tenants: page.data, iterator: page.iterator, onFirst: !iterator }));
  });

  app.get('/tenants/new', async (req, reply) =>
    sendPage(reply, tenantFormView(pageContext(req), { form: { ambiente: 'produccion', provider: 'simpleapi' } })),
  );

  app.post('/tenants/new', async (req, reply) => {
    const { raw, input, problems } = readTenantForm(asForm(req.body));
    const fail = (errs: AppError[]) =>
      sendPage(reply, tenantFormView(pageContext(req), { form: raw, error: problemsOf(req, errs) }), statusOf(errs[0]!));
    if (!input) return fail(problems);
    try {
      const tenant = await tenants.create(accountId(req), input, {}, auditActor(req));
      return seeOther(reply, `/tenants/${tenant.id}?done=created`);
    } catch (e) {
      return fail([formFailure(e)]);
    }
  });

  const show = async (
    req: FastifyRequest<Id>,
    reply: FastifyReply,
    status = 200,
    logoError?: { message: string; param?: string | undefined },
  ) => {
    const account = accountId(req);
    const done = queryValue(req.query, 'done', 16);
    // The link a POST just generated, shown once (see the POST below).
    const newLink = done === 'link' ? flash.take<NewLink>(flashKey(req), linkSlot(req.params.tenantId)) : undefined;
    const tenant = await tenants.get(account, req.params.tenantId);
    const [creds, link, stock, logo] = await Promise.all([
      credentials.status(account, tenant.id),
      activation.linkStatus(account, tenant.id),
      folios.inventory({ account_id: account, id: tenant.id }).then((r) => r.data),
      tenantLogos.find({ account_id: account, id: tenant.id }),
    ]);
    const flashText = new Map([
      ['created', t(req).tenant.created],
      ['updated', t(req).tenant.updated],
      ['primary', t(req).tenant.principalChanged],
      ['logo', t(req).tenant.logoUpdated],
      ['logo-removed', t(req).tenant.logoRemoved],
      ['link', newLink ? undefined : t(req).confirm.linkGone],
    ]).get(done ?? '');
    const page = tenantView(pageContext(req), {
      tenant,
      credentials: creds,
      link,
      newLink,
      folios: stock,
      now: ctx.clock.now(),
      flash: flashText,
      logo,
      logoError,
    });
    return sendPage(reply, page, status);
  };

  app.get<Id>('/tenants/:tenantId', async (req, reply) => show(req, reply));

  // The link's token is stored only as a hash: its URL is shown once, by the GET this POST
  // redirects to, from the session's one-time flash. Reloading that page generates nothing (a
  // second POST would invalidate the link just copied).
  app.post<Id>('/tenants/:tenantId/activation-link', async (req, reply) => {
    const link = await activation.createLink(accountId(req), req.params.tenantId, auditActor(req));
    flash.put(flashKey(req), linkSlot(req.params.tenantId), { url: link.url, expiresAt: link.expiresAt } satisfies NewLink);
    return seeOther(reply, `/tenants/${req.params.tenantId}?done=link#activation`);
  });

  // Replacing a pending link ends the one the customer may already have: confirmed first.
  app.get<Id>('/tenants/:tenantId/activation-link', async (req, reply) => {
    const tenant = await tenants.get(accountId(req), req.params.tenantId);
    const m = t(req);
    return sendPage(
      reply,
      confirmView(pageContext(req), {
        title: m.confirm.relinkTitle,
        message: m.confirm.relink,
        subject: [
          [m.tenant.razonSocial, tenant.razonSocial],
          [m.tenant.rutEmpresa, rut(tenant.rutEmpresa)],
        ],
        action: `/tenants/${tenant.id}/activation-link`,
        button: m.tenant.regenerateLink,
        cancelHref: `/tenants/${tenant.id}#activation`,
        active: 'tenants',
      }),
    );
  });

  // The same service as PATCH …/credentials/certificates/{id}: same rules, same event.
  app.post<{ Params: { tenantId: string; certificateId: string } }>(
    '/tenants/:tenantId/certificates/:certificateId/primary',
    async (req, reply) => {
      await credentials.makePrincipal(accountId(req), req.params.tenantId, req.params.certificateId, auditActor(req));
      return seeOther(reply, `/tenants/${req.params.tenantId}?done=primary#credentials`);
    },
  );

  app.get<Id>('/tenants/:tenantId/edit', async (req, reply) => {
    const tenant = await tenants.get(accountId(req), req.params.tenantId);
    return sendPage(reply, tenantFormView(pageContext(req), { tenant, form: tenantForm(tenant) }));
  });

  app.post<Id>('/tenants/:tenantId/edit', async (req, reply) => {
    const account = accountId(req);
    const row = await tenants.getRow(account, req.params.tenantId);
    const tenant = toTenant(row);
    const { raw, input, problems } = readTenantForm(asForm(req.body));
    const fail = (errs: AppError[]) =>
      sendPage(reply, tenantFormView(pageContext(req), { tenant, form: raw, error: problemsOf(req, errs) }), statusOf(errs[0]!));
    if (!input) return fail(problems);
    try {
      await tenants.update(row, input, auditActor(req));
      return seeOther(reply, `/tenants/${tenant.id}?done=updated`);
    } catch (e) {
      return fail([formFailure(e)]);
    }
  });

  // The logo printed on the company's documents: the same service as PUT/GET/DELETE …/logo.
  app.get<Id>('/tenants/:tenantId/logo', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const png = await tenantLogos.png(row);
    if (!png) throw errors.notFound('logo');
    return reply.type('image/png').header('Cache-Control', 'private, max-age=31536000, immutable').send(png);
  });

  // The upload form is multipart (a file input); its parser lives in a child scope so only this
  // route takes multipart bodies. The CSRF token travels as the form's _csrf field, as elsewhere.
  void app.register(async (scope) => {
    scope.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: LOGO_MAX_BYTES + 16 * 1024 }, (req, body, done) => {
      try {
        const form = parseMultipart(body as Buffer, req.headers['content-type'], { maxFileBytes: LOGO_MAX_BYTES, maxParts: 4 });
        done(null, { ...form.fields, [LOGO_FILE]: form.files.logo });
      } catch (e) {
        done(e as Error, undefined);
      }
    });
    scope.post<Id>('/tenants/:tenantId/logo', { bodyLimit: LOGO_MAX_BYTES + 16 * 1024 }, async (req, reply) => {
      const row = await tenants.getRow(accountId(req), req.params.tenantId);
      const file = (req.body as { [LOGO_FILE]?: MultipartFile } | undefined)?.[LOGO_FILE];
      try {
        if (!file) throw errors.invalid('invalid_logo', 'Choose a PNG or JPEG file.', { details: { reason: 'empty' } });
        // Browsers name the file's type from its extension; only an image type is worth checking.
        await tenantLogos.put(row, file.data, file.contentType.startsWith('image/') ? file.contentType : undefined, auditActor(req));
        return seeOther(reply, `/tenants/${row.id}?done=logo#logo`);
      } catch (e) {
        const err = formFailure(e);
        return show(req, reply, statusOf(err), { message: errorText(err, t(req)), param: 'logo' });
      }
    });
  });

  app.get<Id>('/tenants/:tenantId/logo/delete', async (req, reply) => {
    const tenant = await tenants.get(accountId(req), req.params.tenantId);
    const m = t(req);
    return sendPage(
      reply,
      confirmView(pageContext(req), {
        title: m.confirm.removeLogoTitle,
        message: m.confirm.removeLogo,
        subject: [
          [m.tenant.razonSocial, tenant.razonSocial],
          [m.tenant.rutEmpresa, rut(tenant.rutEmpresa)],
        ],
        action: `/tenants/${tenant.id}/logo/delete`,
        button: m.tenant.logoRemove,
        cancelHref: `/tenants/${tenant.id}#logo`,
        active: 'tenants',
      }),
    );
  });

  app.post<Id>('/tenants/:tenantId/logo/delete', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    await tenantLogos.remove(row, auditActor(req));
    return seeOther(reply, `/tenants/${row.id}?done=logo-removed#logo`);
  });
};
