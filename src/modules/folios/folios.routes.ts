import type { Static } from '@sinclair/typebox';
import { apiActor } from '../../http/audit-actor.ts';
import type { FastifySchemaCompiler } from 'fastify';
import { AppError, errors } from '../../errors.ts';
import { isMultipartBody, parseMultipart, type MultipartBody } from '../../http/multipart.ts';
import type { RouteModule } from '../../http/route-module.ts';
import { idempotencyBinder } from '../../http/plugins/idempotency.ts';
import { tenantOf } from '../../http/plugins/tenant-scope.ts';
import { withErrors } from '../../http/schemas.ts';
import { validatorCompiler } from '../../http/validation.ts';
import type { FolioRequestOutcome } from './folios.request.ts';
import { CAF_MAX_BYTES } from './folios.upload.ts';
import {
  CafUploadForm,
  FolioRequestBody,
  FolioRequestSchema,
  InventoryItemSchema,
  InventorySchema,
  RequestParams,
  TenantParams,
  ThresholdBody,
  TipoParams,
  UploadedCafSchema,
} from './folios.schemas.ts';

/** A request answered within the wait is created (201); one still running is accepted (202), to poll. */
const REQUEST_STATUS: Record<FolioRequestOutcome['state'], 201 | 202> = { completed: 201, pending: 202 };

/** The upload's multipart body is read by cafFile (one file part, `file`), not by the JSON validator. */
const skipBodyValidation: FastifySchemaCompiler<unknown> = (route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route));

/** The one part the CAF upload takes, with the same error shapes as the other multipart route. */
function cafFile(body: unknown): Buffer {
  if (!isMultipartBody(body))
    throw new AppError(
      'unsupported_media_type',
      'unsupported_media_type',
      'Send the CAF as multipart/form-data with a file part named file.',
    );
  const { fields, files }: MultipartBody = body;
  for (const name of Object.keys(fields))
    throw errors.invalid(
      'invalid_field',
      name === 'file'
        ? "The field 'file' must be a file part (with a filename)."
        : `Unknown field '${name}': send only the file part 'file'.`,
      { param: name },
    );
  for (const name of Object.keys(files))
    if (name !== 'file') throw errors.invalid('invalid_field', `Unknown file field '${name}'; send the CAF as 'file'.`, { param: name });
  const file = files.file;
  if (!file)
    throw errors.invalid('invalid_field', "The field 'file' is required: the CAF file as downloaded from the SII.", { param: 'file' });
  return file.data;
}

/** The tenant of every route here is resolved once by the tenant-scope plugin (src/http/plugins/tenant-scope.ts). */
const routes: RouteModule = async (app, { ctx }) => {
  const { folios } = ctx.services;
  // As the route answers below; a failed request throws its stored error.
  app.replayIdempotent('folio_request', async (accountId, id) => {
    const r = await folios.requestOutcomeById(accountId, id);
    return { statusCode: REQUEST_STATUS[r.state], body: r.request };
  });
  app.post<{ Params: Static<typeof TenantParams>; Body: Static<typeof FolioRequestBody> }>(
    '/api/v1/tenants/:tenantId/folios/request',
    {
      schema: {
        tags: ['Folios'],
        summary: 'Request folios (a CAF) from the tax authority',
        description:
          'Runs as a background job. Waits up to FOLIO_REQUEST_WAIT (25 s) and answers 201 with the authorized range, or 202 with the ' +
          'pending request to poll at GET …/folios/requests/{requestId}. Needs both tenant credentials (409 tenant_not_ready).',
        params: TenantParams,
        body: FolioRequestBody,
        response: withErrors({ 201: FolioRequestSchema, 202: FolioRequestSchema }, [502, 503, 504]),
      },
    },
    async (req, reply) => {
      const r = await folios.request(tenantOf(req), req.body, { bindResult: idempotencyBinder(req, 'folio_request') }, apiActor(req));
      return reply.status(REQUEST_STATUS[r.state]).send(r.request);
    },
  );
  app.replayIdempotent('folio_range', async (accountId, id) => ({ statusCode: 201, body: await folios.uploadedCafById(accountId, id) }));
  // The multipart parser lives in a child scope so only this route accepts multipart bodies.
  await app.register(async (scope) => {
    const bodyLimit = CAF_MAX_BYTES + 8 * 1024;
    scope.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit }, (req, body, done) => {
      try {
        done(null, parseMultipart(body as Buffer, req.headers['content-type'], { maxParts: 4, maxFileBytes: CAF_MAX_BYTES }));
      } catch (e) {
        done(e as Error, undefined);
      }
    });
    scope.post<{ Params: Static<typeof TenantParams> }>(
      '/api/v1/tenants/:tenantId/folios/caf',
      {
        bodyLimit,
        validatorCompiler: skipBodyValidation,
        schema: {
          tags: ['Folios'],
          summary: 'Upload a CAF downloaded from the tax authority',
          description:
            'multipart/form-data with one file part, file: the CAF (XML, root <AUTORIZACION>) as the SII gives it, at most 16 KiB. ' +
            "Needs no credentials. It must be signed by the SII (IDK 100 for a certificacion tenant, 300 for produccion) or by a key in SII_CAF_KEYS, be for the tenant's RUT and a supported type, " +
            'not be expired, carry its private key (RSASK, matching RSAPK), and overlap none of the tenant’s CAFs of that type (409 caf_overlap, ' +
            'details.overlapping). 201 with the range, usable at once; the same CAF uploaded again → 200 with the range already stored. ' +
            'Every refusal is a 4xx with its code (docs/folios.md, "Uploading a CAF").',
          consumes: ['multipart/form-data'],
          params: TenantParams,
          body: CafUploadForm,
          response: withErrors({ 200: UploadedCafSchema, 201: UploadedCafSchema }),
        },
      },
      async (req, reply) => {
        const r = await folios.uploadCaf(
          tenantOf(req),
          cafFile(req.body),
          { bindResult: idempotencyBinder(req, 'folio_range') },
          apiActor(req),
        );
        return reply.status(r.created ? 201 : 200).send(r.caf);
      },
    );
  });
  app.get<{ Params: Static<typeof RequestParams> }>(
    '/api/v1/tenants/:tenantId/folios/requests/:requestId',
    {
      schema: {
        tags: ['Folios'],
        summary: 'Read a folio request',
        params: RequestParams,
        response: withErrors({ 200: FolioRequestSchema }),
      },
    },
    async (req) => folios.getRequest(tenantOf(req), req.params.requestId),
  );
  app.get<{ Params: Static<typeof TenantParams> }>(
    '/api/v1/tenants/:tenantId/folios',
    {
      schema: {
        tags: ['Folios'],
        summary: 'Folio inventory per document type',
        description: 'Counts cover the usable ranges: not used up and not expired.',
        params: TenantParams,
        response: withErrors({ 200: InventorySchema }),
      },
    },
    async (req) => folios.inventory(tenantOf(req)),
  );
  app.patch<{ Params: Static<typeof TipoParams>; Body: Static<typeof ThresholdBody> }>(
    '/api/v1/tenants/:tenantId/folios/:tipoDte',
    {
      schema: {
        tags: ['Folios'],
        summary: 'Set the folio.low threshold of a document type',
        params: TipoParams,
        body: ThresholdBody,
        response: withErrors({ 200: InventoryItemSchema }),
      },
    },
    async (req) => folios.setThreshold(tenantOf(req), req.params.tipoDte, req.body.lowThreshold),
  );
};

export default routes;
