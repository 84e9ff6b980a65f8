import { Type, type Static } from '@sinclair/typebox';
import { apiActor } from '../../http/audit-actor.ts';
import type { FastifySchemaCompiler } from 'fastify';
import { isMultipartBody, parseMultipart } from '../../http/multipart.ts';
import { idempotencyBinder } from '../../http/plugins/idempotency.ts';
import { tenantOf } from '../../http/plugins/tenant-scope.ts';
import { IdParams, withErrors } from '../../http/schemas.ts';
import { validatorCompiler } from '../../http/validation.ts';
import { errors } from '../../errors.ts';
import type { RouteModule } from '../../http/route-module.ts';
import {
  ActivationLinkSchema,
  ApiKeyBody,
  ApiKeyResult,
  CertificateEntrySchema,
  CertificateForm,
  CertificatePatchBody,
  CredentialStatusSchema,
  parseCertificateForm,
} from './credentials.schemas.ts';

const TenantParams = IdParams('tenantId', 'Tenant id');
const CertificateParams = Type.Object(
  { tenantId: Type.String({ maxLength: 64 }), certificateId: Type.String({ maxLength: 64, description: 'Certificate id' }) },
  { additionalProperties: false },
);

/** Multipart bodies are checked by parseCertificateForm (named fields, same error codes). */
const skipBodyValidation: FastifySchemaCompiler<unknown> = (route) => (route.httpPart === 'body' ? () => true : validatorCompiler(route));

const routes: RouteModule = async (app, { ctx }) => {
  const { credentials, activation } = ctx.services;
  app.replayIdempotent('certificate', async (accountId, id) => ({
    statusCode: 201,
    body: await credentials.certificateById(accountId, id),
  }));
  // Schemas are inlined, not added with app.addSchema: a schema added in this encapsulated
  // context would give it a fresh schema controller with Fastify's default (coercing) validator.
  // Every route here is under /api/v1/tenants/:tenantId, which the tenant-scope plugin resolves
  // (another account's tenant is a 404 before any handler runs); handlers read it with tenantOf.

  app.post<{ Params: { tenantId: string } }>(
    '/api/v1/tenants/:tenantId/activation-link',
    {
      schema: {
        tags: ['Credentials'],
        summary: 'Create an activation link for the hosted page',
        description:
          "Returns a single-use link to the hosted activation page, where the tenant's customer enters the billing-provider " +
          'API key and uploads the certificate. A new link invalidates the pending one. Lifetime ACTIVATION_LINK_TTL (7 days).',
        params: TenantParams,
        response: withErrors({ 201: ActivationLinkSchema }),
      },
    },
    async (req, reply) => {
      const tenant = tenantOf(req);
      return reply.status(201).send(await activation.createLink(tenant.account_id, tenant.id, apiActor(req)));
    },
  );

  app.post<{ Params: { tenantId: string }; Body: Static<typeof ApiKeyBody> }>(
    '/api/v1/tenants/:tenantId/credentials/api-key',
    {
      schema: {
        tags: ['Credentials'],
        summary: "Set the tenant's billing-provider API key",
        description:
          'The key is verified with the provider before it is saved. Rejected → 422 provider_api_key_invalid; expired → 422 ' +
          'provider_api_key_expired; provider unreachable → 502 provider_unavailable (nothing saved).',
        params: TenantParams,
        body: ApiKeyBody,
        response: withErrors({ 200: ApiKeyResult }, [502, 504]),
      },
    },
    async (req) => {
      const tenant = tenantOf(req);
      return credentials.setApiKey(tenant.account_id, tenant.id, req.body.apiKey, apiActor(req));
    },
  );

  // The multipart parser lives in a child scope so only this route accepts multipart bodies.
  await app.register(async (scope) => {
    scope.addContentTypeParser(
      'multipart/form-data',
      { parseAs: 'buffer', bodyLimit: ctx.config.certificateLimitBytes + 64 * 1024 },
      (req, body, done) => {
        try {
          done(null, parseMultipart(body as Buffer, req.headers['content-type'], { maxFileBytes: ctx.config.certificateLimitBytes }));
        } catch (e) {
          done(e as Error, undefined);
        }
      },
    );
    scope.post<{ Params: { tenantId: string } }>(
      '/api/v1/tenants/:tenantId/credentials/certificate',
      {
        bodyLimit: ctx.config.certificateLimitBytes + 64 * 1024,
        validatorCompiler: skipBodyValidation,
        schema: {
          tags: ['Credentials'],
          summary: 'Upload a signing certificate (.pfx)',
          description:
            'multipart/form-data with the fields file, password, rutCertificado, nombreTitular, fechaVencimiento, esPrincipal. ' +
            'The .pfx is the truth: it must open with the password, hold the private key of its certificate, be current, carry ' +
            'the holder RUT rutCertificado, and expire within a day of fechaVencimiento. The first certificate is primary; ' +
            'esPrincipal=true makes this one primary.',
          consumes: ['multipart/form-data'],
          params: TenantParams,
          body: CertificateForm,
          response: withErrors({ 201: CertificateEntrySchema }),
        },
      },
      async (req, reply) => {
        if (!isMultipartBody(req.body))
          throw errors.invalid('invalid_multipart', 'Send the certificate as multipart/form-data with a file part named file.');
        const input = parseCertificateForm(req.body);
        const tenant = tenantOf(req);
        return reply
          .status(201)
          .send(
            await credentials.addCertificate(
              tenant.account_id,
              tenant.id,
              input,
              { bindResult: idempotencyBinder(req, 'certificate') },
              apiActor(req),
            ),
          );
      },
    );
  });

  app.get<{ Params: { tenantId: string } }>(
    '/api/v1/tenants/:tenantId/credentials/status',
    {
      schema: {
        tags: ['Credentials'],
        summary: "Read the tenant's credential status",
        params: TenantParams,
        response: withErrors({ 200: CredentialStatusSchema }),
      },
    },
    async (req) => {
      const tenant = tenantOf(req);
      return credentials.status(tenant.account_id, tenant.id);
    },
  );

  app.patch<{ Params: { tenantId: string; certificateId: string }; Body: Static<typeof CertificatePatchBody> }>(
    '/api/v1/tenants/:tenantId/credentials/certificates/:certificateId',
    {
      schema: {
        tags: ['Credentials'],
        summary: 'Make a certificate the primary',
        description:
          'With {"esPrincipal": true} this certificate signs the tenant\'s documents from now on and the others are demoted. ' +
          'A tenant always has exactly one primary, so {"esPrincipal": false} → 422 certificate_primary_required.',
        params: CertificateParams,
        body: CertificatePatchBody,
        response: withErrors({ 200: CertificateEntrySchema }),
      },
    },
    async (req) => {
      if (!req.body.esPrincipal)
        throw errors.unprocessable(
          'certificate_primary_required',
          'A tenant always has one primary certificate. To change it, send {"esPrincipal": true} for the certificate that should sign instead.',
          { param: 'esPrincipal' },
        );
      const tenant = tenantOf(req);
      return credentials.makePrincipal(tenant.account_id, tenant.id, req.params.certificateId, apiActor(req));
    },
  );

  app.delete<{ Params: { tenantId: string; certificateId: string } }>(
    '/api/v1/tenants/:tenantId/credentials/certificates/:certificateId',
    {
      schema: {
        tags: ['Credentials'],
        summary: 'Delete a certificate',
        description:
          'Removes the certificate and its secrets. When it was primary, the remaining certificate that expires last becomes primary.',
        params: CertificateParams,
        response: withErrors({ 204: Type.Null({ description: 'Deleted' }) }),
      },
    },
    async (req, reply) => {
      const tenant = tenantOf(req);
      await credentials.deleteCertificate(tenant.account_id, tenant.id, req.params.certificateId, apiActor(req));
      return reply.status(204).send();
    },
  );
};

export default routes;
