import type { FastifyReply, FastifyRequest } from 'fastify';
import { statusOf } from '../../../http/plugins/errors.ts';
import { parseMultipart, type MultipartFile } from '../../../http/multipart.ts';
import { LOGO_MAX_BYTES } from '../../../pdf/index.ts';
import { errors, isAppError } from '../../../errors.ts';
import { asForm, integer, integerList, optionalText, queryValue, text, type FormBody } from '../http/form.ts';
import { accountId, pageContext, seeOther, sendPage, t } from '../http/state.ts';
import { tenantForm, tenantFormView, tenantsListView, tenantView, type TenantForm } from '../views/tenants.view.ts';
import { errorText } from '../ui/components.ts';
import type { DashboardRoutes } from './types.ts';
import { toTenant } from '../../../modules/tenants/index.ts';

type Id = { Params: { tenantId: string } };

/** Where the logo upload's file rides in the parsed form (a symbol: no form field can be named so). */
const LOGO_FILE = Symbol('logo');

const FIELDS = { rutEmpresa: 12, razonSocial: 100, giro: 80, direccion: 70, comuna: 20, ciudad: 20, fechaResolucion: 10 } as const;

/** The raw form (to show back on an error) and the typed input the tenants service takes. */
function readTenantForm(body: FormBody) {
  const raw: TenantForm = {};
  for (const k of [...Object.keys(FIELDS), 'numeroResolucion', 'acteco', 'ambiente', 'email'] as (keyof TenantForm)[]) {
    const v = body[k];
    raw[k] = (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).slice(0, 200);
  }
  const input = () => {
    const fields = Object.fromEntries(Object.entries(FIELDS).map(([k, max]) => [k, text(body, k, max)])) as Record<
      keyof typeof FIELDS,
      string
    >;
    for (const [k, v] of Object.entries(fields)) if (!v.trim()) throw errors.invalid('invalid_field', `${k} is required.`, { param: k });
    const ambiente = text(body, 'ambiente', 20) || 'produccion';
    if (ambiente !== 'produccion' && ambiente !== 'certificacion')
      throw errors.invalid('invalid_field', 'ambiente must be produccion or certificacion.', { param: 'ambiente' });
    const email = optionalText(body, 'email', 80);
    if (email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
      throw errors.invalid('invalid_email', `'${email}' is not a valid e-mail address.`, { param: 'email' });
    const acteco = integerList(body, 'acteco', 4);
    return {
      ...fields,
      numeroResolucion: integer(body, 'numeroResolucion', 0, 999999),
      ambiente: ambiente as 'produccion' | 'certificacion',
      email: email ?? null,
      ...(acteco ? { acteco } : {}),
    };
  };
  return { raw, input };
}

/** Companies (tenants): list, create, view with credentials and activation link, edit. */
export const tenantsRoutes: DashboardRoutes = (app, { ctx }) => {
  const { tenants, credentials, activation, folios, tenantLogos } = ctx.services;
  const formFailure = (e: unknown) => {
    if (!isAppError(e) || statusOf(e) >= 500 || e.kind === 'not_found') throw e;
    return e;
  };

  app.get('/tenants', async (req, reply) => {
    const iterator = queryValue(req.query, 'iterator');
    const page = await tenants.list(accountId(req), { limit: 50, iterator });
    return sendPage(reply, tenantsListView(pageContext(req), { tenants: page.data, iterator: page.iterator, onFirst: !iterator }));
  });

  app.get('/tenants/new', async (req, reply) => sendPage(reply, tenantFormView(pageContext(req), { form: { ambiente: 'produccion' } })));

  app.post('/tenants/new', async (req, reply) => {
    const { raw, input } = readTenantForm(asForm(req.body));
    try {
      const tenant = await tenants.create(accountId(req), input());
      return seeOther(reply, `/tenants/${tenant.id}?done=created`);
    } catch (e) {
      const err = formFailure(e);
      return sendPage(
        reply,
        tenantFormView(pageContext(req), { form: raw, error: { message: errorText(err, t(req)), param: err.param } }),
        statusOf(err),
      );
    }
  });

  const show = async (
    req: FastifyRequest<Id>,
    reply: FastifyReply,
    newLink?: { url: string; expiresAt: string },
    status = 200,
    logoError?: { message: string; param?: string | undefined },
  ) => {
    const account = accountId(req);
    const tenant = await tenants.get(account, req.params.tenantId);
    const [creds, link, stock, logo] = await Promise.all([
      credentials.status(account, tenant.id),
      activation.linkStatus(account, tenant.id),
      folios.inventory({ account_id: account, id: tenant.id }).then((r) => r.data),
      tenantLogos.find({ account_id: account, id: tenant.id }),
    ]);
    const done = queryValue(req.query, 'done', 16);
    const flash = new Map([
      ['created', t(req).tenant.created],
      ['updated', t(req).tenant.updated],
      ['primary', t(req).tenant.principalChanged],
      ['logo', t(req).tenant.logoUpdated],
      ['logo-removed', t(req).tenant.logoRemoved],
    ]).get(done ?? '');
    const page = tenantView(pageContext(req), {
      tenant,
      credentials: creds,
      link,
      newLink,
      folios: stock,
      now: ctx.clock.now(),
      flash,
      logo,
      logoError,
    });
    return sendPage(reply, page, status);
  };

  app.get<Id>('/tenants/:tenantId', async (req, reply) => show(req, reply));

  // The link's token is stored only as a hash: this answer is the one place its URL appears.
  app.post<Id>('/tenants/:tenantId/activation-link', async (req, reply) => {
    const link = await activation.createLink(accountId(req), req.params.tenantId);
    return show(req, reply, { url: link.url, expiresAt: link.expiresAt }, 201);
  });

  // The same service as PATCH …/credentials/certificates/{id}: same rules, same event.
  app.post<{ Params: { tenantId: string; certificateId: string } }>(
    '/tenants/:tenantId/certificates/:certificateId/primary',
    async (req, reply) => {
      await credentials.makePrincipal(accountId(req), req.params.tenantId, req.params.certificateId);
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
    const { raw, input } = readTenantForm(asForm(req.body));
    try {
      await tenants.update(row, input());
      return seeOther(reply, `/tenants/${tenant.id}?done=updated`);
    } catch (e) {
      const err = formFailure(e);
      return sendPage(
        reply,
        tenantFormView(pageContext(req), { tenant, form: raw, error: { message: errorText(err, t(req)), param: err.param } }),
        statusOf(err),
      );
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
        await tenantLogos.put(row, file.data, file.contentType.startsWith('image/') ? file.contentType : undefined);
        return seeOther(reply, `/tenants/${row.id}?done=logo#logo`);
      } catch (e) {
        const err = formFailure(e);
        return show(req, reply, undefined, statusOf(err), { message: errorText(err, t(req)), param: 'logo' });
      }
    });
  });

  app.post<Id>('/tenants/:tenantId/logo/delete', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    await tenantLogos.remove(row);
    return seeOther(reply, `/tenants/${row.id}?done=logo-removed#logo`);
  });
};
