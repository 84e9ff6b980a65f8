import type { FastifyRequest } from 'fastify';
import { statusOf } from '../../../http/plugins/errors.ts';
import { parseMultipart, type MultipartFile } from '../../../http/multipart.ts';
import { errors, isAppError } from '../../../errors.ts';
import { requireDate } from '../../../lib/validate.ts';
import { toTenant } from '../../../modules/tenants/index.ts';
import { asForm, queryValue, text, type FormBody } from '../http/form.ts';
import { FormAlreadySubmitted, formOnce, newFormToken } from '../http/form-once.ts';
import { accountId, auditActor, pageContext, seeOther, sendPage, t } from '../http/state.ts';
import { formFailure, problemOf } from '../ui/actions.ts';
import { credentialsView, folioRequestView } from '../views/tenant-actions.view.ts';
import { TIPOS_DTE } from './issuing.ts';
import type { DashboardRoutes } from './types.ts';

type Id = { Params: { tenantId: string } };

/** A field's text as typed, cut to a size any valid value fits in (to show back in the form). */
const raw = (body: FormBody, name: string): string => {
  const v = body[name];
  return (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).slice(0, 200);
};

/** POST …/folios/request's own bound (docs/folios.md: cantidad 1–1000). */
const MAX_CANTIDAD = 1000;
/** Where the certificate upload's file rides in the parsed form (a symbol: no form field can be named so). */
const PFX_FILE = Symbol('pfx');

/**
 * The company's actions (issue 18), each through the same service as its API route:
 * - request folios (POST …/folios/request): the request waits up to FOLIO_REQUEST_WAIT, then the
 *   page of the request says whether the CAF arrived, is still pending, or failed;
 * - upload credentials directly (POST …/credentials/api-key, …/credentials/certificate), without
 *   the activation link. Secrets are never echoed back: a failed form keeps only the non-secret fields.
 * Every POST answers 303 to a page with the outcome; a refused one shows its error in the form.
 */
export const tenantActionsRoutes: DashboardRoutes = (app, { ctx }) => {
  const { tenants, credentials, folios } = ctx.services;

  const foliosPage = async (
    req: FastifyRequest<Id>,
    o: {
      form?: { tipoDte?: string; cantidad?: string };
      error?: ReturnType<typeof problemOf>;
      requestId?: string | undefined;
      formToken?: string | undefined;
    },
  ) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const [stock, request] = await Promise.all([
      folios.inventory(row).then((r) => r.data),
      // An unknown id (or another company's) just shows no banner.
      o.requestId
        ? folios.getRequest(row, o.requestId).catch((e: unknown) => {
            if (isAppError(e) && e.kind === 'not_found') return undefined;
            throw e;
          })
        : undefined,
    ]);
    return folioRequestView(pageContext(req), {
      tenant: toTenant(row),
      stock,
      form: o.form ?? {},
      maxCantidad: MAX_CANTIDAD,
      ready: row.status === 'active',
      request,
      error: o.error,
      formToken: o.formToken ?? newFormToken(),
    });
  };

  app.get<Id>('/tenants/:tenantId/folios/request', async (req, reply) =>
    sendPage(reply, await foliosPage(req, { requestId: queryValue(req.query, 'request', 64) })),
  );

  app.post<Id>('/tenants/:tenantId/folios/request', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const body = asForm(req.body);
    const form = { tipoDte: text(body, 'tipoDte', 4), cantidad: text(body, 'cantidad', 12).trim() };
    const m = t(req);
    const token = formOnce.token(body.formToken);
    const done = (id: string) => seeOther(reply, `/tenants/${row.id}/folios/request?request=${id}`);
    // The same form again (a double click, a reload): its request, not a second CAF.
    const prior = token && (await formOnce.resultOf(ctx.db, row.account_id, 'folio-request', token));
    if (prior) return done(prior);
    try {
      const tipoDte = Number(form.tipoDte);
      if (!(TIPOS_DTE as readonly number[]).includes(tipoDte))
        throw errors.invalid('invalid_tipo_dte', m.actions.validation.choose(m.folios.tipoDte), { param: 'tipoDte' });
      const cantidad = Number(form.cantidad);
      if (!/^\d{1,4}$/.test(form.cantidad) || cantidad < 1 || cantidad > MAX_CANTIDAD)
        throw errors.invalid('invalid_field', m.actions.validation.wholeNumber(m.actions.folios.cantidad, 1, MAX_CANTIDAD), {
          param: 'cantidad',
        });
      const bindResult = token ? formOnce.binder(row.account_id, 'folio-request', token, ctx.clock.now()) : undefined;
      const r = await folios.request(row, { tipoDte, cantidad }, { bindResult }, auditActor(req));
      return done(r.request.id);
    } catch (e) {
      if (e instanceof FormAlreadySubmitted) return done(e.resultId);
      const err = formFailure(e);
      // A request that failed within the wait was recorded: its page tells the stored error.
      const requestId = (err.details as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === 'string') return done(requestId);
      return sendPage(reply, await foliosPage(req, { form, formToken: token, error: problemOf(err, t(req)) }), statusOf(err));
    }
  });

  const credentialsPage = async (
    req: FastifyRequest<Id>,
    o: Partial<Pick<Parameters<typeof credentialsView>[1], 'form' | 'apiKeyError' | 'certificateError' | 'flash'>> = {},
  ) => {
    const account = accountId(req);
    const tenant = await tenants.get(account, req.params.tenantId);
    const status = await credentials.status(account, tenant.id);
    return credentialsView(pageContext(req), {
      tenant,
      status,
      form: o.form ?? {},
      flash: o.flash,
      apiKeyError: o.apiKeyError,
      certificateError: o.certificateError,
      maxBytes: ctx.config.certificateLimitBytes,
    });
  };

  app.get<Id>('/tenants/:tenantId/credentials', async (req, reply) => {
    const done = queryValue(req.query, 'done', 32);
    const flash = done === 'api-key' ? t(req).actions.flash.apiKey : done === 'certificate' ? t(req).actions.flash.certificate : undefined;
    return sendPage(reply, await credentialsPage(req, { flash }));
  });

  app.post<Id>('/tenants/:tenantId/credentials/api-key', async (req, reply) => {
    const account = accountId(req);
    const tenant = await tenants.get(account, req.params.tenantId);
    const m = t(req).actions;
    try {
      const apiKey = text(asForm(req.body), 'apiKey', 512).trim();
      if (!apiKey) throw errors.invalid('invalid_field', m.validation.required(m.credentials.apiKey), { param: 'apiKey' });
      if (!/^[\x21-\x7e]+$/.test(apiKey)) throw errors.invalid('invalid_field', m.validation.apiKeyFormat, { param: 'apiKey' });
      await credentials.setApiKey(account, tenant.id, apiKey, auditActor(req));
      return seeOther(reply, `/tenants/${tenant.id}/credentials?done=api-key`);
    } catch (e) {
      const err = formFailure(e);
      return sendPage(reply, await credentialsPage(req, { apiKeyError: { ...problemOf(err, t(req)), param: 'apiKey' } }), statusOf(err));
    }
  });

  // The upload is multipart (a file input); its parser lives in a child scope so only this route
  // takes multipart bodies. The CSRF token travels as the form's _csrf field, as elsewhere.
  void app.register(async (scope) => {
    const limit = ctx.config.certificateLimitBytes + 64 * 1024;
    scope.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: limit }, (req, body, done) => {
      try {
        const form = parseMultipart(body as Buffer, req.headers['content-type'], {
          maxFileBytes: ctx.config.certificateLimitBytes,
          maxParts: 8,
        });
        done(null, { ...form.fields, [PFX_FILE]: form.files.file });
      } catch (e) {
        done(e as Error, undefined);
      }
    });
    scope.post<Id>('/tenants/:tenantId/credentials/certificate', { bodyLimit: limit }, async (req, reply) => {
      const account = accountId(req);
      const tenant = await tenants.get(account, req.params.tenantId);
      const body = (req.body ?? {}) as FormBody & { [PFX_FILE]?: MultipartFile };
      // What the form shows back on an error (never the file or the password); bounds checked below.
      const form = {
        rutCertificado: raw(body, 'rutCertificado').trim(),
        nombreTitular: raw(body, 'nombreTitular').trim(),
        fechaVencimiento: raw(body, 'fechaVencimiento').trim(),
        esPrincipal: raw(body, 'esPrincipal') === 'true',
      };
      const m = t(req).actions;
      const missing = (param: string, label: string) => errors.invalid('invalid_field', m.validation.required(label), { param });
      try {
        const file = body[PFX_FILE];
        if (!file || file.data.length === 0) throw missing('file', m.credentials.file);
        const password = text(body, 'password', 256);
        if (!password) throw missing('password', m.credentials.password);
        if (!form.rutCertificado) throw missing('rutCertificado', m.credentials.rutCertificado);
        if (!form.nombreTitular) throw missing('nombreTitular', m.credentials.nombreTitular);
        if (!form.fechaVencimiento) throw missing('fechaVencimiento', m.credentials.fechaVencimiento);
        for (const [k, max] of [
          ['rutCertificado', 12],
          ['nombreTitular', 100],
          ['fechaVencimiento', 10],
        ] as const)
          text(body, k, max);
        requireDate(form.fechaVencimiento, 'fechaVencimiento');
        await credentials.addCertificate(account, tenant.id, { file: file.data, password, ...form }, {}, auditActor(req));
        return seeOther(reply, `/tenants/${tenant.id}/credentials?done=certificate`);
      } catch (e) {
        const err = formFailure(e);
        return sendPage(reply, await credentialsPage(req, { form, certificateError: problemOf(err, t(req)) }), statusOf(err));
      }
    });
  });
};
