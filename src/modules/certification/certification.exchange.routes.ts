import { Type, type Static } from '@sinclair/typebox';
import type { FastifySchema } from 'fastify';
import { AppError } from '../../errors.ts';
import type { RouteModule } from '../../http/route-module.ts';
import { tenantOf } from '../../http/plugins/tenant-scope.ts';
import { withErrors } from '../../http/schemas.ts';
import { TenantParams } from './certification.schemas.ts';

/**
 * The certification's exchange step (docs/certification.md, "The exchange step"): the SII's
 * EnvioDTE as the body (application/xml or text/xml, parsed only in this scope, as POST …/received
 * takes one), the three signed answers back as one ZIP.
 */
const XML_TYPES = ['application/xml', 'text/xml'];
/** As POST …/received: the SII's exchange envelope holds a handful of documents. */
const EXCHANGE_MAX_BYTES = 5 * 1024 * 1024;

const ExchangeQuery = Type.Object(
  {
    nombreEnvio: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 80,
        pattern: '^[A-Za-z0-9._-]+$',
        description: "The file name the SII's envelope came as (NmbEnvio of the RecepcionDTE); default {SetDTE ID}.xml.",
      }),
    ),
    recinto: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 80,
        examples: ['Av. Providencia 1234, Providencia'],
        description: "Where the goods or services were received (each Recibo's Recinto); default the tenant's address.",
      }),
    ),
  },
  { additionalProperties: false },
);

const routes: RouteModule = async (app, { ctx }) => {
  const { certificationExchange } = ctx.services;

  await app.register(async (scope) => {
    scope.addContentTypeParser(XML_TYPES, { parseAs: 'buffer', bodyLimit: EXCHANGE_MAX_BYTES }, (_req, body, done) => done(null, body));
    scope.post<{ Params: Static<typeof TenantParams>; Querystring: Static<typeof ExchangeQuery> }>(
      '/api/v1/tenants/:tenantId/certification/exchange',
      {
        bodyLimit: EXCHANGE_MAX_BYTES,
        schema: {
          tags: ['Certification'],
          summary: "The exchange step: the SII's EnvioDTE in, the three signed answers out (ZIP)",
          description:
            'The EnvioDTE the SII sends the company during certification, as the body (application/xml or text/xml), checked as ' +
            'POST …/received checks an envelope (400 xml_*, 422 envelope_* / receptor_mismatch), but nothing is stored, e-mailed or ' +
            'registered. 200 with a ZIP of 1_RecepcionDTE.xml (RespuestaDTE with the RecepcionEnvio), 2_EnvioRecibos.xml (the Ley ' +
            '19.983 receipt of every document received; left out when none was) and 3_ResultadoDTE.xml (RespuestaDTE with each ' +
            "document's commercial result: accepted, or rejected with the reason), each signed with the tenant's certificate " +
            "(409 certificate_not_configured without one), to upload at the SII's certification site.",
          consumes: XML_TYPES,
          body: { description: "The SII's EnvioDTE, byte for byte.", format: 'binary' },
          params: TenantParams,
          querystring: ExchangeQuery,
          response: {
            ...withErrors({}),
            200: { description: 'The ZIP.', content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } } },
          } as FastifySchema['response'],
        } as FastifySchema,
      },
      async (req, reply) => {
        if (!Buffer.isBuffer(req.body))
          throw new AppError(
            'unsupported_media_type',
            'unsupported_media_type',
            "Send the SII's EnvioDTE itself as the body, with Content-Type application/xml.",
          );
        const r = await certificationExchange(tenantOf(req), req.body, req.query);
        return reply.type('application/zip').header('Content-Disposition', `attachment; filename="${r.filename}"`).send(r.zip);
      },
    );
  });
};

export default routes;
