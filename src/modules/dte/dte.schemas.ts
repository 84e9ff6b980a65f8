import { Type } from '@sinclair/typebox';
import { Nullable, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';

// Input bounds follow the SII schema fields the values end up in (limits.ts of the engine);
// receptor.giro is longer than GiroRecep (40) because the engine cuts it, as the SII portal does.
export const DTE_STATUSES = ['created', 'sending', 'sent', 'accepted', 'accepted_with_objections', 'rejected', 'send_failed'] as const;
export const MAX_AMOUNT = 999_999_999_999_999;

const DateField = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10, description });

const Pct = (description: string, maximum = 100) => Type.Number({ exclusiveMinimum: 0, maximum, description, examples: [10] });
const Code = (description: string, maximum: number) => Type.Integer({ minimum: 1, maximum, description });
const Rut = (description: string) => Type.String({ minLength: 3, maxLength: 12, description, examples: ['76.123.456-7'] });

export const ReceptorBody = Type.Object(
  {
    rut: Type.String({
      minLength: 3,
      maxLength: 12,
      description:
        'Recipient RUT with check digit (76.123.456-7 or 76123456-7). 66.666.666-6 (consumidor final) only on boletas; 55.555.555-5 for a foreign receptor of an export.',
      examples: ['77.777.777-7'],
    }),
    razonSocial: Type.Optional(Type.String({ minLength: 1, maxLength: 100, examples: ['Comercial Andes SpA'] })),
    giro: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Required on 33, 34, 43, 46 and 52. Written cut to 40 characters (GiroRecep).',
        examples: ['Comercio al por menor'],
      }),
    ),
    direccion: Type.Optional(
      Type.String({ minLength: 1, maxLength: 70, description: 'Required on 33, 34, 43, 46 and 52.', examples: ['Av. Apoquindo 4501'] }),
    ),
    comuna: Type.Optional(
      Type.String({ minLength: 1, maxLength: 20, description: 'Required on 33, 34, 43, 46 and 52.', examples: ['Las Condes'] }),
    ),
    ciudad: Type.Optional(Type.String({ minLength: 1, maxLength: 20, examples: ['Santiago'] })),
    contacto: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
    correo: Type.Optional(Type.String({ minLength: 1, maxLength: 80, examples: ['dte@andes.cl'] })),
    extranjero: Type.Optional(
      Type.Object(
        {
          nacionalidad: Type.Optional(
            Type.String({
              pattern: '^\\d{1,3}$',
              description: 'Country code of the Aduana table (225 USA, 224 Germany…).',
              examples: ['225'],
            }),
          ),
          numeroId: Type.Optional(Type.String({ minLength: 1, maxLength: 20, description: 'Foreign tax id or passport.' })),
        },
        { additionalProperties: false, description: 'Exports only (110–112): the foreign receptor (Extranjero).' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const DetalleBody = Type.Object(
  {
    nombre: Type.String({ minLength: 1, maxLength: 80, examples: ['Servicio de soporte'] }),
    cantidad: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 999_999_999_999,
        description:
          'Up to 6 decimals. Only a guía 52 that moves goods without a sale (indTraslado ≠ 1) may leave cantidad and precioUnitario out.',
        examples: [2],
      }),
    ),
    precioUnitario: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 999_999_999_999,
        description:
          'Up to 6 decimals; in the export currency on 110–112; IVA included when montoBruto (and on boletas 39 unless indMontoNeto).',
        examples: [35000],
      }),
    ),
    montoItem: Type.Number({
      minimum: 0,
      maximum: MAX_AMOUNT,
      description:
        'round(cantidad × precioUnitario) − descuento + recargo, half up (4 decimals on exports in a foreign currency, else whole pesos).',
      examples: [70000],
    }),
    exento: Type.Optional(Type.Boolean({ description: 'Exempt line (IndExe 1). Every line of 34, 41 and 110–112 is exempt.' })),
    indExe: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 6,
        description:
          '1 exento, 2 no facturable (MontoNF), 3 garantía de depósito por envases (GrntDep), 4 ítem no venta, 5 ítem a rebajar, 6 no facturable negativo. Boletas: 1, 2 or 6.',
      }),
    ),
    unidad: Type.Optional(Type.String({ minLength: 1, maxLength: 4, examples: ['UN'] })),
    descripcion: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    codigos: Type.Optional(
      Type.Array(
        Type.Object(
          {
            tipo: Type.String({ minLength: 1, maxLength: 10, examples: ['INT1'] }),
            valor: Type.Union([Type.String({ minLength: 1, maxLength: 35 }), Type.Integer({ minimum: 0 })], { examples: ['SKU-123'] }),
          },
          { additionalProperties: false },
        ),
        { maxItems: 5, description: 'Item codes (CdgItem): type (INT1, EAN13, CPCS…) and value.' },
      ),
    ),
    descuentoPct: Type.Optional(
      Pct('Line discount in percent (DescuentoPct); the amount is round(round(cantidad × precioUnitario) × pct / 100).'),
    ),
    descuentoMonto: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: MAX_AMOUNT,
        description: 'Line discount amount (DescuentoMonto); if given with descuentoPct it must be that percentage.',
      }),
    ),
    recargoPct: Type.Optional(Pct('Line surcharge in percent (RecargoPct).', 999.99)),
    recargoMonto: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_AMOUNT, description: 'Line surcharge amount (RecargoMonto).' })),
    impuestoAdicional: Type.Optional(
      Type.Union(
        [Type.Integer({ minimum: 1, maximum: 999 }), Type.Array(Type.Integer({ minimum: 1, maximum: 999 }), { minItems: 1, maxItems: 2 })],
        {
          description:
            'Additional tax or retention codes (CodImpAdic), one or two: 24 licores 31.5 %, 25/26 vinos y cervezas 20.5 %, 27 bebidas 10 %, 271 azucaradas 18 %, 19 IVA anticipado harina 12 %, 17/18 carne 5 %, 23/44 15 %, 45 50 %; retentions on 46 and notes: 15 IVA retenido total, 30–41, 46–48, 301–481. docs/dte.md lists them.',
          examples: [24],
        },
      ),
    ),
    retenedor: Type.Optional(
      Type.Boolean({ description: 'The issuer withholds on this line as retention agent (Retenedor/IndAgente R).' }),
    ),
    tipoDocLiquidado: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 999 }), Type.String({ minLength: 1, maxLength: 3 })], {
        description: '43 only, required there: the type of the document this line liquidates (TpoDocLiq), e.g. 33.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ReferenciaBody = Type.Object(
  {
    tipoDocRef: Type.Union([Type.Integer({ minimum: 1, maximum: 999 }), Type.String({ minLength: 1, maxLength: 3 })], { examples: [33] }),
    folioRef: Type.Union([Type.Integer({ minimum: 0 }), Type.String({ minLength: 1, maxLength: 18 })], { examples: [1021] }),
    fechaRef: DateField('Date of the referenced document; not after fechaEmision.'),
    codRef: Type.Optional(
      Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)], {
        description:
          "1 anula (at most one per note; a note that cancels one of this tenant's documents carries its total), 2 corrige texto (amounts 0), 3 corrige montos.",
      }),
    ),
    razonRef: Type.Optional(Type.String({ minLength: 1, maxLength: 90, examples: ['Anula factura'] })),
    indGlobal: Type.Optional(Type.Boolean({ description: 'The reference covers every document of that type (IndGlobal 1).' })),
    rutOtro: Type.Optional(Rut('RUT of another taxpayer the reference is about (RUTOtr).')),
  },
  { additionalProperties: false },
);

const DescuentoGlobalBody = Type.Object(
  {
    tipo: Type.Union([Type.Literal('descuento'), Type.Literal('recargo')]),
    valor: Type.Number({ exclusiveMinimum: 0, maximum: MAX_AMOUNT, examples: [10] }),
    unidad: Type.Union([Type.Literal('%'), Type.Literal('$')], { description: '% of the lines it applies to, or an amount.' }),
    glosa: Type.Optional(Type.String({ minLength: 1, maxLength: 45 })),
    exento: Type.Optional(Type.Boolean({ description: 'Applies to the exempt lines (IndExeDR 1); otherwise to the taxed ones.' })),
  },
  { additionalProperties: false },
);

const TransporteBody = Type.Object(
  {
    patente: Type.Optional(Type.String({ minLength: 1, maxLength: 8, examples: ['ABCD12'] })),
    rutTransportista: Type.Optional(Rut('Carrier RUT (RUTTrans).')),
    rutChofer: Type.Optional(Rut('Driver RUT; with nombreChofer.')),
    nombreChofer: Type.Optional(Type.String({ minLength: 1, maxLength: 30 })),
    direccion: Type.Optional(Type.String({ minLength: 1, maxLength: 70, description: 'Destination address (DirDest).' })),
    comuna: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
    ciudad: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
  },
  { additionalProperties: false, description: 'Guías 52 (and exports): transport data (Transporte).' },
);

const AduanaBody = Type.Object(
  {
    modalidadVenta: Type.Optional(Code('CodModVenta (Aduana table).', 99)),
    clausulaVenta: Type.Optional(Code('CodClauVenta (Incoterm code, Aduana table: 1 CIF, 2 CFR, 5 FOB…).', 99)),
    totalClausulaVenta: Type.Optional(Type.Number({ minimum: 0, description: 'TotClauVenta, 2 decimals.' })),
    viaTransporte: Type.Optional(Code('CodViaTransp (1 marítima, 4 aérea, 7 carretera…).', 99)),
    nombreTransporte: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    rutCompaniaTransporte: Type.Optional(Rut('RUTCiaTransp.')),
    nombreCompaniaTransporte: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    booking: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
    operador: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
    puertoEmbarque: Type.Optional(Code('CodPtoEmbarque (Aduana port code).', 9999)),
    puertoDesembarque: Type.Optional(Code('CodPtoDesemb (Aduana port code).', 9999)),
    tara: Type.Optional(Code('Tara.', 9_999_999)),
    unidadTara: Type.Optional(Code('CodUnidMedTara.', 99)),
    pesoBruto: Type.Optional(Type.Number({ minimum: 0, description: '2 decimals.' })),
    unidadPesoBruto: Type.Optional(Code('CodUnidPesoBruto.', 99)),
    pesoNeto: Type.Optional(Type.Number({ minimum: 0, description: '2 decimals.' })),
    unidadPesoNeto: Type.Optional(Code('CodUnidPesoNeto.', 99)),
    totalItems: Type.Optional(Type.Integer({ minimum: 1 })),
    totalBultos: Type.Optional(Type.Integer({ minimum: 1 })),
    bultos: Type.Optional(
      Type.Array(
        Type.Object(
          {
            tipo: Code('CodTpoBultos (Aduana table).', 999),
            cantidad: Type.Integer({ minimum: 1 }),
            marcas: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
            idContainer: Type.Optional(Type.String({ minLength: 1, maxLength: 25 })),
            sello: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
            emisorSello: Type.Optional(Type.String({ minLength: 1, maxLength: 70 })),
          },
          { additionalProperties: false },
        ),
        { maxItems: 10 },
      ),
    ),
    flete: Type.Optional(Type.Number({ minimum: 0, description: 'MntFlete, 4 decimals.' })),
    seguro: Type.Optional(Type.Number({ minimum: 0, description: 'MntSeguro, 4 decimals.' })),
    paisReceptor: Type.Optional(Code('CodPaisRecep (Aduana country code).', 999)),
    paisDestino: Type.Optional(Code('CodPaisDestin (Aduana country code).', 999)),
  },
  { additionalProperties: false, description: 'Customs data (Transporte/Aduana), codes from the Aduana tables.' },
);

const ExportacionBody = Type.Object(
  {
    moneda: Type.String({
      minLength: 1,
      maxLength: 15,
      description: "Currency of every amount (TpoMoneda), one of the SII's names: DOLAR USA, EURO, PESO CL, …",
      examples: ['DOLAR USA'],
    }),
    otraMoneda: Type.Optional(
      Type.Object(
        {
          moneda: Type.String({ minLength: 1, maxLength: 15, examples: ['PESO CL'] }),
          tipoCambio: Type.Number({ exclusiveMinimum: 0, maximum: 999999.9999, examples: [950.25] }),
        },
        { additionalProperties: false, description: 'The totals again in another currency (OtraMoneda): amount × tipoCambio.' },
      ),
    ),
    formaPago: Type.Optional(Code('FmaPagExp (Aduana table: 1 COB1, 11 ACRED, 21 sin pago…).', 99)),
    aduana: Type.Optional(AduanaBody),
  },
  { additionalProperties: false, description: 'Required on exports 110, 111, 112; refused on other types.' },
);

const ComisionBody = Type.Object(
  {
    tipo: Type.Union([Type.Literal('comision'), Type.Literal('otro')]),
    glosa: Type.String({ minLength: 1, maxLength: 60, examples: ['Comisión 5 %'] }),
    tasa: Type.Optional(Pct('Percent, informative (TasaComision).')),
    montoNeto: Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, examples: [17500] }),
    montoExento: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_AMOUNT })),
  },
  { additionalProperties: false },
);

export const CreateDteBody = Type.Object(
  {
    tipoDte: Type.Integer({
      minimum: 1,
      maximum: 999,
      description: '33, 34, 39, 41, 43, 46, 52, 56, 61, 110, 111 or 112.',
      examples: [33],
    }),
    fechaEmision: Type.Optional(DateField('Default: today in Chile (America/Santiago). Not in the future.')),
    receptor: Type.Optional(ReceptorBody),
    detalle: Type.Array(DetalleBody, { minItems: 1, maxItems: 1000, description: '1–60 lines (1–1000 for boletas 39 and 41).' }),
    montoTotal: Type.Number({
      minimum: -MAX_AMOUNT,
      maximum: MAX_AMOUNT,
      description: 'The total the service computes (docs/dte.md, "Amounts"); a mismatch is a 422 naming the expected value per field.',
      examples: [83300],
    }),
    formaPago: Type.Optional(
      Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)], { description: '1 contado, 2 crédito, 3 sin costo.' }),
    ),
    referencias: Type.Optional(Type.Array(ReferenciaBody, { maxItems: 40, description: 'Required for 56, 61, 111 and 112.' })),
    descuentosGlobales: Type.Optional(
      Type.Array(DescuentoGlobalBody, { maxItems: 20, description: 'Global discounts and surcharges (DscRcgGlobal). Not on 43.' }),
    ),
    montoBruto: Type.Optional(
      Type.Boolean({ description: '33, 34, 46, 52, 56, 61: line prices include IVA (MntBruto 1); not with impuestoAdicional.' }),
    ),
    indMontoNeto: Type.Optional(Type.Boolean({ description: 'Boletas 39: line prices are net of IVA (IndMntNeto 2).' })),
    indServicio: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 5, description: 'Boletas 1–4 (default 3); facturas 1–3; exports 3–5.' }),
    ),
    fechaVencimiento: Type.Optional(DateField('Due date (FchVenc); not before fechaEmision.')),
    medioPago: Type.Optional(
      Type.Union(
        ['CH', 'CF', 'LT', 'EF', 'PE', 'TC', 'OT'].map((m) => Type.Literal(m)),
        { description: 'CH cheque, CF cheque a fecha, LT letra, EF efectivo, PE pago a cta. corriente, TC tarjeta, OT otro.' },
      ),
    ),
    terminosPago: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Payment terms as text (TermPagoGlosa).',
        examples: ['30 días fecha factura'],
      }),
    ),
    terminosPagoDias: Type.Optional(Type.Integer({ minimum: 1, maximum: 999 })),
    pagos: Type.Optional(
      Type.Array(
        Type.Object(
          {
            fecha: DateField('Payment date.'),
            monto: Type.Integer({ minimum: 0, maximum: MAX_AMOUNT }),
            glosa: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
          },
          { additionalProperties: false },
        ),
        { maxItems: 30, description: 'Payment schedule (MntPagos).' },
      ),
    ),
    indTraslado: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 9,
        description:
          'Guías 52: 1 constituye venta (default), 2 ventas por efectuar, 3 consignaciones, 4 entrega gratuita, 5 traslado interno, 6 otros traslados no venta, 7 guía de devolución, 8 traslado para exportación, 9 venta para exportación.',
      }),
    ),
    tipoDespacho: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 3,
        description: 'Guías 52: 1 por cuenta del receptor, 2 del emisor a instalaciones del receptor, 3 del emisor a otras instalaciones.',
      }),
    ),
    transporte: Type.Optional(TransporteBody),
    exportacion: Type.Optional(ExportacionBody),
    comisiones: Type.Optional(
      Type.Array(ComisionBody, {
        maxItems: 20,
        description: '43 only, required there: commissions and other charges, subtracted from the total.',
      }),
    ),
    emisor: Type.Optional(
      Type.Object(
        {
          telefono: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
          correo: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
          sucursal: Type.Optional(Type.String({ minLength: 1, maxLength: 20, description: 'Branch name (Sucursal).' })),
          codigoSucursal: Type.Optional(Type.Integer({ minimum: 1, maximum: 999_999_999, description: 'SII branch code (CdgSIISucur).' })),
          vendedor: Type.Optional(Type.String({ minLength: 1, maxLength: 60, description: 'Seller code (CdgVendedor).' })),
          unidadSii: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 40,
              examples: ['SANTIAGO ORIENTE'],
              description: 'The SII office printed as "S.I.I. - {unidadSii}" (not in the XML).',
            }),
          ),
        },
        {
          additionalProperties: false,
          description: "Per-document override of the tenant's issuer data (its `emisor`): each key given replaces the tenant's.",
        },
      ),
    ),
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
      contacto: Nullable(Type.String()),
      correo: Nullable(Type.String()),
      extranjero: Nullable(Type.Object({ nacionalidad: Nullable(Type.String()), numeroId: Nullable(Type.String()) })),
    }),
    detalle: Type.Array(
      Type.Object({
        nombre: Type.String(),
        cantidad: Nullable(Type.Number()),
        precioUnitario: Nullable(Type.Number()),
        montoItem: Type.Number(),
        exento: Type.Boolean(),
        indExe: Nullable(Type.Integer()),
        unidad: Nullable(Type.String()),
        descripcion: Nullable(Type.String()),
        codigos: Type.Array(Type.Object({ tipo: Type.String(), valor: Type.String() })),
        descuentoPct: Nullable(Type.Number()),
        descuentoMonto: Nullable(Type.Number()),
        recargoPct: Nullable(Type.Number()),
        recargoMonto: Nullable(Type.Number()),
        impuestoAdicional: Type.Array(Type.Integer()),
        retenedor: Type.Boolean(),
        tipoDocLiquidado: Nullable(Type.String()),
      }),
    ),
    referencias: Type.Array(
      Type.Object({
        tipoDocRef: Type.String(),
        folioRef: Type.String(),
        fechaRef: Type.String(),
        codRef: Nullable(Type.Integer()),
        razonRef: Nullable(Type.String()),
        indGlobal: Type.Boolean(),
        rutOtro: Nullable(Type.String()),
      }),
    ),
    formaPago: Nullable(Type.Integer()),
    emisor: Type.Object(
      {
        telefono: Nullable(Type.String()),
        correo: Nullable(Type.String()),
        sucursal: Nullable(Type.String()),
        codigoSucursal: Nullable(Type.Integer()),
        vendedor: Nullable(Type.String()),
        unidadSii: Nullable(Type.String({ description: "The SII office printed on the document; null: the issuer's city." })),
      },
      {
        description:
          "Issuer data of this document beyond the tenant's identity (RUT, razón social, giro, address): the tenant's `emisor` as it was at issuance, with the document's overrides.",
      },
    ),
    indServicio: Nullable(Type.Integer()),
    indTraslado: Nullable(Type.Integer()),
    tipoDespacho: Nullable(Type.Integer()),
    montoBruto: Type.Boolean(),
    indMontoNeto: Type.Boolean(),
    fechaVencimiento: Nullable(Type.String()),
    medioPago: Nullable(Type.String()),
    terminosPago: Nullable(Type.String()),
    terminosPagoDias: Nullable(Type.Integer()),
    pagos: Type.Array(Type.Object({ fecha: Type.String(), monto: Type.Integer(), glosa: Nullable(Type.String()) })),
    descuentosGlobales: Type.Array(
      Type.Object({
        tipo: Type.String(),
        valor: Type.Number(),
        unidad: Type.String(),
        glosa: Nullable(Type.String()),
        exento: Type.Boolean(),
        monto: Type.Number({ description: 'What it amounts to.' }),
      }),
    ),
    transporte: Nullable(Type.Object({}, { additionalProperties: true })),
    exportacion: Nullable(Type.Object({}, { additionalProperties: true })),
    comisiones: Type.Array(Type.Object({}, { additionalProperties: true })),
    montoNeto: Type.Number(),
    montoExento: Type.Number(),
    iva: Type.Number(),
    impuestos: Type.Array(Type.Object({ tipo: Type.Integer(), tasa: Type.Number(), monto: Type.Number() }), {
      description: 'Each additional tax or retention (ImptoReten): code, rate and amount.',
    }),
    ivaRetenido: Type.Number({ description: 'IVA withheld by the buyer (retention codes).' }),
    ivaNoRetenido: Type.Number(),
    montoNoFacturable: Type.Number(),
    otraMoneda: Nullable(
      Type.Object({ moneda: Type.String(), tipoCambio: Type.Number(), montoExento: Type.Number(), montoTotal: Type.Number() }),
    ),
    montoTotal: Type.Number(),
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
