import { Type, type Static } from '@sinclair/typebox';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import { AppError } from '../../errors.ts';
import type { RouteModule } from '../../http/route-module.ts';
import { tenantOf } from '../../http/plugins/tenant-scope.ts';
import { PageOf, PageQuery, withErrors } from '../../http/schemas.ts';
import { validatorCompiler } from '../../http/validation.ts';
import { SendResponse } from '../dte/index.ts';
import { CertificationSetSchema, MakeDocumentsBody, SET_MAX_BYTES, SetParams, SetTextBody, TenantParams } from './certification.schemas.ts';

/**
 * The SII's test set in (docs/certification.md): the set's text as the body, `text/plain` as
 * the SII serves it (ISO-8859-1; UTF-8 too, and a `charset` parameter is honoured) or JSON
 * `{ "text": … }`. The plain-text parser lives in this scope only, and keeps the bytes: Fastify's
 * own would decode them as UTF-8 and lose the Ñ of an ISO-8859-1 file.
 */
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

/** A plain-text body is a Buffer; a JSON one must be exactly {"text": string}. Params and query as everywhere. */
const setBodyValidation: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body'
    ? (body: unknown) =>
        Buffer.isBuffer(body) || isTextBody(body)
          ? { value: body }
          : {
              error: new AppError(
                'invalid_request',
                'invalid_field',
                'Send {"text": "…"} with the set\'s text, or the text itself as text/plain.',
                {
                  param: 'text',
                },
              ),
            }
    : validatorCompiler(route);

function isTextBody(body: unknown): body is { text: string } {
  if (typeof body !== 'object' || body === null) return false;
  const keys = Object.keys(body);
  const text = (body as { text?: unknown }).text;
  return keys.length === 1 && typeof text === 'string' && text.length <= SET_MAX_BYTES;
}

const routes: RouteModule = async (app, { ctx }) => {
  const { certification } = ctx.services;

  await app.register(async (scope) => {
    scope.removeContentTypeParser('text/plain');
    scope.addContentTypeParser('text/plain', { parseAs: 'buffer', bodyLimit: SET_MAX_BYTES }, (_req, body, done) => done(null, body));
    scope.post<{ Params: Static<typeof TenantParams> }>(
      '/api/v1/tenants/:tenantId/certification/sets',
      {
        bodyLimit: SET_MAX_BYTES,
        schema: {
          tags: ['Certification'],
          summary: "Upload the SII's test set: read every section and case",
          description:
            'The set as the SII gives it, as the body with Content-Type text/plain (ISO-8859-1 as served, or UTF-8; a charset ' +
            'parameter is honoured, otherwise detected), or application/json {"text": "…"}. 201 with what was read; the same set ' +
            'again is 200 with the existing one (by the SHA-256 of its decoded text); another set is a second set. A text that ' +
            'is not a test set, or a line it cannot read: 422 certification_set_unreadable, details.line naming the line.',
          consumes: ['text/plain', 'application/json'],
          body: {
            oneOf: [{ type: 'string', description: "The set's text (text/plain)." }, SetTextBody],
          },
          params: TenantParams,
          response: withErrors({ 200: CertificationSetSchema, 201: CertificationSetSchema }),
        } as FastifySchema,
        validatorCompiler: setBodyValidation,
      },
      async (req, reply) => {
        const body = req.body as Buffer | { text: string };
        const charset = CHARSET.exec(req.headers['content-type'] ?? '')?.[1];
        const r = await certification.upload(tenantOf(req), Buffer.isBuffer(body) ? { body, charset } : { body: body.text });
        return reply.status(r.created ? 201 : 200).send(r.set);
      },
    );
  });

  app.get<{ Params: Static<typeof TenantParams>; Querystring: Static<typeof PageQuery> }>(
    '/api/v1/tenants/:tenantId/certification/sets',
    {
      schema: {
        tags: ['Certification'],
        summary: "The tenant's test sets, newest first",
        params: TenantParams,
        querystring: PageQuery,
        response: withErrors({ 200: PageOf(CertificationSetSchema) }),
      },
    },
    async (req) => certification.list(tenantOf(req), { limit: req.query.limit ?? 50, iterator: req.query.iterator }),
  );

  app.get<{ Params: Static<typeof SetParams> }>(
    '/api/v1/tenants/:tenantId/certification/sets/:setId',
    {
      schema: {
        tags: ['Certification'],
        summary: 'A test set: what was read, and each case’s progress',
        params: SetParams,
        response: withErrors({ 200: CertificationSetSchema }),
      },
    },
    async (req) => certification.get(tenantOf(req), req.params.setId),
  );

  app.post<{ Params: Static<typeof SetParams>; Body: Static<typeof MakeDocumentsBody> | undefined }>(
    '/api/v1/tenants/:tenantId/certification/sets/:setId/documents',
    {
      schema: {
        tags: ['Certification'],
        summary: "Make every case's document of the set",
        description:
          "Creates each document case's DTE for the tenant (ambiente certificacion), in the set's order, each case's references " +
          "resolved to the documents made for the cases it names; the set comes back with each case's dteId. Nothing is made " +
          'unless every case can be built (422 certification_cases_unbuildable names each case and why) and the tenant has ' +
          'the folios of every type it needs (409 certification_folios_missing). 201 when this call made documents; 200 ' +
          'when they were all made before (idempotent; a call after one that failed midway makes the rest). The documents ' +
          'are not sent: POST …/dte/send with their ids, as any document.',
        params: SetParams,
        body: Type.Optional(MakeDocumentsBody),
        response: withErrors({ 200: CertificationSetSchema, 201: CertificationSetSchema }),
      },
    },
    async (req, reply) => {
      const r = await certification.makeDocuments(tenantOf(req), req.params.setId, req.body ?? {});
      return reply.status(r.created > 0 ? 201 : 200).send(r.set);
    },
  );

  app.post<{ Params: Static<typeof SetParams> }>(
    '/api/v1/tenants/:tenantId/certification/sets/:setId/send',
    {
      schema: {
        tags: ['Certification'],
        summary: "Send the set's documents in the envelopes the SII asks for",
        description:
          "Sends the documents made for the set through the tenant's provider: the básico, guías and exenta sections in one " +
          'envelope, each other section (each export set, liquidaciones, factura de compra) in its own. Documents already sent ' +
          'are left out (the call again sends nothing: envios []). Their status is followed as for any document ' +
          '(GET …/dte/{dteId}/status). 409 certification_documents_missing before POST …/documents.',
        params: SetParams,
        response: withErrors({ 202: SendResponse }),
      },
    },
    async (req, reply) => reply.status(202).send(await certification.sendDocuments(tenantOf(req), req.params.setId)),
  );

  app.get<{ Params: Static<typeof SetParams> }>(
    '/api/v1/tenants/:tenantId/certification/sets/:setId/printed-samples',
    {
      schema: {
        tags: ['Certification'],
        summary: "The set's printed samples: every document's PDF, named by case, in one ZIP",
        description:
          'A ZIP of the documents made for the set, in the set\'s order, for the SII\'s "Upload de Muestras Impresas": ' +
          'CASO-{caseId}.pdf, the tax copy (letter size, one page, as GET …/dte/{dteId}/pdf prints it), and ' +
          'CASO-{caseId}-CEDIBLE.pdf, the cedible copy with the acuse de recibo, for the types that have one (a guía only ' +
          'when its transfer is a sale). 409 certification_documents_missing (details.missingCases) until every ' +
          'document case has its document.',
        params: SetParams,
        response: {
          ...withErrors({}),
          200: { description: 'The ZIP.', content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } } },
        } as FastifySchema['response'],
      },
    },
    async (req, reply) => {
      const r = await certification.printedSamples(tenantOf(req), req.params.setId);
      return reply.type('application/zip').header('Content-Disposition', `attachment; filename="${r.filename}"`).send(r.zip);
    },
  );
};

export default routes;
