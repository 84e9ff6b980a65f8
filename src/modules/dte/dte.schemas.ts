import { Type } from '@sinclair/typebox';
import { Nullable, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';

// Input bounds follow the SII schema fields the values end up in (limits.ts of the engine);
// receptor.giro is longer than GiroRecep (40) because the engine cuts it, as the SII portal does.
export const DTE_STATUSES = ['created', 'sending', 'sent', 'accepted', 'accepted_with_objections', 'rejected', 'send_failed'] as const;
export const MAX_AMOUNT = 999_999_999_999_999;

const DateField = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10, description });

export const ReceptorBody = Type.Object(
  {
    rut: Type.String({ minLength: 3, maxLength: 12, description: 'Recipient RUT with check digit (76.123.456-7 or 76123456-7).' }),
    razonSocial: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    giro: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Written cut to 40 characters (GiroRecep).' })),
    direccion: Type.Optional(Type.String({ minLength: 1, maxLength: 70 })),
    comuna: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
    ciudad: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
    contacto: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
    correo: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
  },
  { additionalProperties: false },
);

export const DetalleBody = Type.Object(
  {
    nombre: Type.String({ minLength: 1, maxLength: 80 }),
    cantidad: Type.Number({ exclusiveMinimum: 0, maximum: 999_999_999_999, description: 'Up to 6 decimals.' }),
    precioUnitario: Type.Number({ minimum: 0, maximum: 999_999_999_999, description: 'CLP, up to 6 decimals.' }),
    montoItem: Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, description: 'round(cantidad × precioUnitario), half up.' }),
    exento: Type.Optional(Type.Boolean({ description: 'Exempt line (IndExe 1). Every line of 34 and 41 is exempt.' })),
    unidad: Type.Optional(Type.String({ minLength: 1, maxLength: 4 })),
    descripcion: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export const ReferenciaBody = Type.Object(
  {
    tipoDocRef: Type.Union([Type.Integer({ minimum: 1, maximum: 999 }), Type.String({ minLength: 1, maxLength: 3 })]),
    folioRef: Type.Union([Type.Integer({ minimum: 0 }), Type.String({ minLength: 1, maxLength: 18 })]),
    fechaRef: DateField('Date of the referenced document.'),
    codRef: Type.Optional(
      Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)], { description: '1 anula, 2 corrige texto, 3 corrige montos.' }),
    ),
    razonRef: Type.Optional(Type.String({ minLength: 1, maxLength: 90 })),
  },
  { additionalProperties: false },
);

export const CreateDteBody = Type.Object(
  {
    tipoDte: Type.Integer({ minimum: 1, maximum: 999, description: '33, 34, 39, 41, 46, 52, 56 or 61.' }),
    fechaEmision: Type.Optional(DateField('Default: today in Chile (America/Santiago). Not in the future.')),
    receptor: Type.Optional(ReceptorBody),
    detalle: Type.Array(DetalleBody, { minItems: 1, maxItems: 1000, description: '1–60 lines (1–1000 for boletas 39 and 41).' }),
    montoTotal: Type.Integer({ minimum: 0, maximum: MAX_AMOUNT }),
    formaPago: Type.Optional(
      Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)], { description: '1 contado, 2 crédito, 3 sin costo.' }),
    ),
    referencias: Type.Optional(Type.Array(ReferenciaBody, { maxItems: 40, description: 'Required for 56 and 61.' })),
  },
  { additionalProperties: false },
);

const SiiSchema = Type.Object({
  estado: Nullable(Type.String({ description: 'SII state: REC, EPR, DOK, RLV, RCH, RSC, RFR, RCT, …' })),
  glosa: Nullable(Type.String({ description: "The SII's explanation; rejections and reparos start with their code, e.g. DTE-3-101." })),
});

const StatusField = Type.Union(
  DTE_STATUSES.map((s) => Type.Literal(s)),
  { description: 'created → sending → sent → accepted | accepted_with_objections | rejected; send_failed when the upload failed.' },
);

export const DteSchema = Type.Object(
  {
    id: Uuid(),
    tenantId: Uuid(),
    tipoDte: Type.Integer(),
    folio: Type.Integer(),
    status: StatusField,
    fechaEmision: Type.String(),
    receptor: Type.Object({
      rut: Type.String(),
      razonSocial: Nullable(Type.String()),
      giro: Nullable(Type.String()),
      direccion: Nullable(Type.String()),
      comuna: Nullable(Type.String()),
      ciudad: Nullable(Type.String()),
    }),
    detalle: Type.Array(
      Type.Object({
        nombre: Type.String(),
        cantidad: Type.Number(),
        precioUnitario: Type.Number(),
        montoItem: Type.Integer(),
        exento: Type.Boolean(),
        unidad: Nullable(Type.String()),
        descripcion: Nullable(Type.String()),
      }),
    ),
    referencias: Type.Array(
      Type.Object({
        tipoDocRef: Type.String(),
        folioRef: Type.String(),
        fechaRef: Type.String(),
        codRef: Nullable(Type.Integer()),
        razonRef: Nullable(Type.String()),
      }),
    ),
    formaPago: Nullable(Type.Integer()),
    montoNeto: Type.Integer(),
    montoExento: Type.Integer(),
    iva: Type.Integer(),
    montoTotal: Type.Integer(),
    trackId: Nullable(Type.String()),
    sii: SiiSchema,
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'Dte', title: 'Dte' },
);

export const DteStatusSchema = Type.Object(
  {
    id: Uuid(),
    tenantId: Uuid(),
    tipoDte: Type.Integer(),
    folio: Type.Integer(),
    status: StatusField,
    trackId: Nullable(Type.String()),
    sii: SiiSchema,
    updatedAt: Timestamp(),
  },
  { $id: 'DteStatus', title: 'DteStatus' },
);

export const HistorySchema = Type.Object({
  data: Type.Array(
    Type.Object({
      status: StatusField,
      previousStatus: Nullable(StatusField),
      trackId: Nullable(Type.String()),
      sii: SiiSchema,
      createdAt: Timestamp(),
    }),
  ),
});

export const ListDteQuery = Type.Composite(
  [
    PageQuery,
    Type.Object({
      status: Type.Optional(Type.Union(DTE_STATUSES.map((s) => Type.Literal(s)))),
      tipoDte: Type.Optional(Type.Integer({ minimum: 1, maximum: 999 })),
    }),
  ],
  { additionalProperties: false },
);

export const SendBody = Type.Object(
  {
    dteIds: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      minItems: 1,
      maxItems: 500,
      description: '1–500 DTE ids of this tenant.',
    }),
  },
  { additionalProperties: false },
);

export const EnvioSchema = Type.Object(
  {
    id: Uuid(),
    trackId: Nullable(Type.String({ description: "The SII's track id, once uploaded." })),
    tipoEnvio: Type.Union([Type.Literal('EnvioDTE'), Type.Literal('EnvioBOLETA')]),
    dteIds: Type.Array(Uuid()),
    status: Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('processed'), Type.Literal('failed')], {
      description: 'pending (queued for upload) → sent (trackId known) → processed (final SII answer); failed when the upload failed.',
    }),
    sii: SiiSchema,
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'Envio', title: 'Envio' },
);

export const SendResponse = Type.Object({ envios: Type.Array(EnvioSchema) });

export const TenantParams = Type.Object(
  { tenantId: Type.String({ maxLength: 64, description: 'Tenant id' }) },
  { additionalProperties: false },
);
export const TenantDteParams = Type.Object(
  { tenantId: Type.String({ maxLength: 64 }), dteId: Type.String({ maxLength: 64, description: 'DTE id' }) },
  { additionalProperties: false },
);
export const TenantEnvioParams = Type.Object(
  { tenantId: Type.String({ maxLength: 64 }), envioId: Type.String({ maxLength: 64, description: 'Envío id' }) },
  { additionalProperties: false },
);
export const PdfQuery = Type.Object(
  {
    formato: Type.Optional(
      Type.Union([Type.Literal('carta'), Type.Literal('80mm')], {
        default: 'carta',
        description: 'carta: letter paper; 80mm: the roll of receipt printers and points of sale.',
      }),
    ),
    cedible: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'The cedible copy, with the acuse de recibo (Ley 19.983): only for 33, 34, 43, 46 and 52 (others: 422 not_cedible).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const DteParams = Type.Object({ dteId: Type.String({ maxLength: 64, description: 'DTE id' }) }, { additionalProperties: false });
