import type { FastifyRequest } from 'fastify';
import { statusOf } from '../../../http/plugins/errors.ts';
import { parseMultipart, type MultipartFile } from '../../../http/multipart.ts';
import { errors, isAppError } from '../../../errors.ts';
import { requireDate } from '../../../lib/validate.ts';
import { BOOK_KINDS, SET_MAX_BYTES, type BookKind, type CertificationSet } from '../../../modules/certification/index.ts';
import { allowed } from '../../../modules/members/index.ts';
import { toTenant, type TenantRow } from '../../../modules/tenants/index.ts';
import { asForm, queryValue, text, type FormBody } from '../http/form.ts';
import { accountId, pageContext, seeOther, sendPage, t } from '../http/state.ts';
import { formFailure, problemOf } from '../ui/actions.ts';
import { certificationView, type CertificationPage } from '../views/certification.view.ts';
import type { CaseDocument, PageBook, StageKey } from './certification-stages.ts';
import type { DashboardRoutes } from './types.ts';

type Id = { Params: { tenantId: string } };
type BookId = { Params: { tenantId: string; kind: string } };

/** Where the set upload's file rides in the parsed form (a symbol: no form field can be named so). */
const SET_FILE = Symbol('set');

/**
 * The tenant's certification page (issue 28; docs/dashboard.md "Certification"): the SII's stages
 * in order with what the service did and what the SII answered, and the actions the certification
 * API has, each through the same service as its route (docs/certification.md): upload the set
 * (POST …/certification/sets), make its documents (…/documents), send them (…/send), send a book
 * (…/books/{kind}/send), download a book (…/books/{kind}/xml). Every POST answers 303 to the page
 * with the outcome; a refused one is shown in its stage with its status.
 */
export const certificationRoutes: DashboardRoutes = (app, { ctx }) => {
  const { tenants, certification, certificationBooks, dte } = ctx.services;

  /** Each document case with its document's state (a case whose document cannot be read shows none). */
  const documentsOf = async (row: TenantRow, set: CertificationSet): Promise<CaseDocument[]> =>
    Promise.all(
      set.cases.map(async (c) => {
        const d = c.dteId
          ? await dte.get(row, c.dteId).catch((e: unknown) => {
              if (isAppError(e) && e.kind === 'not_found') return undefined;
              throw e;
            })
          : undefined;
        return {
          caseId: c.id,
          tipoDte: c.documentType.code ?? null,
          dteId: d ? d.id : null,
          folio: d ? d.folio : null,
          status: d ? d.status : null,
          trackId: d ? d.trackId : null,
          sii: d ? d.sii : { estado: null, glosa: null },
        };
      }),
    );

  /** Each book the set asks for: whether it can be built now, and its latest send (the set's view). */
  const booksOf = async (row: TenantRow, set: CertificationSet): Promise<PageBook[]> =>
    Promise.all(
      set.books.map(async (b) => {
        const described = await certificationBooks.describe(row, set.id, b.kind, {}).catch((e: unknown) => {
          if (isAppError(e)) return undefined;
          throw e;
        });
        return {
          kind: b.kind,
          ready: described?.ready ?? false,
          missingCases: described?.missingCases ?? [],
          folioNotificacion: described?.folioNotificacion ?? null,
          envio: b.envio,
        };
      }),
    );

  const page = async (
    req: FastifyRequest<Id>,
    o: Pick<CertificationPage, 'flash' | 'error' | 'form'> & { setId?: string | undefined; done?: string | undefined } = {},
  ): Promise<string> => {
    const ctxPage = pageContext(req);
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const sets = (await certification.list(row, { limit: 20 })).data;
    const set = o.setId ? await certification.get(row, o.setId) : (sets[0] ?? null);
    const [documents, books] = set ? await Promise.all([documentsOf(row, set), booksOf(row, set)]) : [[], []];
    return certificationView(ctxPage, {
      tenant: toTenant(row),
      canAct: ctxPage.role !== null && allowed(ctxPage.role, 'documents.manage', ctxPage.mode),
      directBooks: row.provider === 'sii',
      sets: sets.map((z) => ({ id: z.id, createdAt: z.createdAt, cases: z.cases.length })),
      set,
      documents,
      books,
      flash: o.flash ?? (set ? doneText(req, set, books) : undefined),
      error: o.error,
      form: o.form,
      maxKb: Math.floor(SET_MAX_BYTES / 1024),
    });
  };

  /** The outcome of the POST that redirected here (`done`, `n`), said in the page's language. */
  const doneText = (req: FastifyRequest, set: CertificationSet, books: PageBook[]): string | undefined => {
    const s = t(req).certification.stages;
    const done = queryValue(req.query, 'done', 32);
    const n = Number(queryValue(req.query, 'n', 6) ?? '0') || 0;
    if (done === 'set') return s.set.uploaded(set.cases.length, set.sections.length);
    if (done === 'documents') return s.documents.made(n);
    if (done === 'send') return s.send.done(n);
    const kind = done?.startsWith('book-') ? done.slice(5) : undefined;
    const book = books.find((b) => b.kind === kind);
    if (book?.envio?.trackId) return s.books.sent(s.books.kind[book.kind] ?? book.kind, book.envio.trackId);
    return undefined;
  };

  const setIdOf = (body: FormBody) => text(body, 'setId', 64);
  const pageUrl = (tenantId: string, setId: string, done: string, n?: number) =>
    `/tenants/${tenantId}/certification?set=${encodeURIComponent(setId)}&done=${done}${n === undefined ? '' : `&n=${n}`}`;
  const failed = async (
    req: FastifyRequest<Id>,
    reply: Parameters<typeof sendPage>[0],
    e: unknown,
    stage: StageKey,
    more: Partial<Parameters<typeof page>[1]> = {},
  ) => {
    const err = formFailure(e);
    return sendPage(
      reply,
      await page(req, { ...more, error: { stage, kind: more.error?.kind, problem: problemOf(err, t(req)) } }),
      statusOf(err),
    );
  };

  app.get<Id>('/tenants/:tenantId/certification', async (req, reply) =>
    sendPage(reply, await page(req, { setId: queryValue(req.query, 'set', 64) })),
  );

  // The set's file is multipart (a file input); its parser lives in a child scope so only this route takes multipart bodies.
  void app.register(async (scope) => {
    const limit = SET_MAX_BYTES + 64 * 1024;
    scope.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: limit }, (req, body, done) => {
      try {
        const form = parseMultipart(body as Buffer, req.headers['content-type'], { maxFileBytes: SET_MAX_BYTES, maxParts: 4 });
        done(null, { ...form.fields, [SET_FILE]: form.files.file });
      } catch (e) {
        done(e as Error, undefined);
      }
    });
    scope.post<Id>('/tenants/:tenantId/certification/set', { bodyLimit: limit }, async (req, reply) => {
      const row = await tenants.getRow(accountId(req), req.params.tenantId);
      const file = ((req.body ?? {}) as { [SET_FILE]?: MultipartFile })[SET_FILE];
      try {
        const m = t(req).certification.stages.set;
        if (!file || file.data.length === 0)
          throw errors.invalid('invalid_field', t(req).actions.validation.required(m.file), { param: 'file' });
        // The file's bytes as the SII gave them: the service detects ISO-8859-1 or UTF-8.
        const { set } = await certification.upload(row, { body: file.data });
        return seeOther(reply, pageUrl(row.id, set.id, 'set'));
      } catch (e) {
        return failed(req, reply, e, 'set');
      }
    });
  });

  app.post<Id>('/tenants/:tenantId/certification/documents', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const body = asForm(req.body);
    const form = { fechaEmision: text(body, 'fechaEmision', 10).trim() };
    const setId = setIdOf(body);
    try {
      if (form.fechaEmision) requireDate(form.fechaEmision, 'fechaEmision');
      const r = await certification.makeDocuments(row, setId, form.fechaEmision ? { fechaEmision: form.fechaEmision } : {});
      return seeOther(reply, pageUrl(row.id, r.set.id, 'documents', r.created));
    } catch (e) {
      return failed(req, reply, e, 'documents', { setId, form });
    }
  });

  app.post<Id>('/tenants/:tenantId/certification/send', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const setId = setIdOf(asForm(req.body));
    try {
      const r = await certification.sendDocuments(row, setId);
      return seeOther(reply, pageUrl(row.id, setId, 'send', r.envios.length));
    } catch (e) {
      return failed(req, reply, e, 'send', { setId });
    }
  });

  const kindOf = (raw: string): BookKind => {
    if (!(BOOK_KINDS as readonly string[]).includes(raw)) throw errors.notFound('certification_book', raw, 'kind');
    return raw as BookKind;
  };
  /** An optional whole number from the form (a folio). */
  const folio = (body: FormBody, name: string, param: string, label: string): number | undefined => {
    const v = text(body, name, 12).trim();
    if (!v) return undefined;
    if (!/^\d{1,10}$/.test(v) || Number(v) < 1) throw errors.invalid('invalid_field', label, { param });
    return Number(v);
  };

  app.post<BookId>('/tenants/:tenantId/certification/books/:kind/send', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const kind = kindOf(req.params.kind);
    const body = asForm(req.body);
    const setId = setIdOf(body);
    const form = { folioNotificacion: text(body, `folioNotificacion-${kind}`, 12), facturaFolio: text(body, 'facturaFolio', 12) };
    const m = t(req).certification.stages.books;
    const v = t(req).actions.validation;
    try {
      await certificationBooks.send(row, setId, kind, {
        folioNotificacion: folio(body, `folioNotificacion-${kind}`, 'folioNotificacion', v.digits(m.folioNotificacion)),
        facturaFolio: kind === 'guias' ? folio(body, 'facturaFolio', 'facturaFolio', v.digits(m.facturaFolio)) : undefined,
      });
      return seeOther(reply, pageUrl(row.id, setId, `book-${kind}`));
    } catch (e) {
      return failed(req as FastifyRequest<Id>, reply, e, 'books', {
        setId,
        form,
        error: { stage: 'books', kind, problem: { message: '' } },
      });
    }
  });

  app.get<BookId>('/tenants/:tenantId/certification/books/:kind/xml', async (req, reply) => {
    const row = await tenants.getRow(accountId(req), req.params.tenantId);
    const kind = kindOf(req.params.kind);
    const setId = queryValue(req.query, 'set', 64) ?? '';
    const xml = await certificationBooks.xml(row, setId, kind, {});
    return reply
      .type('application/xml; charset=ISO-8859-1')
      .header('content-disposition', `attachment; filename="libro-${kind}.xml"`)
      .send(xml);
  });
};
