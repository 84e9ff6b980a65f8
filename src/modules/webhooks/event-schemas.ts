import { Type, type TSchema } from '@sinclair/typebox';
import type { EventType } from '../../events/event-types.ts';
import { Nullable, Timestamp, Uuid } from '../../http/schemas.ts';

/**
 * The `data` of each event, as named schemas for the OpenAPI document (docs/webhooks.md "Events"
 * describes them). The emitting modules own the values; these are the shapes.
 */
const Date10 = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD' });

export const EVENT_DATA_SCHEMAS: Record<EventType, TSchema> = {
  'tenant.credentials.updated': Type.Object(
    {
      tenantId: Uuid(),
      apiKey: Type.Object({ configured: Type.Boolean() }),
      certificate: Type.Object({ configured: Type.Boolean() }),
    },
    {
      $id: 'TenantCredentialsUpdatedData',
      title: 'TenantCredentialsUpdatedData',
      description:
        "Emitted whenever a change leaves what the tenant's provider needs configured: both credentials through SimpleAPI, the " +
        'certificate for a direct tenant (provider sii, whose apiKey.configured is usually false). Activation completed, an ' +
        'API-side change, or a PATCH of provider that makes the tenant active.',
    },
  ),
  'folio.low': Type.Object(
    {
      tenantId: Uuid(),
      tipoDte: Type.Integer(),
      disponibles: Type.Integer({ description: 'Folios left for this document type.' }),
      lowThreshold: Type.Integer(),
    },
    {
      $id: 'FolioLowData',
      title: 'FolioLowData',
      description: 'Emitted once when stock falls below the threshold; re-armed by a replenishment.',
    },
  ),
  'certificate.expiring': Type.Object(
    {
      tenantId: Uuid(),
      certificateId: Uuid(),
      rutCertificado: Type.String(),
      nombreTitular: Type.String(),
      fechaVencimiento: Date10,
      daysRemaining: Type.Integer({
        minimum: 0,
        maximum: 30,
        description: 'Whole days from today (America/Santiago) to fechaVencimiento.',
      }),
    },
    {
      $id: 'CertificateExpiringData',
      title: 'CertificateExpiringData',
      description: 'Emitted once per certificate when it enters the 30-day window before expiry; never for an expired certificate.',
    },
  ),
  'dte.status.changed': Type.Object(
    {
      tenantId: Uuid(),
      dteId: Uuid(),
      tipoDte: Type.Integer(),
      folio: Type.Integer(),
      previousStatus: Type.String(),
      status: Type.String({ description: 'sent, accepted, accepted_with_objections, rejected, send_failed, …' }),
      trackId: Nullable(Type.String()),
      sii: Type.Object({ estado: Nullable(Type.String()), glosa: Nullable(Type.String()) }),
    },
    { $id: 'DteStatusChangedData', title: 'DteStatusChangedData', description: 'Emitted on every status change of a sent DTE.' },
  ),
  'dte.received': Type.Object(
    {
      tenantId: Uuid(),
      receivedDteId: Uuid(),
      tipoDte: Type.Integer(),
      folio: Type.Integer(),
      fechaEmision: Date10,
      emisor: Type.Object({ rut: Type.String({ description: 'The supplier, SII form (76123456-7).' }), razonSocial: Type.String() }),
      montoTotal: Type.Integer(),
      status: Type.String({ description: 'received' }),
      receivedAt: Timestamp(),
      acceptanceDeadline: Timestamp('Eight days after receivedAt (Ley 19.983): accept or claim before it.'),
    },
    {
      $id: 'DteReceivedData',
      title: 'DteReceivedData',
      description:
        'Emitted once per document a supplier sent to a tenant, when it is first received (docs/received.md); never for a repeat.',
    },
  ),
};

/** The delivered body: `{event, timestamp, livemode, data}`. */
export const WebhookPayloadSchema = Type.Object(
  {
    event: Type.String({ description: 'One of the event names (the four of the contract and dte.received).' }),
    timestamp: Timestamp('When the event happened (ISO 8601 UTC).'),
    livemode: Type.Boolean({
      description:
        'false for an event of test mode (objects made with an sk_test_ key), true for live; absent from events emitted before test mode.',
    }),
    data: Type.Object({}, { additionalProperties: true, description: 'Depends on the event: see the *Data schemas.' }),
  },
  { $id: 'WebhookPayload', title: 'WebhookPayload' },
);
