import { Type } from '@sinclair/typebox';
import { EVENT_TYPES } from '../../events/event-types.ts';
import { Livemode, Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { SIGNATURE_SCHEMES } from './signing.ts';

const EventTypeName = Type.String({ maxLength: 64, description: `One of: ${EVENT_TYPES.join(', ')}.` });
const Scheme = Type.Union(
  SIGNATURE_SCHEMES.map((s) => Type.Literal(s)),
  {
    description:
      "`hmac-sha256-body` (default, the contract's): base64(HMAC-SHA256(secret, raw body)). `standard-webhooks`: " +
      '`v1,<base64>` over `id.timestamp.body` with the base64-decoded part of the secret after `whsec_`.',
  },
);

const FilterTypes = Type.Array(EventTypeName, {
  maxItems: EVENT_TYPES.length,
  description: 'Events to deliver. Empty or absent: every event.',
});

export const CreateEndpointBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'Receiver address, http(s); public addresses only.' }),
    filterTypes: Type.Optional(FilterTypes),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    signatureScheme: Type.Optional(Scheme),
  },
  { additionalProperties: false },
);

export const PatchEndpointBody = Type.Object(
  {
    url: Type.Optional(CreateEndpointBody.properties.url),
    filterTypes: Type.Optional(FilterTypes),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    signatureScheme: Type.Optional(Scheme),
    disabled: Type.Optional(Type.Boolean({ description: 'false re-enables an endpoint that was disabled (by you, a 410 or failures).' })),
  },
  { additionalProperties: false, minProperties: 1 },
);

const endpointFields = {
  id: Uuid(),
  livemode: Livemode(),
  url: Type.String(),
  description: Nullable(Type.String()),
  filterTypes: Type.Array(Type.String(), { description: 'Empty: every event.' }),
  signatureScheme: Scheme,
  disabled: Type.Boolean(),
  disabledReason: Nullable(
    Type.String({ description: '`manual` (PATCH), `gone` (the receiver answered 410) or `failing` (failed continuously for days).' }),
  ),
  disabledAt: Nullable(Timestamp()),
  createdAt: Timestamp(),
  updatedAt: Timestamp(),
};

export const EndpointSchema = Type.Object(endpointFields, { $id: 'WebhookEndpoint', title: 'WebhookEndpoint' });

export const CreatedEndpointSchema = Type.Object(
  { ...endpointFields, secret: Type.String({ description: 'The signing secret, `whsec_…`. Also at GET …/secret.' }) },
  { title: 'CreatedWebhookEndpoint' },
);

export const SecretSchema = Type.Object(
  { secret: Type.String({ description: '`whsec_` followed by base64 of 32 random bytes.' }) },
  { title: 'WebhookSecret' },
);

export const TestEventBody = Type.Object(
  {
    eventType: Type.Optional(
      Type.Union(
        EVENT_TYPES.map((t) => Type.Literal(t)),
        { description: 'Which event shape to send (default tenant.credentials.updated).' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const ResendBody = Type.Object({ endpointId: Type.String({ maxLength: 64 }) }, { additionalProperties: false });

export const AttemptSchema = Type.Object(
  {
    endpointId: Uuid(),
    attemptNumber: Type.Integer({ minimum: 1 }),
    status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
    responseStatusCode: Nullable(Type.Integer()),
    responseBody: Nullable(Type.String({ description: 'First 4 KiB of the response body.' })),
    error: Nullable(Type.String({ description: 'Why there was no usable response (timeout, refused, forbidden address, …).' })),
    durationMs: Type.Integer(),
    attemptedAt: Timestamp(),
    nextAttemptAt: Nullable(Timestamp('When the next attempt is due; null when this was the last.')),
  },
  { $id: 'WebhookAttempt', title: 'WebhookAttempt' },
);

export const MESSAGE_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled', 'no_endpoints'] as const;

export const MessageSchema = Type.Object(
  {
    id: Uuid('The message id, sent as the `webhook-id` header on every attempt.'),
    livemode: Livemode(),
    eventType: Type.String(),
    payload: Type.Object(
      {
        event: Type.String(),
        timestamp: Timestamp(),
        livemode: Type.Optional(
          Type.Boolean({ description: 'The event’s mode, as delivered; absent from events emitted before test mode.' }),
        ),
        data: Type.Object({}, { additionalProperties: true }),
      },
      { description: 'The delivered body, parsed. The exact bytes are what was signed.' },
    ),
    createdAt: Timestamp(),
    status: Type.Union(
      MESSAGE_STATUSES.map((s) => Type.Literal(s)),
      {
        description:
          'pending: some delivery still has attempts to go; failed: some endpoint never got it; succeeded: every endpoint got it; ' +
          'cancelled: its endpoints were deleted first; no_endpoints: no enabled endpoint wanted it.',
      },
    ),
    attempts: Type.Array(AttemptSchema),
  },
  { $id: 'WebhookMessage', title: 'WebhookMessage' },
);

export const MessagesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 250, default: 50 })),
    iterator: Type.Optional(Type.String({ maxLength: 512 })),
    eventType: Type.Optional(EventTypeName),
    endpointId: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
