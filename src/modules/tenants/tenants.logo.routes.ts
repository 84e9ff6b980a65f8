import { Type } from '@sinclair/typebox';
import { apiActor } from '../../http/audit-actor.ts';
import type { FastifyInstance, FastifySchema } from 'fastify';
import type { AppContext } from '../../context.ts';
import { AppError, errors } from '../../errors.ts';
import { tenantOf } from '../../http/plugins/tenant-scope.ts';
import { IdParams, withErrors } from '../../http/schemas.ts';
import { LOGO_BOX, LOGO_MAX_BYTES, LOGO_MAX_DECODED_BYTES, LOGO_MAX_SIDE, LOGO_MIN_SIDE } from '../../pdf/index.ts';

const TenantParams = IdParams('tenantId', 'Tenant id');

const LogoSchema = Type.Object(
  {
    contentType: Type.Literal('image/png', { description: 'What is stored and printed: the upload re-encoded as PNG.' }),
    width: Type.Integer(),
    height: Type.Integer(),
    bytes: Type.Integer(),
    source: Type.Object({ format: Type.String({ description: 'png or jpeg' }), bytes: Type.Integer() }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'TenantLogo', title: 'TenantLogo' },
);

const IMAGE_TYPES = ['image/png', 'image/jpeg'];

/**
 * PUT/GET/DELETE /api/v1/tenants/{tenantId}/logo (docs/dte.md, "The logo"). The upload is the raw
 * image as the body (Content-Type image/png or image/jpeg), at most LOGO_MAX_BYTES; PUT replaces.
 * Registered in its own scope so only this route reads image bodies.
 */
export async function logoRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { tenantLogos } = ctx.services;
  await app.register(async (scope) => {
    scope.addContentTypeParser(IMAGE_TYPES, { parseAs: 'buffer', bodyLimit: LOGO_MAX_BYTES }, (_req, body, done) => done(null, body));
    scope.put<{ Params: { tenantId: string } }>(
      '/api/v1/tenants/:tenantId/logo',
      {
        bodyLimit: LOGO_MAX_BYTES,
        schema: {
          tags: ['Tenants'],
          summary: "Upload or replace the tenant's logo",
          description:
            `The image file itself as the body, Content-Type image/png or image/jpeg, at most ${LOGO_MAX_BYTES / 1024} KiB ` +
            `(413 body_too_large), ${LOGO_MIN_SIDE}–${LOGO_MAX_SIDE} pixels a side and at most ` +
            `${(LOGO_MAX_DECODED_BYTES / 4 / 1e6).toFixed(1)} megapixels (half that at 16 bits per channel). It is decoded in full, ` +
            'in a separate process one upload at a time, and re-encoded as PNG ' +
            `(at most ${LOGO_BOX.width} × ${LOGO_BOX.height} pixels, metadata dropped); that PNG is what the printed documents show. ` +
            'A file that is not a real, decodable PNG or JPEG → 400 invalid_logo (details.reason: empty, not_png_or_jpeg, ' +
            'content_type_mismatch, undecodable, dimensions, too_many_pixels); another Content-Type → 415 unsupported_media_type; ' +
            'too many logos being checked at once → 503 busy with Retry-After.',
          consumes: IMAGE_TYPES,
          params: TenantParams,
          response: withErrors({ 200: LogoSchema }),
        } as FastifySchema,
      },
      async (req) => {
        if (req.body !== undefined && !Buffer.isBuffer(req.body))
          throw new AppError(
            'unsupported_media_type',
            'unsupported_media_type',
            'Send the logo file itself as the body, with Content-Type image/png or image/jpeg.',
          );
        return tenantLogos.put(tenantOf(req), req.body ?? Buffer.alloc(0), req.headers['content-type'], apiActor(req));
      },
    );
  });

  app.get<{ Params: { tenantId: string } }>(
    '/api/v1/tenants/:tenantId/logo',
    {
      schema: {
        tags: ['Tenants'],
        summary: "The tenant's logo (PNG), as its documents print it",
        description: 'No logo → 404 logo_not_found. `?info=true` answers its description as JSON instead of the image.',
        params: TenantParams,
        querystring: Type.Object({ info: Type.Optional(Type.Boolean({ default: false })) }, { additionalProperties: false }),
        response: {
          ...withErrors({}),
          200: {
            description: 'The PNG, or with info=true its description.',
            content: { 'image/png': { schema: { type: 'string', format: 'binary' } }, 'application/json': { schema: LogoSchema } },
          },
        },
      } as FastifySchema,
    },
    async (req, reply) => {
      const tenant = tenantOf(req);
      if ((req.query as { info?: boolean }).info) return reply.type('application/json; charset=utf-8').send(await tenantLogos.info(tenant));
      const png = await tenantLogos.png(tenant);
      if (!png) throw errors.notFound('logo');
      return reply.type('image/png').header('Cache-Control', 'private, no-cache').send(png);
    },
  );

  app.delete<{ Params: { tenantId: string } }>(
    '/api/v1/tenants/:tenantId/logo',
    {
      schema: {
        tags: ['Tenants'],
        summary: "Remove the tenant's logo",
        description: 'Documents print without a logo from then on. No logo → 404 logo_not_found.',
        params: TenantParams,
        response: withErrors({ 204: Type.Null({ description: 'Removed' }) }),
      },
    },
    async (req, reply) => {
      await tenantLogos.remove(tenantOf(req), apiActor(req));
      return reply.status(204).send();
    },
  );
}
