import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { DELIVERY_STATUSES } from './exchange.store.ts';

/** Request and response schemas of the deliveries routes (docs/exchange.md). */
export const TenantDteParams = Type.Object(
  { tenantId: Type.String({ maxLength: 64 }), dteId: Type.String({ maxLength: 64, description: 'DTE id' }) },
  { additionalProperties: false },
);

export const DeliverySchema = Type.Object(
  {
    id: Uuid(),
    tenantId: Uuid(),
    dteId: Uuid(),
    trigger: Type.Union([Type.Literal('accepted'), Type.Literal('resend')], {
      description: 'accepted: the automatic delivery when the SII accepted the document; resend: POST …/deliveries.',
    }),
    status: Type.Union(
      DELIVERY_STATUSES.map((s) => Type.Literal(s)),
      {
        description:
          'pending (being sent or waiting for its next attempt); sent (the SMTP server, or the local mailbox, took it); ' +
          'failed (refused permanently, or every attempt failed); skipped (the receptor has no usable correo: nothing was sent).',
      },
    ),
    skipReason: Nullable(
      Type.String({ description: 'Why a delivery was skipped: receptor_email_missing or receptor_email_invalid.', maxLength: 64 }),
    ),
    to: Nullable(
      Type.String({ description: "The receptor's exchange address it goes to (receptor.correo, or a resend's `to`).", maxLength: 254 }),
    ),
    transport: Nullable(
      Type.Union([Type.Literal('smtp'), Type.Literal('mailbox')], {
        description: 'How it went out: smtp (SMTP_URL) or mailbox (the local mailbox of the embedded default); null until sent.',
      }),
    ),
    attempts: Type.Integer({ description: 'Attempts made so far.' }),
    maxAttempts: Type.Integer({ description: 'Attempts it gets (EXCHANGE_RETRY_SCHEDULE).' }),
    lastError: Nullable(
      Type.Object({
        code: Type.String({
          description:
            'smtp_rejected (permanent, 5yz), smtp_deferred (4yz), smtp_unavailable, smtp_auth_failed, smtp_error, or the reason the ' +
            'message could not be built (e.g. certificate_expired).',
        }),
        message: Type.String({ description: "What happened, with the server's reply; e-mail addresses in it are replaced by [address]." }),
      }),
    ),
    messageId: Nullable(
      Type.String({ description: 'The Message-ID header, the same on every attempt: <delivery id@domain of SMTP_FROM>.' }),
    ),
    smtpResponse: Nullable(Type.String({ description: "The SMTP server's answer to the message (e.g. 250 OK: queued as …)." })),
    nextAttemptAt: Nullable(Timestamp('When a pending delivery is tried next.')),
    sentAt: Nullable(Timestamp()),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'Delivery', title: 'Delivery' },
);

export const DeliveryList = Type.Object({ data: Type.Array(DeliverySchema, { description: 'Oldest first.' }) });

export const ResendBody = Type.Object(
  {
    to: Type.Optional(
      Type.String({
        format: 'email',
        maxLength: 254,
        description: "Where to send it; default the document's receptor.correo.",
        examples: ['dte@receptor.cl'],
      }),
    ),
  },
  { additionalProperties: false },
);
