import type { Static } from '@sinclair/typebox';
import type { FastifySchema } from 'fastify';
import { AppError } from '../../errors.ts';
import type { RouteModule } from '../../http/route-module.ts';
import { tenantOf } from '../../http/plugins/tenant-scope.ts';
import { PageOf, withErrors } from '../../http/schemas.ts';
import { listCodes, typesWhere } from '../../dte/index.ts';
import {
  AcceptanceBody,
  AcceptanceXmlParams,
  ListReceivedQuery,
  ReceiveQuery,
  ReceiveResponse,
  ReceivedDteSchema,
  ReceivedEnvioParams,
  ReceivedEnvioSchema,
  ReceivedParams,
  ReceivedPdfQuery,
  TenantParams,
} from './received.schemas.ts';

/**
 * Documents suppliers send to a tenant (docs/received.md). The upload is the EnvioDTE itself as
 * the body (application/xml or text/xml, at most RECEIVED_MAX_BYTES), parsed only in this
 * module's scope; everything else is JSON, the document's XML and the signed answer.
 */
export const RECEIVED_MAX_BYTES = 5 * 1024 * 1024;
const XML_TYPES = ['application/xml', 'text/xml'];
const XML_TYPE = 'application/xml; charset=ISO-8859-1';

const xmlResponse = (description: string): FastifySchema['response'] => ({
  ...withErrors({}),
  200: { description, content: { [XML_TYPE]: { schema: { type: 'string' } } } },
});

const routes: RouteModule = async (app, { ctx }) => {
  const { received } = ctx.services;

  await app.register(async (scope) => {
    scope.addContentTypeParser(XML_TYPES, { parseAs: 'buffer', bodyLimit: RECEIVED_MAX_BYTES }, (_req, body, done) => done(null, body));
    scope.post<{ Params: Static<typeof TenantParams>; Querystring: Static<typeof ReceiveQuery> }>(
      '/api/v1/tenants/:tenantId/received',
      {
        bodyLimit: RECEIVED_MAX_BYTES,
        schema: {
          tags: ['Received'],
          summary: "Receive a supplier's EnvioDTE: verify it, store its documents once, answer the signed RespuestaEnvioDTE",
          description:
            `The envelope itself as the body, Content-Type application/xml (or text/xml), at most ${RECEIVED_MAX_BYTES / 1024 / 1024} MiB ` +
            '(413 body_too_large). Verified in order: no DTD or entities, depth, encoding (400 xml_*), the SII schema, the envelope ' +
            'signature, the carátula, Caratula RutReceptor = the tenant (422 envelope_* / receptor_mismatch), then each DTE: its ' +
            'signature, its timbre (TED) and CAF against the SII keys, RUTRecep = the tenant (422 document_* / receptor_mismatch when ' +
            'no document can be received). 201 when a document is new, 200 when every document was already received (answered ' +
            '"DTE Repetido") or refused. The tenant needs its certificate (409 certificate_not_configured): the answer is signed with it. ' +
            "The answer is also e-mailed to the supplier's CorreoEmisor, or to respuestaA (GET …/received/envios/{envioId}/deliveries).",
          consumes: XML_TYPES,
          // Documents the body for OpenAPI; validation has nothing to check (the bytes are a Buffer).
          body: { description: "The supplier's EnvioDTE, byte for byte (ISO-8859-1 as the SII writes it).", format: 'binary' },
          params: TenantParams,
          querystring: ReceiveQuery,
          response: withErrors({ 200: ReceiveResponse, 201: ReceiveResponse }),
        } as FastifySchema,
      },
      async (req, reply) => {
        if (!Buffer.isBuffer(req.body))
          throw new AppError(
            'unsupported_media_type',
            'unsupported_media_type',
            "Send the supplier's EnvioDTE itself as the body, with Content-Type application/xml.",
          );
        const r = await received.receive(tenantOf(req), req.body, {
          nombreEnvio: req.query.nombreEnvio,
          respuestaA: req.query.respuestaA,
        });
        return reply.status(r.created ? 201 : 200).send({ envio: r.envio, respuestaXml: r.respuestaXml });
      },
    );
  });

  app.get<{ Params: Static<typeof TenantParams>; Querystring: Static<typeof ListReceivedQuery> }>(
    '/api/v1/tenants/:tenantId/received',
    {
      schema: {
        tags: ['Received'],
        summary: 'List received documents, newest first',
        description:
          'Filters: rutEmisor (the supplier), tipoDte, status, fechaDesde/fechaHasta (date of issue, inclusive), ' +
          'recibidoDesde/recibidoHasta (reception instant, from inclusive, to exclusive).',
        params: TenantParams,
        querystring: ListReceivedQuery,
        response: withErrors({ 200: PageOf(ReceivedDteSchema) }),
      },
    },
    async (req) => received.list(tenantOf(req), { ...req.query, limit: req.query.limit ?? 50 }),
  );

  app.get<{ Params: Static<typeof ReceivedEnvioParams> }>(
    '/api/v1/tenants/:tenantId/received/envios/:envioId',
    {
      schema: {
        tags: ['Received'],
        summary: 'One upload: what each of its documents came to',
        params: ReceivedEnvioParams,
        response: withErrors({ 200: ReceivedEnvioSchema }),
      },
    },
    async (req) => received.envio(tenantOf(req), req.params.envioId),
  );

  app.get<{ Params: Static<typeof ReceivedEnvioParams> }>(
    '/api/v1/tenants/:tenantId/received/envios/:envioId/respuesta',
    {
      schema: {
        tags: ['Received'],
        summary: 'The signed RespuestaEnvioDTE answered for that upload, byte for byte',
        params: ReceivedEnvioParams,
        response: xmlResponse('The RespuestaEnvioDTE (root RespuestaDTE), ISO-8859-1 declared, ASCII bytes.'),
      },
    },
    async (req, reply) => reply.type(XML_TYPE).send(await received.respuesta(tenantOf(req), req.params.envioId)),
  );

  app.get<{ Params: Static<typeof ReceivedParams> }>(
    '/api/v1/tenants/:tenantId/received/:receivedId',
    {
      schema: {
        tags: ['Received'],
        summary: 'Read a received document',
        params: ReceivedParams,
        response: withErrors({ 200: ReceivedDteSchema }),
      },
    },
    async (req) => received.get(tenantOf(req), req.params.receivedId),
  );

  app.get<{ Params: Static<typeof ReceivedParams> }>(
    '/api/v1/tenants/:tenantId/received/:receivedId/xml',
    {
      schema: {
        tags: ['Received'],
        summary: 'The received DTE as it arrived, byte for byte',
        description: "The DTE's bytes as they were in the supplier's envelope, with an XML declaration of the envelope's encoding.",
        params: ReceivedParams,
        response: xmlResponse('The DTE as received.'),
      },
    },
    async (req, reply) => {
      const xml = await received.xml(tenantOf(req), req.params.receivedId);
      // Stored with the declaration of the envelope's encoding (ISO-8859-1, UTF-8 or windows-1252).
      const encoding = /^<\?xml[^>]*encoding="([A-Za-z0-9_-]+)"/.exec(xml.subarray(0, 80).toString('latin1'))?.[1] ?? 'ISO-8859-1';
      return reply.type(`application/xml; charset=${encoding}`).send(xml);
    },
  );

  app.get<{ Params: Static<typeof ReceivedParams>; Querystring: Static<typeof ReceivedPdfQuery> }>(
    '/api/v1/tenants/:tenantId/received/:receivedId/pdf',
    {
      schema: {
        tags: ['Received'],
        summary: 'The printed document of a received DTE (PDF)',
        description: "Read from the DTE as received: the supplier's data, the timbre (PDF417), formato=carta (default) or 80mm.",
        params: ReceivedParams,
        querystring: ReceivedPdfQuery,
        response: {
          ...withErrors({}),
          200: { description: 'The PDF.', content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } },
        },
      },
    },
    async (req, reply) => {
      const r = await received.pdf(tenantOf(req), req.params.receivedId, { formato: req.query.formato ?? 'carta' });
      return reply.type('application/pdf').header('Content-Disposition', `inline; filename="${r.filename}"`).send(r.pdf);
    },
  );

  app.post<{ Params: Static<typeof ReceivedParams>; Body: Static<typeof AcceptanceBody> }>(
    '/api/v1/tenants/:tenantId/received/:receivedId/acceptance',
    {
      schema: {
        tags: ['Received'],
        summary: 'Accept or claim a received factura (Ley 19.983), within its eight days, and register it at the SII',
        description:
          `ACD or ERM → accepted; RCD, RFP or RFT → claimed; facturas ${listCodes(typesWhere((t) => t.acciones.length > 0))} only (422 acceptance_not_applicable). After ` +
          'acceptanceDeadline → 409 acceptance_window_closed. As the SII registers them: an action already recorded returns the ' +
          'record; ACD and ERM go together, so do different claims; a claim after an acceptance → 409 document_already_accepted, ' +
          'an acceptance after a claim → 409 document_already_claimed. The answer is recorded with its signed document for the ' +
          'supplier (ResultadoDTE, or EnvioRecibos for ERM; GET …/acceptance/{n}/xml), then registered at the SII through the ' +
          'provider: 200 when the SII holds it (registeredAtSii true); 202 when it could not be asked now (sii.state pending, ' +
          'retried by the service; asking again retries at once); 422 acceptance_refused_by_sii with the SII code when it refuses. ' +
          "Each new answer's signed document is e-mailed to the supplier's CorreoEmisor, or to respuestaA " +
          '(GET …/received/{receivedId}/deliveries).',
        params: ReceivedParams,
        body: AcceptanceBody,
        response: withErrors({ 200: ReceivedDteSchema, 202: ReceivedDteSchema }),
      },
    },
    async (req, reply) => {
      const r = await received.accept(tenantOf(req), req.params.receivedId, req.body);
      return reply.status(r.state === 'registered' ? 200 : 202).send(r.dte);
    },
  );

  app.get<{ Params: Static<typeof AcceptanceXmlParams> }>(
    '/api/v1/tenants/:tenantId/received/:receivedId/acceptance/:n/xml',
    {
      schema: {
        tags: ['Received'],
        summary: "The signed answer for the supplier of the document's answer n (RespuestaDTE with ResultadoDTE, or EnvioRecibos)",
        description:
          'ACD, RCD, RFP, RFT: a RespuestaDTE with one ResultadoDTE (RespuestaEnvioDTE_v10.xsd); ERM: an EnvioRecibos with one ' +
          'signed Recibo (EnvioRecibos_v10.xsd, Ley 19.983). Signed with the tenant certificate, ISO-8859-1 declared, ASCII bytes.',
        params: AcceptanceXmlParams,
        response: xmlResponse('The signed RespuestaDTE or EnvioRecibos.'),
      },
    },
    async (req, reply) => {
      const r = await received.acceptanceXml(tenantOf(req), req.params.receivedId, req.params.n);
      return reply.type(XML_TYPE).header('Content-Disposition', `inline; filename="${r.tipo}-${req.params.n}.xml"`).send(r.xml);
    },
  );
};

export default routes;
