import { Type, type Static } from '@sinclair/typebox';
import type { RouteModule } from '../../http/route-module.ts';
import { tenantOf } from '../../http/plugins/tenant-scope.ts';
import { Livemode, Uuid, withErrors, Timestamp } from '../../http/schemas.ts';
import { CreateDteBody, DTE_STATUSES, SendResponse } from '../dte/index.ts';
import { TenantParams } from './certification.schemas.ts';
import { SIMULATION_MAX_DOCUMENTS } from './certification.simulation.ts';

/** The certification's simulation (docs/certification.md, "The simulation"). */
const SimulationParams = Type.Object(
  { tenantId: Type.String({ maxLength: 64 }), simulationId: Type.String({ maxLength: 64, description: 'Simulation id' }) },
  { additionalProperties: false },
);

const SimulationBody = Type.Object(
  {
    documents: Type.Array(CreateDteBody, {
      minItems: 1,
      maxItems: SIMULATION_MAX_DOCUMENTS,
      description:
        "The documents of the simulation, each as POST …/dte takes it: the company's own kind of documents (the SII asks for 20 " +
        "to 100 like its real operation), without the test set's reference (tipoDocRef SET). Made in this order.",
    }),
  },
  { additionalProperties: false },
);

const SimulationSchema = Type.Object(
  {
    id: Uuid(),
    object: Type.Literal('certification_simulation'),
    tenantId: Uuid(),
    documents: Type.Array(
      Type.Object({
        dteId: Uuid(),
        tipoDte: Type.Integer({ examples: [33] }),
        folio: Type.Integer({ examples: [12] }),
        status: Type.Union(
          DTE_STATUSES.map((s) => Type.Literal(s)),
          { description: 'As GET …/dte/{dteId}/status says.' },
        ),
      }),
    ),
    statuses: Type.Object(Object.fromEntries(DTE_STATUSES.map((s) => [s, Type.Integer({ minimum: 0, examples: [0] })])), {
      description: "How many of the run's documents are in each status.",
    }),
    done: Type.Boolean({ description: 'Every document accepted without objections, as the SII requires of the simulation.' }),
    livemode: Livemode(),
    createdAt: Timestamp(),
  },
  { $id: 'CertificationSimulation', title: 'CertificationSimulation' },
);

const routes: RouteModule = async (app, { ctx }) => {
  const { certificationSimulation } = ctx.services;

  app.post<{ Params: Static<typeof TenantParams>; Body: Static<typeof SimulationBody> }>(
    '/api/v1/tenants/:tenantId/certification/simulation',
    {
      schema: {
        tags: ['Certification'],
        summary: "Make a simulation run: the company's own documents, without the test set's references",
        description:
          'Makes every document as POST …/dte does (ambiente certificacion, 409 certification_tenant_not_in_certification otherwise), ' +
          'all or none: each is checked first (422 certification_simulation_unbuildable naming each document and why; a SET ' +
          'reference is one) and the folios counted (409 certification_folios_missing). 201 with the run. Not sent: POST …/send.',
        params: TenantParams,
        body: SimulationBody,
        response: withErrors({ 201: SimulationSchema }),
      },
    },
    async (req, reply) => reply.status(201).send(await certificationSimulation.create(tenantOf(req), req.body.documents)),
  );

  app.get<{ Params: Static<typeof SimulationParams> }>(
    '/api/v1/tenants/:tenantId/certification/simulation/:simulationId',
    {
      schema: {
        tags: ['Certification'],
        summary: "A simulation run: each document's status",
        params: SimulationParams,
        response: withErrors({ 200: SimulationSchema }),
      },
    },
    async (req) => certificationSimulation.get(tenantOf(req), req.params.simulationId),
  );

  app.post<{ Params: Static<typeof SimulationParams> }>(
    '/api/v1/tenants/:tenantId/certification/simulation/:simulationId/send',
    {
      schema: {
        tags: ['Certification'],
        summary: "Send the run's documents to the SII",
        description:
          "Sends the run's documents not sent yet through the tenant's provider, as POST …/dte/send does (one envelope per kind: " +
          'EnvioDTE, EnvioBOLETA). 202 with the envelopes; again, envios []. Follow them on GET …/simulation/{simulationId}.',
        params: SimulationParams,
        response: withErrors({ 202: SendResponse }),
      },
    },
    async (req, reply) => reply.status(202).send(await certificationSimulation.send(tenantOf(req), req.params.simulationId)),
  );
};

export default routes;
