import { Type } from '@sinclair/typebox';
import { listCodes, SUPPORTED_TIPOS_DTE } from '../../dte/index.ts';
import { Livemode, Nullable, Timestamp, Uuid } from '../../http/schemas.ts';

export const MAX_CANTIDAD = 1000;

const Date_ = (description?: string) => Type.String({ format: 'date', ...(description ? { description } : {}) });

export const TipoDteField = Type.Integer({
  minimum: 1,
  maximum: 999,
  description: `Document type code: ${listCodes(SUPPORTED_TIPOS_DTE, 'or')}.`,
});

export const FolioRequestBody = Type.Object(
  {
    tipoDte: TipoDteField,
    cantidad: Type.Integer({ minimum: 1, maximum: MAX_CANTIDAD, description: `How many folios to request, 1–${MAX_CANTIDAD}.` }),
  },
  { additionalProperties: false },
);

export const FolioRequestSchema = Type.Object(
  {
    id: Uuid(),
    livemode: Livemode(),
    tenantId: Uuid(),
    tipoDte: Type.Integer(),
    cantidad: Type.Integer(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('completed'), Type.Literal('failed')], {
      description: 'pending while the CAF is being obtained from the tax authority; completed with `rango`; failed with `error`.',
    }),
    rango: Nullable(
      Type.Object({
        desde: Type.Integer(),
        hasta: Type.Integer(),
        fechaAutorizacion: Date_(),
        vencimiento: Nullable(Date_('First day the CAF can no longer be used; null when it does not expire.')),
      }),
    ),
    error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
    completedAt: Nullable(Timestamp()),
  },
  { $id: 'FolioRequest', title: 'FolioRequest' },
);

export const RangoSchema = Type.Object({
  desde: Type.Integer(),
  hasta: Type.Integer(),
  fechaAutorizacion: Date_(),
  vencimiento: Nullable(Date_()),
  disponibles: Type.Integer(),
});

export const InventoryItemSchema = Type.Object(
  {
    tipoDte: Type.Integer(),
    livemode: Livemode(),
    total: Type.Integer({ description: 'Folios in the usable ranges (not used up, not expired).' }),
    usados: Type.Integer({ description: 'Folios of those ranges already handed out.' }),
    disponibles: Type.Integer({ description: 'Folios left to issue with.' }),
    porcentaje: Type.Number({ description: 'disponibles as a percentage of total (0–100, one decimal); 0 when total is 0.' }),
    siguienteFolio: Nullable(Type.Integer({ description: 'The folio the next DTE of this type will get.' })),
    lowThreshold: Type.Integer({ description: 'folio.low fires when disponibles falls below this.' }),
    rangos: Type.Array(RangoSchema),
  },
  { $id: 'FolioInventoryItem', title: 'FolioInventoryItem' },
);

export const InventorySchema = Type.Object({ data: Type.Array(InventoryItemSchema) });

export const ThresholdBody = Type.Object(
  { lowThreshold: Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Default 10. 0 turns folio.low off.' }) },
  { additionalProperties: false },
);

export const TenantParams = Type.Object(
  { tenantId: Type.String({ maxLength: 64, description: 'Tenant id' }) },
  { additionalProperties: false },
);
export const RequestParams = Type.Object(
  { tenantId: Type.String({ maxLength: 64 }), requestId: Type.String({ maxLength: 64, description: 'Folio request id' }) },
  { additionalProperties: false },
);
export const TipoParams = Type.Object(
  { tenantId: Type.String({ maxLength: 64 }), tipoDte: Type.String({ maxLength: 8, description: 'Document type code' }) },
  { additionalProperties: false },
);

/** For the OpenAPI document; the multipart body itself is read by the route (one file part, `file`). */
export const CafUploadForm = Type.Object(
  {
    file: Type.String({
      format: 'binary',
      description: 'The CAF file (XML, root <AUTORIZACION>) exactly as downloaded from the SII, with its private key; at most 16 KiB.',
    }),
  },
  { additionalProperties: false },
);

export const UploadedCafSchema = Type.Object(
  {
    tipoDte: Type.Integer(),
    livemode: Livemode(),
    desde: Type.Integer({ description: 'First folio of the range.' }),
    hasta: Type.Integer({ description: 'Last folio of the range.' }),
    fechaAutorizacion: Date_(),
    vencimiento: Nullable(Date_('First day the CAF can no longer be used; null when it does not expire.')),
    idk: Type.Integer({
      description: 'The number of the key that signed the CAF: 100 the SII in certification, 300 in production.',
      examples: [100],
    }),
    ambiente: Nullable(
      Type.Union([Type.Literal('certificacion'), Type.Literal('produccion')], { description: 'The SII environment the range is used in.' }),
    ),
    disponibles: Type.Integer({ description: 'Folios of the range not handed out yet.', examples: [50] }),
    createdAt: Timestamp(),
  },
  { $id: 'UploadedCaf', title: 'UploadedCaf' },
);
