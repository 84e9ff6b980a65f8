import type { Static } from '@sinclair/typebox';
import type { FastifySchema } from 'fastify';
import type { RouteModule } from '../../../http/route-module.ts';
import { tenantOf } from '../../../http/plugins/tenant-scope.ts';
import { withErrors } from '../../../http/schemas.ts';
import { BookEnvioSchema, BookParams, BookQuery, BookSendBody, CertificationBookSchema } from './books.schemas.ts';

const XML_TYPE = 'application/xml; charset=ISO-8859-1';

/** The set's books (docs/certification.md, "Books"): what each holds, and the signed file. */
const routes: RouteModule = async (app, { ctx }) => {
  const { certificationBooks } = ctx.services;

  app.get<{ Params: Static<typeof BookParams>; Querystring: Static<typeof BookQuery> }>(
    '/api/v1/tenants/:tenantId/certification/sets/:setId/books/:kind',
    {
      schema: {
        tags: ['Certification'],
        summary: "One of the set's books: its entries, its totals, whether it can be built yet",
        description:
          'compras comes from the set alone; ventas and guias from the documents made for the set (ready false and missingCases ' +
          'until they exist). envio: its latest send to the SII (POST …/send), its review read while pending. 422 certification_book_not_in_set when the set asks for no such book.',
        params: BookParams,
        querystring: BookQuery,
        response: withErrors({ 200: CertificationBookSchema }),
      },
    },
    async (req) => certificationBooks.show(tenantOf(req), req.params.setId, req.params.kind, req.query),
  );

  app.post<{ Params: Static<typeof BookParams>; Body: Static<typeof BookQuery> | undefined }>(
    '/api/v1/tenants/:tenantId/certification/sets/:setId/books/:kind/send',
    {
      schema: {
        tags: ['Certification'],
        summary: 'Sends the signed book to the SII (direct tenants)',
        description:
          'Builds the book exactly as …/xml does and uploads it through DTEUpload; its review (LOK, LRH) shows on GET …/books/{kind} ' +
          'as envio. Once per FolioNotificacion: asked again, the first send answers; a new folioNotificacion is a new upload. ' +
          "409 certification_book_upload_unsupported for a SimpleAPI tenant (download …/xml and upload it in the SII's site).",
        params: BookParams,
        body: BookSendBody,
        response: withErrors({ 200: BookEnvioSchema }),
      },
    },
    async (req) => certificationBooks.send(tenantOf(req), req.params.setId, req.params.kind, req.body ?? {}),
  );

  app.get<{ Params: Static<typeof BookParams>; Querystring: Static<typeof BookQuery> }>(
    '/api/v1/tenants/:tenantId/certification/sets/:setId/books/:kind/xml',
    {
      schema: {
        tags: ['Certification'],
        summary: 'The signed book: LibroCompraVenta or LibroGuia, ISO-8859-1',
        description:
          "Signed with the tenant's certificate (409 certificate_not_configured without one). ventas and guias: 409 " +
          'certification_documents_missing until the documents of their cases exist.',
        params: BookParams,
        querystring: BookQuery,
        response: {
          ...withErrors({}),
          200: { description: 'The signed book, ISO-8859-1.', content: { [XML_TYPE]: { schema: { type: 'string' } } } },
        } as FastifySchema['response'],
      },
    },
    async (req, reply) =>
      reply.type(XML_TYPE).send(await certificationBooks.xml(tenantOf(req), req.params.setId, req.params.kind, req.query)),
  );
};

export default routes;
