import type { Static } from '@sinclair/typebox';
import type { RouteModule } from '../../http/route-module.ts';
import { tenantOf } from '../../http/plugins/tenant-scope.ts';
import { withErrors } from '../../http/schemas.ts';
import { DeliveryList } from '../exchange/index.ts';
import { ReceivedEnvioParams, ReceivedParams } from './received.schemas.ts';

/**
 * The tenant's signed answers to its suppliers (docs/received.md, "Sending the signed answers"):
 * beside the received document and the envío, as a document's deliveries are beside it. The
 * records are the exchange module's outbox's, read through its public surface (received.deliveries.ts).
 */
const routes: RouteModule = async (app, { ctx }) => {
  const { receivedDeliveries } = ctx.services;

  app.get<{ Params: Static<typeof ReceivedParams> }>(
    '/api/v1/tenants/:tenantId/received/:receivedId/deliveries',
    {
      schema: {
        tags: ['Received'],
        summary: "The document's signed answers sent to the supplier (ResultadoDTE, EnvioRecibos by e-mail), oldest first",
        description:
          'One delivery (kind respuesta, trigger accion) per answer recorded by POST …/acceptance, to the supplier’s CorreoEmisor or ' +
          'the request’s respuestaA; skipped when there is no address (supplier_email_missing / supplier_email_invalid).',
        params: ReceivedParams,
        response: withErrors({ 200: DeliveryList }),
      },
    },
    async (req) => receivedDeliveries.ofDocument(tenantOf(req), req.params.receivedId),
  );

  app.get<{ Params: Static<typeof ReceivedEnvioParams> }>(
    '/api/v1/tenants/:tenantId/received/envios/:envioId/deliveries',
    {
      schema: {
        tags: ['Received'],
        summary: "The upload's RespuestaEnvioDTE sent to the supplier by e-mail",
        description:
          'One delivery (kind respuesta, trigger recepcion) per upload, to the supplier’s CorreoEmisor or the upload’s respuestaA; ' +
          'skipped when there is no address.',
        params: ReceivedEnvioParams,
        response: withErrors({ 200: DeliveryList }),
      },
    },
    async (req) => receivedDeliveries.ofEnvio(tenantOf(req), req.params.envioId),
  );
};

export default routes;
