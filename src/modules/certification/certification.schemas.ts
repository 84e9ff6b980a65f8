import { Type, type TSchema } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../../http/schemas.ts';
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

const Text = (max: number, description?: string) => Type.String({ maxLength: max, ...(description ? { description } : {}) });
const Line = Type.Integer({ minimum: 1, description: "Line of the set's text (1-based)." });
const Coded = (description: string) =>
  Nullable(Type.Object({ name: Text(200, 'As the set writes it.'), code: Type.Integer() }, { description }));
const Kind = Type.Union(
  SECTION_KINDS.map((k) => Type.Literal(k)),
  { description: 'Which section of the set.' },
);

const Item = Type.Object({
  line: Line,
  name: Text(500, 'Exactly as written (trailing blanks dropped), with words like AFECTO and EXENTO.'),
  exento: Type.Boolean({ description: 'The name carries the word EXENTO.' }),
  cantidad: Nullable(Type.Number()),
  unidad: Nullable(Text(50)),
  precioUnitario: Nullable(Type.Number({ description: 'PRECIO UNITARIO or VALOR UNITARIO.' })),
  montoLinea: Nullable(Type.Number({ description: 'VALOR LINEA or TOTAL LINEA.' })),
  descuentoPct: Nullable(Type.Number()),
  recargoPct: Nullable(Type.Number()),
});

const ExportData = Type.Object(
  {
    references: Type.Array(
      Type.Object({
        name: Text(200),
        tipoDocRef: Nullable(Text(3, 'TpoDocRef of the customs document (807 DUS, 809 AWB, 810 MIC/DTA…).')),
      }),
    ),
    moneda: Coded('MONEDA DE LA OPERACION (Aduana currency table)'),
    formaPago: Coded('FORMA DE PAGO EXPORTACION (FmaPagExp)'),
    modalidadVenta: Coded('MODALIDAD DE VENTA'),
    clausulaVenta: Coded('CLAUSULA DE VENTA DE EXPORTACION'),
    totalClausulaVenta: Nullable(Type.Number()),
    viaTransporte: Coded('VIA DE TRANSPORTE'),
    puertoEmbarque: Coded('PUERTO DE EMBARQUE'),
    puertoDesembarque: Coded('PUERTO DE DESEMBARQUE'),
    unidadTara: Coded('UNIDAD DE MEDIDA DE TARA'),
    unidadPesoBruto: Coded('UNIDAD PESO BRUTO'),
    unidadPesoNeto: Coded('UNIDAD PESO NETO'),
    tipoBulto: Coded('TIPO DE BULTO'),
    totalBultos: Nullable(Type.Number()),
    flete: Nullable(Type.Number()),
    seguro: Nullable(Type.Number()),
    paisReceptor: Coded('PAIS RECEPTOR'),
    paisDestino: Coded('PAIS DESTINO'),
    nacionalidad: Coded('NACIONALIDAD'),
  },
  { description: "An export case's customs data, names translated with the Aduana's code tables." },
);

const CaseSchema = Type.Object({
  id: Text(40, 'The case id as the SII writes it after CASO, e.g. 4244618-1.'),
  section: Kind,
  number: Type.Integer(),
  line: Line,
  documentType: Type.Object({ name: Text(100), code: Type.Integer({ description: 'The SII document type code.' }) }),
  reference: Nullable(
    Type.Object({
      line: Line,
      documentName: Text(100),
      caseId: Text(40),
      tipoDte: Type.Integer({ description: "The referenced case's type." }),
      reason: Nullable(Text(200, 'RAZON REFERENCIA, verbatim.')),
    }),
  ),
  traslado: Nullable(
    Type.Object({
      motivo: Text(200),
      indTraslado: Nullable(Type.Integer()),
      por: Nullable(Text(200)),
      tipoDespacho: Nullable(Type.Integer()),
    }),
  ),
  items: Type.Array(Item),
  charges: Type.Array(Item, { description: 'Liquidaciones: COMISIONES Y OTROS CARGOS.' }),
  globalAdjustments: Type.Array(
    Type.Object({
      line: Line,
      tipo: Type.Union([Type.Literal('descuento'), Type.Literal('recargo')]),
      valor: Type.Number(),
      unidad: Type.Union([Type.Literal('%'), Type.Literal('$')]),
      exento: Type.Boolean(),
      text: Text(500),
    }),
  ),
  exportacion: Nullable(ExportData),
  observations: Type.Array(Text(1000)),
  document: Type.Null({ description: 'The document made for this case; null until the set’s documents are created.' }),
});

const SectionSchema = Type.Object({
  kind: Kind,
  title: Text(200),
  attentionNumber: Text(20, 'NUMERO DE ATENCION.'),
  line: Line,
  notes: Type.Array(Text(2000), { description: "The section's free text, verbatim, a line each." }),
  caseIds: Type.Array(Text(40)),
  purchaseBook: Nullable(
    Type.Object({
      entries: Type.Array(
        Type.Object({
          line: Line,
          documentType: Type.Object({ name: Text(100), code: Type.Integer() }),
          folio: Type.Integer(),
          observation: Text(500),
          montoExento: Nullable(Type.Number()),
          montoAfecto: Nullable(Type.Number()),
        }),
      ),
      factorProporcionalidadIva: Nullable(Type.Number()),
      observations: Type.Array(Text(2000)),
    }),
  ),
  guideBook: Nullable(
    Type.Object({
      instructions: Type.Array(
        Type.Object({
          line: Line,
          caseId: Text(40),
          status: Type.Union([Type.Literal('facturada'), Type.Literal('anulada')]),
          text: Text(500),
        }),
      ),
    }),
  ),
});

export const CertificationSetSchema: TSchema = Type.Object(
  {
    id: Uuid(),
    object: Type.Literal('certification_set'),
    tenantId: Uuid(),
    sha256: Type.String({ maxLength: 64, description: "SHA-256 of the set's decoded text: the same set uploaded again is this one." }),
    sections: Type.Array(SectionSchema),
    cases: Type.Array(CaseSchema),
    progress: Type.Object({
      cases: Type.Integer(),
      documents: Type.Integer({ description: 'Cases with their document made (0 until the documents step exists).' }),
    }),
    createdAt: Timestamp(),
  },
  { $id: 'CertificationSet', title: 'CertificationSet' },
);
