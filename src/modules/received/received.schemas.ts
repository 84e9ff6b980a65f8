import { Type } from '@sinclair/typebox';
import { Livemode, Nullable, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';
import { SII_STATES } from './received.acciones.store.ts';
import { ACCIONES } from './received.rules.ts';
import { RECEIVED_STATUSES } from './received.store.ts';

/** Request and response schemas of the received-documents routes (docs/received.md). */
const DateParam = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10, description });

const StatusField = Type.Union(
  RECEIVED_STATUSES.map((s) => Type.Literal(s)),
  { description: 'received (waiting for the tenant to accept or claim it); accepted; claimed.' },
);

export const ReceivedDteSchema = Type.Object(
  {
    id: Uuid(),
    livemode: Livemode(),
    tenantId: Uuid(),
    envioId: Uuid('The upload it first arrived in.'),
    tipoDte: Type.Integer(),
    folio: Type.Integer(),
    fechaEmision: Type.String(),
    emisor: Type.Object({
      rut: Type.String({ description: 'The supplier, SII form (76123456-7).' }),
      razonSocial: Type.String(),
      giro: Nullable(Type.String()),
      correo: Nullable(
        Type.String({
          description: "The supplier's exchange address as its DTE carries it (CorreoEmisor): where the signed answers are e-mailed.",
        }),
      ),
    }),
    receptor: Type.Object({ rut: Type.String({ description: "The tenant's RUT, SII form." }) }),
    montoNeto: Nullable(Type.Integer()),
    montoExento: Nullable(Type.Integer()),
    iva: Nullable(Type.Integer()),
    montoTotal: Type.Integer(),
    status: StatusField,
    receivedAt: Timestamp(),
    acceptanceDeadline: Timestamp('receivedAt + 8 days (Ley 19.983): the last moment to accept or claim it.'),
    acciones: Type.Array(
      Type.Object({
        n: Type.Integer({ description: 'Its number among the answers to this document, from 1 (…/acceptance/{n}/xml).' }),
        accion: Type.String({ description: 'ACD, ERM, RCD, RFP or RFT.' }),
        glosa: Nullable(Type.String()),
        at: Timestamp('When it was asked.'),
        registeredAtSii: Type.Boolean({ description: 'The SII holds it (sii.state registered).' }),
        sii: Type.Object(
          {
            state: Type.Union(
              SII_STATES.map((s) => Type.Literal(s)),
              {
                description:
                  'pending: not registered yet, tried again at nextAttemptAt; registered: the SII holds it; refused: the SII will not ' +
                  'record it (codigo, descripcion) and it does not count; failed: attempts exhausted, POST the same action to retry.',
              },
            ),
            codigo: Nullable(
              Type.Integer({ description: "The SII's codResp (0 done, 7 registered before, 8 past its eight days, 9 unknown document…)." }),
            ),
            descripcion: Nullable(Type.String({ description: "The SII's words." })),
            registeredAt: Nullable(Timestamp()),
            attempts: Type.Integer(),
            nextAttemptAt: Nullable(Timestamp()),
            lastError: Nullable(Type.String({ description: 'Why the last attempt got no answer (provider error code and message).' })),
          },
          { description: 'Its registration at the SII (registro de aceptación o reclamo) through the provider.' },
        ),
        respuesta: Nullable(
          Type.Object({
            tipo: Type.String({ description: 'RespuestaDTE (a ResultadoDTE: ACD, RCD, RFP, RFT) or EnvioRecibos (a Recibo: ERM).' }),
            path: Type.String({ description: 'Where to GET the signed XML for the supplier.' }),
          }),
        ),
      }),
      { description: "The tenant's answers, in order (POST …/acceptance)." },
    ),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'ReceivedDte', title: 'ReceivedDte' },
);

const EnvioDocumentSchema = Type.Object({
  index: Type.Integer({ description: "Position in the envelope's SetDTE, from 0." }),
  tipoDte: Nullable(Type.Integer()),
  folio: Nullable(Type.Integer()),
  fechaEmision: Nullable(Type.String()),
  rutEmisor: Nullable(Type.String()),
  rutReceptor: Nullable(Type.String()),
  montoTotal: Nullable(Type.Number()),
  estadoRecepDte: Type.Integer({ description: 'EstadoRecepDTE: 0 received, 1 signature, 3 RUT receptor, 4 repeated, 99 other.' }),
  glosa: Type.String(),
  outcome: Type.Union([Type.Literal('received'), Type.Literal('repeated'), Type.Literal('refused')]),
  receivedDteId: Nullable(Uuid('The received document (new, or the one already stored for a repeat).')),
  error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
});

export const ReceivedEnvioSchema = Type.Object(
  {
    id: Uuid(),
    livemode: Livemode(),
    tenantId: Uuid(),
    codEnvio: Type.Integer({ description: 'CodEnvio and IdRespuesta of the answer.' }),
    envioDteId: Type.String({ description: "The envelope's SetDTE ID." }),
    nombreEnvio: Type.String(),
    rutEmisor: Type.String(),
    rutEnvia: Type.String(),
    estadoRecepEnv: Type.Integer({ description: 'EstadoRecepEnv: always 0 (refused envelopes are a 4xx, not stored).' }),
    glosa: Type.String(),
    documents: Type.Array(EnvioDocumentSchema),
    receivedAt: Timestamp(),
  },
  { $id: 'ReceivedEnvio', title: 'ReceivedEnvio' },
);

export const ReceiveResponse = Type.Object(
  {
    envio: ReceivedEnvioSchema,
    respuestaXml: Type.String({
      description:
        'The signed RespuestaEnvioDTE (RecepcionEnvio) for the supplier, ISO-8859-1 declared and pure ASCII; also at GET …/received/envios/{envioId}/respuesta.',
    }),
  },
  { $id: 'ReceiveResponse', title: 'ReceiveResponse' },
);

export const ReceiveQuery = Type.Object(
  {
    nombreEnvio: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 80,
        pattern: '^[A-Za-z0-9._-]+$',
        description: "The envelope's file name as the supplier sent it (NmbEnvio of the answer); default {SetDTE ID}.xml.",
      }),
    ),
    respuestaA: Type.Optional(
      Type.String({
        format: 'email',
        maxLength: 254,
        description:
          "Where to e-mail the signed answer (RespuestaEnvioDTE) (the supplier's exchange address); default the supplier's CorreoEmisor " +
          'as its DTE carries it. Without either, the delivery is recorded as skipped.',
        examples: ['intercambio@proveedor.cl'],
      }),
    ),
  },
  { additionalProperties: false },
);

export const ListReceivedQuery = Type.Composite(
  [
    PageQuery,
    Type.Object({
      rutEmisor: Type.Optional(Type.String({ minLength: 3, maxLength: 12, description: 'The supplier, with check digit.' })),
      tipoDte: Type.Optional(Type.Integer({ minimum: 1, maximum: 999 })),
      status: Type.Optional(StatusField),
      fechaDesde: Type.Optional(DateParam('fechaEmision on or after this date.')),
      fechaHasta: Type.Optional(DateParam('fechaEmision on or before this date.')),
      recibidoDesde: Type.Optional(
        Type.String({ format: 'date-time', maxLength: 40, description: 'receivedAt at or after this instant.' }),
      ),
      recibidoHasta: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'receivedAt before this instant.' })),
    }),
  ],
  { additionalProperties: false },
);

export const ReceivedPdfQuery = Type.Object(
  {
    formato: Type.Optional(
      Type.Union([Type.Literal('carta'), Type.Literal('80mm')], {
        default: 'carta',
        description: 'carta: letter paper; 80mm: the roll of receipt printers.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const TenantParams = Type.Object(
  { tenantId: Type.String({ maxLength: 64, description: 'Tenant id' }) },
  { additionalProperties: false },
);
export const ReceivedParams = Type.Object(
  { tenantId: Type.String({ maxLength: 64 }), receivedId: Type.String({ maxLength: 64, description: 'Received document id' }) },
  { additionalProperties: false },
);
export const ReceivedEnvioParams = Type.Object(
  { tenantId: Type.String({ maxLength: 64 }), envioId: Type.String({ maxLength: 64, description: 'Received envío id' }) },
  { additionalProperties: false },
);

export const AcceptanceBody = Type.Object(
  {
    accion: Type.Union(
      ACCIONES.map((a) => Type.Literal(a)),
      {
        description:
          'ACD accept the content, ERM acknowledge receipt of the goods or services (both: accepted); RCD claim the content, ' +
          'RFP claim partial lack of goods, RFT claim total lack of goods (all three: claimed).',
      },
    ),
    glosa: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Why, for the supplier (in the ResultadoDTE).' })),
    recinto: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 80,
        description: "ERM only: where the goods or services were received (the Recibo's Recinto); default the tenant's address.",
      }),
    ),
    respuestaA: Type.Optional(
      Type.String({
        format: 'email',
        maxLength: 254,
        description:
          "Where to e-mail the signed answer (ResultadoDTE or EnvioRecibos) (the supplier's exchange address); default the supplier's CorreoEmisor " +
          'as its DTE carries it. Without either, the delivery is recorded as skipped.',
        examples: ['intercambio@proveedor.cl'],
      }),
    ),
  },
  { additionalProperties: false },
);

export const AcceptanceXmlParams = Type.Object({
  tenantId: Type.String({ maxLength: 64 }),
  receivedId: Type.String({ maxLength: 64 }),
  n: Type.Integer({ minimum: 1, maximum: 9999 }),
});
