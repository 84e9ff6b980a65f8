import type { Static } from '@sinclair/typebox';
import type { RouteModule } from '../../http/route-module.ts';
import { idempotencyBinder } from '../../http/plugins/idempotency.ts';
import { tenantOf } from '../../http/plugins/tenant-scope.ts';
import { withErrors } from '../../http/schemas.ts';
import { DeliveryList, DeliverySchema } from '../exchange/index.ts';
import { ResendBody, TenantDteParams } from './dte.schemas.ts';

/**
 * A document's deliveries to its receptor (docs/exchange.md): a route of its own beside the
 * document rather than a field of it, so the DTE record stays the dte module's and a delivery's
 * retries never change the document's `updatedAt`. The records are the exchange module's outbox's,
 * read through its public surface (dte.deliveries.ts).
 */
const routes: RouteModule = async (app, { ctx }) => {
  const { dteDeliveries } = ctx.services;
  app.replayIdempotent('delivery', async (accountId, id) => {
    const d = await dteDeliveries.byId(accountId, id);
    return d ? { statusCode: 202, body: d } : undefined;
  });

  app.get<{ Params: Static<typeof TenantDteParams> }>(
    '/api/v1/tenants/:tenantId/dte/:dteId/deliveries',
    {
      schema: {
        tags: ['DTE'],
        summary: "The document's deliveries to its receptor (EnvioDTE + PDF by e-mail), oldest first",
        description:
          'One automatic delivery when the SII accepts a document that is not a boleta (skipped when the receptor has no correo), ' +
          'plus one per resend. Boletas have none.',
        params: TenantDteParams,
        response: withErrors({ 200: DeliveryList }),
      },
    },
    async (req) => dteDeliveries.list(tenantOf(req), req.params.dteId),
  );

  app.post<{ Params: Static<typeof TenantDteParams>; Body: Static<typeof ResendBody> }>(
    '/api/v1/tenants/:tenantId/dte/:dteId/deliveries',
    {
      schema: {
        tags: ['DTE'],
        summary: 'Send an accepted document to its receptor again',
        description:
          "202 with the new delivery (pending). `to` defaults to the receptor's correo. 409 dte_not_accepted before the SII " +
          'accepted it, delivery_not_applicable for a boleta, receptor_email_missing when there is no address.',
        params: TenantDteParams,
        body: ResendBody,
        response: withErrors({ 202: DeliverySchema }),
      },
    },
    async (req, reply) =>
      reply
        .status(202)
        .send(
          await dteDeliveries.resend(tenantOf(req), req.params.dteId, req.body ?? {}, { bindResult: idempotencyBinder(req, 'delivery') }),
        ),
  );
};

export default routes;
