import { Type, type TSchema } from '@sinclair/typebox';
import { Livemode, Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
import { BookEnvioSchema } from './books/books.schemas.ts';
import { SECTION_KINDS } from './set/set.types.ts';

/** Request and response schemas of the certification routes (docs/certification.md). */
export const TenantParams = Type.Object({ tenantId: Type.String({ maxLength: 64 }) }, { additionalProperties: false });
export const SetParams = Type.Object(
  { tenantId: Type.String({ maxLength: 64 }), setId: Type.String({ maxLength: 64, description: 'Certification set id' }) },
  { additionalProperties: false },
);

/** The largest set accepted: the SII's run to about 15 KB. */
export const SET_MAX_BYTES = 256 * 1024;

export const SetTextBody = Type.Object(
  { text: Type.String({ minLength: 1, maxLength: SET_MAX_BYTES, description: "The set's text as the SII gives it." }) },
  { additionalProperties: false },
);

// Every field carries an example from the SII's real sets, for the API reference (src/http/openapi-examples.ts).
const Text = (max: number, example: string, description?: string) =>
  Type.String({ maxLength: max, examples: [example], ...(description ? { description } : {}) });
const Int = (example: number, description?: string) => Type.Integer({ examples: [example], ...(description ? { description } : {}) });
const Num = (example: number, description?: string) => Type.Number({ examples: [example], ...(description ? { description } : {}) });
const Line = Type.Integer({ minimum: 1, examples: [29], description: "Line of the set's text (1-based)." });
const Coded = (description: string, name: string, code: number) =>
  Nullable(Type.Object({ name: Text(200, name, 'As the set writes it.'), code: Int(code) }, { description }));
const Kind = Type.Union(
  SECTION_KINDS.map((k) => Type.Literal(k)),
  { description: 'Which section of the set.' },
);

const Item = Type.Object({
  line: Line,
  name: Text(500, 'Pañuelo AFECTO', 'Exactly as written (trailing blanks dropped), with words like AFECTO and EXENTO.'),
  exento: Type.Boolean({ description: 'The name carries the word EXENTO.' }),
  cantidad: Nullable(Num(416)),
  unidad: Nullable(Text(50, 'Hora')),
  precioUnitario: Nullable(Num(3293, 'PRECIO UNITARIO or VALOR UNITARIO.')),
  montoLinea: Nullable(Num(807984, 'VALOR LINEA or TOTAL LINEA.')),
  descuentoPct: Nullable(Num(6)),
  recargoPct: Nullable(Num(10)),
});

const ExportData = Type.Object(
  {
    references: Type.Array(
      Type.Object({
        name: Text(200, 'MIC (MANIFIESTO INTERNACIONAL)'),
        tipoDocRef: Nullable(Text(3, '810', 'TpoDocRef of the customs document (807 DUS, 809 AWB, 810 MIC/DTA…).')),
      }),
    ),
    moneda: Coded('MONEDA DE LA OPERACION (Aduana currency table)', 'DOLAR USA', 13),
    formaPago: Coded('FORMA DE PAGO EXPORTACION (FmaPagExp)', 'ACRED', 11),
    modalidadVenta: Coded('MODALIDAD DE VENTA', 'A FIRME', 1),
    clausulaVenta: Coded('CLAUSULA DE VENTA DE EXPORTACION', 'FOB', 5),
    totalClausulaVenta: Nullable(Num(372.38)),
    viaTransporte: Coded('VIA DE TRANSPORTE', 'AEREO', 4),
    puertoEmbarque: Coded('PUERTO DE EMBARQUE', 'ANTOFAGASTA', 903),
    puertoDesembarque: Coded('PUERTO DE DESEMBARQUE', 'BREMEN', 591),
    unidadTara: Coded('UNIDAD DE MEDIDA DE TARA', 'U', 10),
    unidadPesoBruto: Coded('UNIDAD PESO BRUTO', 'U', 10),
    unidadPesoNeto: Coded('UNIDAD PESO NETO', 'U', 10),
    tipoBulto: Coded('TIPO DE BULTO', 'CONTENEDOR REFRIGERADO', 76),
    totalBultos: Nullable(Num(16)),
    flete: Nullable(Num(23.11)),
    seguro: Nullable(Num(1.43)),
    paisReceptor: Coded('PAIS RECEPTOR', 'ALEMANIA', 563),
    paisDestino: Coded('PAIS DESTINO', 'ALEMANIA', 563),
    nacionalidad: Coded('NACIONALIDAD', 'ITALIA', 504),
  },
  { description: "An export case's customs data, names translated with the Aduana's code tables." },
);

const CaseSchema = Type.Object({
  id: Text(40, '4244618-2', 'The case id as the SII writes it after CASO, e.g. 4244618-1.'),
  section: Kind,
  number: Int(2),
  line: Line,
  documentType: Type.Object({ name: Text(100, 'FACTURA ELECTRONICA'), code: Int(33, 'The SII document type code.') }),
  reference: Nullable(
    Type.Object({
      line: Line,
      documentName: Text(100, 'FACTURA ELECTRONICA'),
      caseId: Text(40, '4244618-2'),
      tipoDte: Int(33, "The referenced case's type."),
      reason: Nullable(Text(200, 'DEVOLUCION DE MERCADERIAS', 'RAZON REFERENCIA, verbatim.')),
    }),
  ),
  traslado: Nullable(
    Type.Object({
      motivo: Text(200, 'VENTA'),
      indTraslado: Nullable(Int(1)),
      por: Nullable(Text(200, 'CLIENTE')),
      tipoDespacho: Nullable(Int(1)),
    }),
  ),
  items: Type.Array(Item),
  charges: Type.Array(Item, { description: 'Liquidaciones: COMISIONES Y OTROS CARGOS.' }),
  globalAdjustments: Type.Array(
    Type.Object({
      line: Line,
      tipo: Type.Union([Type.Literal('descuento'), Type.Literal('recargo')]),
      valor: Num(12),
      unidad: Type.Union([Type.Literal('%'), Type.Literal('$')]),
      exento: Type.Boolean(),
      text: Text(500, 'DESCUENTO GLOBAL ITEMES AFECTOS\t\t     12%'),
    }),
  ),
  exportacion: Nullable(ExportData),
  observations: Type.Array(Text(1000, 'EL PRECIO UNITARIO DEL ITEM DEBE SER EL MISMO DE LA FACTURA')),
  dteId: Type.Union([Type.String({ format: 'uuid', examples: ['0b9d6a3e-5f1c-4e2a-9b7d-3c8e1f2a4b6d'] }), Type.Null()], {
    description:
      'The document made for this case (GET …/dte/{dteId} and its xml, pdf and status); null until POST …/documents makes it. Book cases stay null.',
  }),
});

const SectionSchema = Type.Object({
  kind: Kind,
  title: Text(200, 'SET BASICO - NUMERO DE ATENCION: 4244618'),
  attentionNumber: Text(20, '4244618', 'NUMERO DE ATENCION.'),
  line: Line,
  notes: Type.Array(Text(2000, 'CONSTRUYA EL LIBRO DE VENTAS CON LOS DOCUMENTOS CON QUE GENERO'), {
    description: "The section's free text, verbatim, a line each.",
  }),
  caseIds: Type.Array(Text(40, '4244618-1')),
  purchaseBook: Nullable(
    Type.Object({
      entries: Type.Array(
        Type.Object({
          line: Line,
          documentType: Type.Object({ name: Text(100, 'FACTURA'), code: Int(30) }),
          folio: Int(234),
          observation: Text(500, 'FACTURA DEL GIRO CON DERECHO A CREDITO'),
          montoExento: Nullable(Num(8832)),
          montoAfecto: Nullable(Num(21081)),
        }),
      ),
      factorProporcionalidadIva: Nullable(Num(0.6)),
      observations: Type.Array(Text(2000, 'DEL IVA ES DE 0.60')),
    }),
  ),
  guideBook: Nullable(
    Type.Object({
      instructions: Type.Array(
        Type.Object({
          line: Line,
          caseId: Text(40, '4244621-3'),
          status: Type.Union([Type.Literal('facturada'), Type.Literal('anulada')]),
          text: Text(500, '- EL CASO 3 CORRESPONDE A UNA GUIA ANULADA'),
        }),
      ),
    }),
  ),
});

export const CertificationSetSchema: TSchema = Type.Object(
  {
    id: Uuid(),
    livemode: Livemode(),
    object: Type.Literal('certification_set'),
    tenantId: Uuid(),
    sha256: Type.String({
      maxLength: 64,
      examples: ['9f2c5e0d4b7a81c3e6f0a2d4b6c8e1f3a5c7e9b1d3f5a7c9e2b4d6f8a1c3e5f7'],
      description: "SHA-256 of the set's decoded text: the same set uploaded again is this one.",
    }),
    sections: Type.Array(SectionSchema),
    cases: Type.Array(CaseSchema),
    progress: Type.Object({
      cases: Int(19),
      documents: Type.Integer({ examples: [19], description: 'Cases with their document made.' }),
    }),
    books: Type.Array(
      Type.Object({
        kind: Type.Union([Type.Literal('ventas'), Type.Literal('compras'), Type.Literal('guias')]),
        envio: Nullable(BookEnvioSchema),
      }),
      { description: "The books the set asks for, each with its latest send to the SII and the SII's review (null: not sent yet)." },
    ),
    createdAt: Timestamp(),
  },
  { $id: 'CertificationSet', title: 'CertificationSet' },
);

const ReceptorFields = {
  rut: Type.String({ minLength: 3, maxLength: 12, examples: ['77.777.777-7'] }),
  razonSocial: Type.String({ minLength: 1, maxLength: 100, examples: ['Cliente de Prueba SpA'] }),
  giro: Type.Optional(Type.String({ minLength: 1, maxLength: 40, examples: ['Comercio'] })),
  direccion: Type.Optional(Type.String({ minLength: 1, maxLength: 70, examples: ['Teatinos 120'] })),
  comuna: Type.Optional(Type.String({ minLength: 1, maxLength: 20, examples: ['Santiago'] })),
  ciudad: Type.Optional(Type.String({ minLength: 1, maxLength: 20, examples: ['Santiago'] })),
};

export const MakeDocumentsBody = Type.Object(
  {
    fechaEmision: Type.Optional(
      Type.String({
        pattern: '^\\d{4}-\\d{2}-\\d{2}$',
        examples: ['2026-11-28'],
        description: "The documents' date (FchEmis), YYYY-MM-DD; today in Chile when left out.",
      }),
    ),
    receptor: Type.Optional(
      Type.Object(ReceptorFields, {
        additionalProperties: false,
        description:
          "The receptor of the set's domestic documents; the SII itself (60.803.000-K) when left out. A guía moving goods between the issuer's premises names the issuer.",
      }),
    ),
    receptorExtranjero: Type.Optional(
      Type.Object(ReceptorFields, {
        additionalProperties: false,
        description: 'The foreign receptor of the export documents (RUT 55.555.555-5); a stand-in foreign buyer when left out.',
      }),
    ),
  },
  { additionalProperties: false },
);
