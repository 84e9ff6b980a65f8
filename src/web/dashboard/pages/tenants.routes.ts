import type { FastifyReply, FastifyRequest } from 'fastify';
import { statusOf } from '../../../http/plugins/errors.ts';
import { errors, isAppError } from '../../../errors.ts';
import { asForm, integer, integerList, optionalText, queryValue, text, type FormBody } from '../http/form.ts';
import { accountId, pageContext, seeOther, sendPage, t } from '../http/state.ts';
import { tenantForm, tenantFormView, tenantsListView, tenantView, type TenantForm } from '../views/tenants.view.ts';
import { errorText } from '../ui/components.ts';
import type { DashboardRoutes } from './types.ts';
import { toTenant } from '../../../modules/tenants/index.ts';

type Id = { Params: { tenantId: string } };

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
  const { tenants, credentials, activation, folios } = ctx.services;
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

  const show = async (req: FastifyRequest<Id>, reply: FastifyReply, newLink?: { url: string; expiresAt: string }, status = 200) => {
    const account = accountId(req);
    const tenant = await tenants.get(account, req.params.tenantId);
    const [creds, link, stock] = await Promise.all([
      credentials.status(account, tenant.id),
      activation.linkStatus(account, tenant.id),
      folios.inventory({ account_id: account, id: tenant.id }).then((r) => r.data),
    ]);
    const done = queryValue(req.query, 'done', 16);
    const flash = new Map([
      ['created', t(req).tenant.created],
      ['updated', t(req).tenant.updated],
      ['primary', t(req).tenant.principalChanged],
    ]).get(done ?? '');
    const page = tenantView(pageContext(req), { tenant, credentials: creds, link, newLink, folios: stock, now: ctx.clock.now(), flash });
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
};
