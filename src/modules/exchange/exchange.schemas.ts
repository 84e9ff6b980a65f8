import { Type } from '@sinclair/typebox';
import { Livemode, Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { DELIVERY_STATUSES } from './exchange.store.ts';

/**
 * The contract's Delivery resource (docs/exchange.md): one schema for every deliveries route, served
 * by the modules that own the subjects (dte: a document to its receptor; received: an answer to a
 * supplier), each filling the subject fields (kind, dteId, respuesta) of its own deliveries
 * (toDelivery). The outbox itself stores subjects, not these fields.
 */
export const DeliverySchema = Type.Object(
  {
    id: Uuid(),
    livemode: Livemode(),
    tenantId: Uuid(),
    kind: Type.Union([Type.Literal('dte'), Type.Literal('respuesta')], {
      description:
        "dte: one of the tenant's accepted documents to its receptor (EnvioDTE + PDF); respuesta: one of the tenant's signed " +
        'answers to a supplier (RespuestaEnvioDTE, ResultadoDTE or EnvioRecibos).',
    }),
    dteId: Nullable(Uuid('The document sent (kind dte); null for a respuesta.')),
    respuesta: Nullable(
      Type.Object(
        {
          tipo: Type.Union(
            (['RecepcionEnvio', 'ResultadoDTE', 'EnvioRecibos'] as const).map((t) => Type.Literal(t)),
            {
              description:
                "RecepcionEnvio: the upload's RespuestaEnvioDTE; ResultadoDTE: the RespuestaDTE of an ACD, RCD, RFP or RFT; " +
                'EnvioRecibos: the Recibo of an ERM.',
            },
          ),
          receivedEnvioId: Nullable(Uuid('The upload answered (RecepcionEnvio).')),
          receivedDteId: Nullable(Uuid('The received document answered (ResultadoDTE, EnvioRecibos).')),
          n: Nullable(Type.Integer({ description: "The answer's number among the document's acciones (…/acceptance/{n}/xml)." })),
        },
        { description: 'Kind respuesta: which signed answer it carries.' },
      ),
    ),
    trigger: Type.Union([Type.Literal('accepted'), Type.Literal('resend'), Type.Literal('recepcion'), Type.Literal('accion')], {
      description:
        'accepted: the automatic delivery when the SII accepted the document; resend: POST …/deliveries; recepcion: the answer to ' +
        'an upload (POST …/received); accion: the answer to an acceptance or claim (POST …/received/{id}/acceptance).',
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
      Type.String({
        description:
          'Why a delivery was skipped: receptor_email_missing or receptor_email_invalid (dte); supplier_email_missing, ' +
          'supplier_email_invalid or answer_refused_by_sii (respuesta).',
        maxLength: 64,
      }),
    ),
    to: Nullable(
      Type.String({
        description:
          "The address it goes to: the receptor's (receptor.correo, or a resend's `to`), or for a respuesta the supplier's " +
          "(the DTE's CorreoEmisor, or the request's respuestaA).",
        maxLength: 254,
      }),
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
