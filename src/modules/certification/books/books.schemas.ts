import { Type } from '@sinclair/typebox';
import { Nullable } from '../../../http/schemas.ts';

/** Request and response schemas of the book routes (docs/certification.md, "Books"). */
export const BookParams = Type.Object(
  {
    tenantId: Type.String({ maxLength: 64 }),
    setId: Type.String({ maxLength: 64, description: 'Certification set id' }),
    kind: Type.Union([Type.Literal('ventas'), Type.Literal('compras'), Type.Literal('guias')], {
      description: 'ventas (LibroCompraVenta VENTA), compras (LibroCompraVenta COMPRA) or guias (LibroGuia).',
    }),
  },
  { additionalProperties: false },
);

export const BookQuery = Type.Object(
  {
    fecha: Type.Optional(
      Type.String({
        format: 'date',
        description: "The entries' date; its month is the book's period. Default: today in Chile.",
        examples: ['2026-11-28'],
      }),
    ),
    proveedorRut: Type.Optional(
      Type.String({
        maxLength: 12,
        description: "Purchases: the supplier's RUT (the set names none). Default: the tenant's.",
        examples: ['77777777-7'],
      }),
    ),
    proveedorRazonSocial: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: "Purchases: the supplier's name (required by the SII for paper documents).",
        examples: ['Proveedor Ltda'],
      }),
    ),
    folioNotificacion: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 9_999_999_999,
        description:
          "FolioNotificacion. Default: the attention number of the set's book section. Each special book sent needs a fresh one.",
        examples: [4244620],
      }),
    ),
    facturaFolio: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 9_999_999_999,
        description: 'Guías: the folio of the factura that invoiced the guía the set says was invoiced.',
        examples: [12],
      }),
    ),
    facturaFecha: Type.Optional(
      Type.String({ format: 'date', description: "Guías: that factura's date. Default: fecha.", examples: ['2026-11-28'] }),
    ),
  },
  { additionalProperties: false },
);

const Entry = Type.Object(
  {},
  { additionalProperties: true, description: 'One document of the book as registered (type, folio, amounts).' },
);

export const BookEnvioSchema = Type.Object(
  {
    trackId: Nullable(Type.String({ examples: ['4000012'], description: "The SII's track id (DTEUpload)." })),
    status: Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('rejected')], {
      examples: ['accepted'],
      description: "The SII's review: accepted (LOK/LSO), rejected (LRH: totals that do not add up; the glosa says which), pending.",
    }),
    estado: Nullable(Type.String({ examples: ['LOK'], description: "The SII's code (QueryEstUp ESTADO; '0' or '99' before the review)." })),
    glosa: Nullable(Type.String({ examples: ['Libro Aceptado'] })),
    sentAt: Type.String({ format: 'date-time' }),
  },
  { description: 'The book sent to the SII (POST …/send).' },
);

/** The same parameters as the GET's query (BookQuery), as a body. */
export const BookSendBody = Type.Optional(BookQuery);

export const CertificationBookSchema = Type.Object({
  object: Type.Literal('certification_book'),
  setId: Type.String({ examples: ['6f0c1c2e-9d0b-4a43-9d8e-2f1f3c4d5e6f'] }),
  kind: Type.Union([Type.Literal('ventas'), Type.Literal('compras'), Type.Literal('guias')]),
  ready: Type.Boolean({ description: 'Every document the book needs exists: GET …/xml builds it.' }),
  missingCases: Type.Array(Type.String({ examples: ['4244618-1'] }), { description: 'Cases whose documents the book waits for.' }),
  folioNotificacion: Type.Integer({
    examples: [4244620],
    description: "FolioNotificacion: the attention number of the set's book section.",
  }),
  periodo: Type.String({ examples: ['2026-11'] }),
  factorProporcionalidad: Nullable(
    Type.Number({ examples: [0.6], description: 'Purchases: the factor of proportionality of the IVA de uso común.' }),
  ),
  entries: Type.Array(Entry),
  envio: Type.Optional(Nullable(BookEnvioSchema)),
  totals: Nullable(
    Type.Union([
      Type.Array(Type.Object({}, { additionalProperties: true, description: 'ResumenPeriodo/TotalesPeriodo of one document type.' })),
      Type.Object({}, { additionalProperties: true, description: "The guía book's ResumenPeriodo." }),
    ]),
  ),
});
