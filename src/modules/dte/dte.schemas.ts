import { Type } from '@sinclair/typebox';
import {
  describeTypes,
  DOCUMENT_TYPES,
  familyCodes,
  listCodes,
  SUPPORTED_TIPOS_DTE,
  typesWhere,
  type DocumentType,
} from '../../dte/index.ts';
import { Livemode, Nullable, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';

// Input bounds follow the SII schema fields the values end up in (limits.ts of the engine);
// receptor.giro is longer than GiroRecep (40) because the engine cuts it, as the SII portal does.
// Every property of CreateDteBody carries a description (what it is, the SII element, unit, the
// types it applies to) and every leaf an example (dte.schemas.test.ts checks both): the OpenAPI
// document at /docs is generated from them. Element names are those of DTE_v10.xsd.
// Lists of types in descriptions come from the engine's catalogue (src/dte/catalogue.ts).
const DETAILS_REQUIRED = listCodes(typesWhere((t) => t.receptorDetailsRequired));
const NOTES = listCodes(typesWhere((t) => t.requiresReferencias));
const exportsList = typesWhere((t) => t.family === 'exportacion');
const EXPORTS = listCodes(exportsList);
const EXPORTS_OR = listCodes(exportsList, 'or');
const BOLETAS = listCodes(typesWhere((t) => t.family === 'boleta'));
const NO_RECEPTOR = listCodes(typesWhere((t) => !t.receptorRequired));
const GROSS_BY_DEFAULT = listCodes(typesWhere((t) => t.grossByDefault));
const DIRECCION_REQUIRED = listCodes(typesWhere((t) => t.receptorDetailsRequired || t.strategy === 'facturaExportacion'));
/** Types whose every line is exempt (their totals have no taxed part: amounts.ts). */
const ALL_EXEMPT = listCodes(typesWhere((t) => t.amounts === 'exento' || t.amounts === 'boleta_exenta' || t.amounts === 'exportacion'));
const NOT_ALL_EXEMPT = listCodes(
  typesWhere((t) => t.forbidAllExempt),
  'or',
);
const TAX_VENTA = listCodes(typesWhere((t) => t.tax.includes('venta')));
const TAX_COMPRA = listCodes(typesWhere((t) => t.tax.includes('compra')));
const maxLines = (pick: (t: DocumentType) => boolean) => Math.max(...DOCUMENT_TYPES.filter(pick).map((t) => t.maxLines));

export const DTE_STATUSES = ['created', 'sending', 'sent', 'accepted', 'accepted_with_objections', 'rejected', 'send_failed'] as const;
export const MAX_AMOUNT = 999_999_999_999_999;

const DateField = (description: string, example = '2026-11-25') =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10, description: `${description} YYYY-MM-DD.`, examples: [example] });

const Pct = (description: string, maximum = 100, example = 10) =>
  Type.Number({ exclusiveMinimum: 0, maximum, description, examples: [example] });
const Code = (description: string, maximum: number, example: number) =>
  Type.Integer({ minimum: 1, maximum, description, examples: [example] });
/** A code of one of the Aduana's tables, or its name there (src/dte/aduana/README.md). */
const NamedCode = (description: string, maximum: number, example: number, name: string) =>
  Type.Union([Type.Integer({ minimum: 1, maximum }), Type.String({ minLength: 1, maxLength: 60 })], {
    description: `${description} Its name in that table is taken too (e.g. "${name}"), without regard to case or accents.`,
    examples: [example],
  });
const Rut = (description: string, example = '76.123.456-7') =>
  Type.String({ minLength: 3, maxLength: 12, description: `${description} With check digit, dotted or not.`, examples: [example] });

export const ReceptorBody = Type.Object(
  {
    rut: Type.String({
      minLength: 3,
      maxLength: 12,
      description: `Recipient RUT with check digit (RUTRecep; 76.123.456-7 or 76123456-7). 66.666.666-6 (consumidor final) only on boletas; 55.555.555-5 for the foreign receptor of an export (${EXPORTS}, required there).`,
      examples: ['77.777.777-7'],
    }),
    razonSocial: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: `Recipient's legal name or, for a person, full name (RznSocRecep). Required on every type except boletas ${NO_RECEPTOR}.`,
        examples: ['Comercial Andes SpA'],
      }),
    ),
    giro: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: `Recipient's line of business (GiroRecep). Required on ${DETAILS_REQUIRED}. Written cut to 40 characters.`,
        examples: ['Comercio al por menor'],
      }),
    ),
    direccion: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 70,
        description: `Recipient's street address (DirRecep). Required on ${DIRECCION_REQUIRED}.`,
        examples: ['Av. Apoquindo 4501'],
      }),
    ),
    comuna: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 20,
        description: `Recipient's comuna (CmnaRecep). Required on ${DETAILS_REQUIRED}.`,
        examples: ['Las Condes'],
      }),
    ),
    ciudad: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 20,
        description: "Recipient's city (CiudadRecep). Required on the factura de exportación 110; optional elsewhere.",
        examples: ['Santiago'],
      }),
    ),
    contacto: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 80,
        description: 'A contact at the recipient: name, phone or e-mail (Contacto). All types.',
        examples: ['Marcela Rojas +56 9 8765 4321'],
      }),
    ),
    correo: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 80,
        description: "Recipient's e-mail written in the document (CorreoRecep).",
        examples: ['dte@andes.cl'],
      }),
    ),
    extranjero: Type.Optional(
      Type.Object(
        {
          nacionalidad: Type.Optional(
            Type.String({
              pattern: '^\\d{1,3}$',
              description:
                "Recipient's nationality (Extranjero/Nacionalidad): a code of the Aduana's country table, 1–3 digits (\"225\" in the SII's export samples).",
              examples: ['225'],
            }),
          ),
          numeroId: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 20,
              description: "The foreign recipient's own tax id or passport number (Extranjero/NumId).",
              examples: ['59-1234567'],
            }),
          ),
        },
        { additionalProperties: false, description: `Exports only (${EXPORTS}): the foreign receptor (Extranjero).` },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: `The recipient (Receptor). Required on every type except boletas ${NO_RECEPTOR}, which without it go to the anonymous consumer 66.666.666-6.`,
  },
);

export const DetalleBody = Type.Object(
  {
    nombre: Type.String({
      minLength: 1,
      maxLength: 80,
      description: 'Name of the item or service (NmbItem). All types.',
      examples: ['Servicio de soporte'],
    }),
    cantidad: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 999_999_999_999,
        description:
          "Quantity (QtyItem), in the line's `unidad`, up to 6 decimals. Only a guía 52 that moves goods without a sale (indTraslado ≠ 1) may leave cantidad and precioUnitario out; required on each line of a 110 of goods.",
        examples: [2],
      }),
    ),
    precioUnitario: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 999_999_999_999,
        description: `Unit price (PrcItem), up to 6 decimals: in pesos, or in the export currency on ${EXPORTS_OR}; IVA included when montoBruto (and on boletas ${GROSS_BY_DEFAULT} unless indMontoNeto), else net.`,
        examples: [35000],
      }),
    ),
    montoItem: Type.Optional(
      Type.Number({
        minimum: -MAX_AMOUNT,
        maximum: MAX_AMOUNT,
        description:
          'Line amount (MontoItem): round(cantidad × precioUnitario) − descuento + recargo, half up (4 decimals on exports in a foreign currency, else whole pesos); a value other than the computed one is a 422. Required, except on a line without precioUnitario (a guía 52 that moves goods without a sale, indTraslado ≠ 1), whose amount is 0 (MontoItem 0 in the XML). On a liquidación-factura 43 a line may give montoItem without precioUnitario: the total of the documents it liquidates (cantidad of them), below zero for a credit note liquidated; elsewhere it is never below zero.',
        examples: [70000],
      }),
    ),
    exento: Type.Optional(
      Type.Boolean({
        description: `Exempt line (IndExe 1). Every line of ${ALL_EXEMPT} is exempt; a ${NOT_ALL_EXEMPT} needs at least one taxed line.`,
        examples: [true],
      }),
    ),
    indExe: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 6,
        description:
          'Line indicator (IndExe): 1 exento, 2 no facturable (MontoNF), 3 garantía de depósito por envases (GrntDep, added to the total), 4 ítem no venta, 5 ítem a rebajar, 6 no facturable negativo; 4 and 5 count in no total and their montoItem is 0 (format document §B field 38), whatever their price. Boletas: 1, 2 or 6. Not with exento true unless 1.',
        examples: [2],
      }),
    ),
    unidad: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4,
        description: 'Unit of measure of cantidad (UnmdItem), free text such as UN, KG, TON, LT. Required on each line of a 110 of goods.',
        examples: ['UN'],
      }),
    ),
    descripcion: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: 'Longer description of the item, printed under its name (DscItem). All types.',
        examples: ['Soporte remoto, horario hábil, noviembre 2026'],
      }),
    ),
    codigos: Type.Optional(
      Type.Array(
        Type.Object(
          {
            tipo: Type.String({
              minLength: 1,
              maxLength: 10,
              description: 'Coding the code belongs to (CdgItem/TpoCodigo), free text: EAN13, PLU, DUN14, INT1, INT2, EAN128, CPCS…',
              examples: ['INT1'],
            }),
            valor: Type.Union([Type.String({ minLength: 1, maxLength: 35 }), Type.Integer({ minimum: 0 })], {
              description: "The item's code in that coding (CdgItem/VlrCodigo), up to 35 characters.",
              examples: ['SKU-123'],
            }),
          },
          { additionalProperties: false, description: 'One item code (CdgItem).' },
        ),
        { maxItems: 5, description: 'Item codes (CdgItem), up to 5: type (INT1, EAN13, CPCS…) and value. All types.' },
      ),
    ),
    descuentoPct: Type.Optional(
      Pct(
        'Line discount in percent, up to 2 decimals (DescuentoPct); the amount is round(round(cantidad × precioUnitario) × pct / 100). All types.',
      ),
    ),
    descuentoMonto: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: MAX_AMOUNT,
        description:
          "Line discount amount (DescuentoMonto), in the line's currency; if given with descuentoPct it must be that percentage. All types.",
        examples: [5000],
      }),
    ),
    recargoPct: Type.Optional(
      Pct('Line surcharge in percent, up to 2 decimals (RecargoPct), of round(cantidad × precioUnitario). All types.', 999.99, 15),
    ),
    recargoMonto: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: MAX_AMOUNT,
        description:
          "Line surcharge amount (RecargoMonto), in the line's currency; if given with recargoPct it must be that percentage. All types.",
        examples: [2500],
      }),
    ),
    impuestoAdicional: Type.Optional(
      Type.Union(
        [Type.Integer({ minimum: 1, maximum: 999 }), Type.Array(Type.Integer({ minimum: 1, maximum: 999 }), { minItems: 1, maxItems: 2 })],
        {
          description: `Additional tax or retention codes (CodImpAdic), one or two, from the SII's "Codificación tipos de impuestos": added on ${TAX_VENTA} — 24 licores 31.5 %, 25/26 vinos y cervezas 20.5 %, 27 bebidas 10 %, 271 azucaradas 18 %, 19 IVA anticipado harina 12 %, 17/18 carne 5 %, 23/44 15 %, 45 50 %; retentions on ${TAX_COMPRA} — 15 IVA retenido total, 30–41, 46–48, 301–481. docs/dte.md lists them. Not with montoBruto.`,
          examples: [24],
        },
      ),
    ),
    retenedor: Type.Optional(
      Type.Boolean({
        description: 'The issuer withholds the tax of this line as retention agent (Retenedor/IndAgente R). Not on boletas.',
        examples: [true],
      }),
    ),
    tipoDocLiquidado: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 999 }), Type.String({ minLength: 1, maxLength: 3 })], {
        description: '43 only, required there: the type of the document this line liquidates (TpoDocLiq), e.g. 33.',
        examples: [33],
      }),
    ),
  },
  { additionalProperties: false, description: 'One line of the document (Detalle).' },
);

export const ReferenciaBody = Type.Object(
  {
    tipoDocRef: Type.Union([Type.Integer({ minimum: 1, maximum: 999 }), Type.String({ minLength: 1, maxLength: 3 })], {
      description:
        'Type of the referenced document (TpoDocRef): a DTE type (33, 52, 110…) or another SII code such as 801 (orden de compra). All types.',
      examples: [33],
    }),
    folioRef: Type.Union([Type.Integer({ minimum: 0 }), Type.String({ minLength: 1, maxLength: 18 })], {
      description: 'Folio or number of the referenced document (FolioRef), up to 18 characters; 0 with indGlobal.',
      examples: [1021],
    }),
    fechaRef: DateField('Date of the referenced document (FchRef); not after fechaEmision.', '2026-11-20'),
    codRef: Type.Optional(
      Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)], {
        description: `What the note does to the referenced document (CodRef): 1 anula (at most one per note; a note that cancels one of this tenant's documents carries its total), 2 corrige texto (amounts 0), 3 corrige montos. A note (${NOTES}) needs at least one reference with it.`,
        examples: [3],
      }),
    ),
    razonRef: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 90,
        description: `Reason for the reference (RazonRef). Required with codRef on notes ${NOTES}.`,
        examples: ['Anula factura'],
      }),
    ),
    indGlobal: Type.Optional(
      Type.Boolean({
        description: "The reference covers every document of that type, e.g. a month's facturas (IndGlobal 1; folioRef 0). Not on boletas.",
        examples: [true],
      }),
    ),
    rutOtro: Type.Optional(Rut('RUT of the other taxpayer who issued the referenced document (RUTOtr). Not on boletas.', '96.555.444-0')),
  },
  { additionalProperties: false, description: 'One reference to another document (Referencia).' },
);

const DescuentoGlobalBody = Type.Object(
  {
    tipo: Type.Union([Type.Literal('descuento'), Type.Literal('recargo')], {
      description: 'Discount or surcharge (TpoMov D or R).',
      examples: ['descuento'],
    }),
    valor: Type.Number({
      exclusiveMinimum: 0,
      maximum: MAX_AMOUNT,
      description: "Percent, or an amount in the document's currency, per unidad (ValorDR).",
      examples: [10],
    }),
    unidad: Type.Union([Type.Literal('%'), Type.Literal('$')], {
      description:
        '% of the lines it applies to (before any global), or $ an amount (TpoValor). On documents with additional taxes, % only.',
      examples: ['%'],
    }),
    glosa: Type.Optional(
      Type.String({ minLength: 1, maxLength: 45, description: 'Text printed with it (GlosaDR).', examples: ['Descuento por volumen'] }),
    ),
    exento: Type.Optional(
      Type.Boolean({
        description: `Applies to the exempt lines (IndExeDR 1); otherwise to the taxed ones. Implied on ${ALL_EXEMPT}.`,
        examples: [true],
      }),
    ),
  },
  { additionalProperties: false, description: 'One global discount or surcharge (DscRcgGlobal).' },
);

const TransporteBody = Type.Object(
  {
    patente: Type.Optional(
      Type.String({ minLength: 1, maxLength: 8, description: "Vehicle's licence plate (Patente).", examples: ['ABCD12'] }),
    ),
    rutTransportista: Type.Optional(Rut('Carrier RUT (RUTTrans).', '78.123.456-7')),
    rutChofer: Type.Optional(Rut("Driver's RUT (Chofer/RUTChofer); with nombreChofer.", '12.345.678-5')),
    nombreChofer: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 30,
        description: "Driver's name (Chofer/NombreChofer); with rutChofer.",
        examples: ['Juan Pérez'],
      }),
    ),
    direccion: Type.Optional(
      Type.String({ minLength: 1, maxLength: 70, description: 'Destination address (DirDest).', examples: ['Calle Nueva 1230'] }),
    ),
    comuna: Type.Optional(
      Type.String({ minLength: 1, maxLength: 20, description: 'Destination comuna (CmnaDest).', examples: ['Quilicura'] }),
    ),
    ciudad: Type.Optional(
      Type.String({ minLength: 1, maxLength: 20, description: 'Destination city (CiudadDest).', examples: ['Santiago'] }),
    ),
  },
  { additionalProperties: false, description: `Guías ${familyCodes('guia')} (and exports): transport data (Transporte).` },
);

const AduanaText = (maxLength: number, description: string, example: string) =>
  Type.String({ minLength: 1, maxLength, description, examples: [example] });

const AduanaBody = Type.Object(
  {
    modalidadVenta: Type.Optional(
      NamedCode(
        'Sale modality of the export (CodModVenta): a code of the Aduana\'s "Modalidad de Venta" table (www.aduana.cl). Required on a 110 of goods (indServicio other than 3, 4, 5).',
        99,
        1,
        'A FIRME',
      ),
    ),
    clausulaVenta: Type.Optional(
      NamedCode(
        'Sale clause as in the DUS, FOB, CIF… (CodClauVenta): a code of the Aduana\'s "Cláusula compra-venta" table. Required on a 110 of goods.',
        99,
        5,
        'FOB',
      ),
    ),
    totalClausulaVenta: Type.Optional(
      Type.Number({
        minimum: 0,
        description:
          'Total the importer pays under the sale clause, as in the DUS, in the export currency, 2 decimals (TotClauVenta). Required on a 110 of goods.',
        examples: [24250],
      }),
    ),
    viaTransporte: Type.Optional(
      NamedCode(
        'Means of transport abroad, air, land, sea… (CodViaTransp): a code of the Aduana\'s "Vías de Transporte" table. Required on a 110 unless hotel services (indServicio 4).',
        99,
        1,
        'MARITIMA, FLUVIAL Y LACUSTRE',
      ),
    ),
    nombreTransporte: Type.Optional(AduanaText(40, 'Name of the ship or means of transport (NombreTransp).', 'MSC Valparaíso')),
    rutCompaniaTransporte: Type.Optional(
      Rut('RUT of the carrier declared in the DUS, or of its agent in Chile (RUTCiaTransp).', '96.812.345-9'),
    ),
    nombreCompaniaTransporte: Type.Optional(
      AduanaText(40, 'Name of the carrier declared in the DUS (NomCiaTransp).', 'Naviera Pacífico S.A.'),
    ),
    booking: Type.Optional(AduanaText(20, "The operator's booking or reservation number (Booking).", 'BK2026-1187')),
    operador: Type.Optional(AduanaText(20, 'Operator code (Operador).', 'OP-45')),
    puertoEmbarque: Type.Optional(
      NamedCode(
        'Port of loading (CodPtoEmbarque): a code of the port table published at www.aduana.cl. Required on a 110 unless hotel services (indServicio 4).',
        9999,
        906,
        'SAN ANTONIO',
      ),
    ),
    puertoDesembarque: Type.Optional(
      NamedCode(
        'Port of unloading (CodPtoDesemb): a code of the port table published at www.aduana.cl. Required on a 110 unless hotel services (indServicio 4).',
        9999,
        222,
        'BALBOA',
      ),
    ),
    tara: Type.Optional(Code('Tare, a whole number in unidadTara (Tara).', 9_999_999, 2200)),
    unidadTara: Type.Optional(
      NamedCode('Unit of the tare (CodUnidMedTara): a code of the Aduana\'s "Unidades de Medida" table.', 99, 6, 'KN'),
    ),
    pesoBruto: Type.Optional(
      Type.Number({
        minimum: 0,
        description: 'Total gross weight of the items, 2 decimals, in unidadPesoBruto (PesoBruto).',
        examples: [8350.5],
      }),
    ),
    unidadPesoBruto: Type.Optional(
      NamedCode('Unit of pesoBruto (CodUnidPesoBruto): a code of the Aduana\'s "Unidades de Medida" table.', 99, 6, 'KN'),
    ),
    pesoNeto: Type.Optional(
      Type.Number({
        minimum: 0,
        description: 'Total net weight of the items, 2 decimals, in unidadPesoNeto (PesoNeto).',
        examples: [7500],
      }),
    ),
    unidadPesoNeto: Type.Optional(
      NamedCode('Unit of pesoNeto (CodUnidPesoNeto): a code of the Aduana\'s "Unidades de Medida" table.', 99, 6, 'KN'),
    ),
    totalItems: Type.Optional(Type.Integer({ minimum: 1, description: 'Number of items of the document (TotItems).', examples: [1] })),
    totalBultos: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Total number of packages the document covers (TotBultos).', examples: [1] }),
    ),
    bultos: Type.Optional(
      Type.Array(
        Type.Object(
          {
            tipo: NamedCode(
              'Package type (CodTpoBultos): a code of the Aduana\'s "Tipos de Bultos" table (www.aduana.cl).',
              999,
              74,
              'CONT40',
            ),
            cantidad: Type.Integer({ minimum: 1, description: 'Number of packages of this type (CantBultos).', examples: [1] }),
            marcas: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 255,
                description: 'Marks identifying the packages when they are not a container (Marcas).',
                examples: ['ANDES IMPORTS MIAMI 1-500'],
              }),
            ),
            idContainer: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 25,
                description: 'Container id with its check digit, for a container (IdContainer).',
                examples: ['MSCU1234565'],
              }),
            ),
            sello: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 20,
                description: 'Container seal, with its check digit (Sello).',
                examples: ['CL123456'],
              }),
            ),
            emisorSello: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 70,
                description: 'Who issued the seal (EmisorSello).',
                examples: ['Aduana de Chile'],
              }),
            ),
          },
          { additionalProperties: false, description: 'One kind of package (TipoBultos).' },
        ),
        { maxItems: 10, description: 'The packages by type (TipoBultos), up to 10; with totalBultos.' },
      ),
    ),
    flete: Type.Optional(
      Type.Number({ minimum: 0, description: 'Freight amount in the export currency, 4 decimals (MntFlete).', examples: [1800] }),
    ),
    seguro: Type.Optional(
      Type.Number({ minimum: 0, description: 'Insurance amount in the export currency, 4 decimals (MntSeguro).', examples: [120.5] }),
    ),
    paisReceptor: Type.Optional(
      NamedCode(
        "Country of the foreign receptor of the goods (CodPaisRecep): a code of the Aduana's country table. Required on a 110 whenever aduana is given.",
        999,
        225,
        'U.S.A.',
      ),
    ),
    paisDestino: Type.Optional(
      NamedCode("Country of destination (CodPaisDestin): a code of the Aduana's country table (www.aduana.cl).", 999, 225, 'U.S.A.'),
    ),
  },
  {
    additionalProperties: false,
    description: 'Customs data (Transporte/Aduana), codes from the Aduana tables (www.aduana.cl); exports 110–112.',
  },
);

const ExportacionBody = Type.Object(
  {
    moneda: Type.String({
      minLength: 1,
      maxLength: 15,
      description: "Currency of every amount of the document (Totales/TpoMoneda), one of the SII's names: DOLAR USA, EURO, PESO CL, …",
      examples: ['DOLAR USA'],
    }),
    otraMoneda: Type.Optional(
      Type.Object(
        {
          moneda: Type.String({
            minLength: 1,
            maxLength: 15,
            description: "The other currency (OtraMoneda/TpoMoneda), one of the SII's names.",
            examples: ['PESO CL'],
          }),
          tipoCambio: Type.Number({
            exclusiveMinimum: 0,
            maximum: 999999.9999,
            description: 'Units of the other currency per unit of moneda, up to 4 decimals (OtraMoneda/TpoCambio).',
            examples: [950.25],
          }),
        },
        { additionalProperties: false, description: 'The totals again in another currency (OtraMoneda): amount × tipoCambio.' },
      ),
    ),
    formaPago: Type.Optional(
      NamedCode(
        'How the foreign importer pays, as in the DUS (FmaPagExp): a code of the Aduana\'s "Formas de Pago" table; 21 for samples without commercial value.',
        99,
        1,
        'ACRED',
      ),
    ),
    aduana: Type.Optional(AduanaBody),
  },
  { additionalProperties: false, description: `Required on exports ${familyCodes('exportacion')}; refused on other types.` },
);

const ComisionBody = Type.Object(
  {
    tipo: Type.Union([Type.Literal('comision'), Type.Literal('otro')], {
      description: 'A commission or another charge (TipoMovim C or O).',
      examples: ['comision'],
    }),
    glosa: Type.String({ minLength: 1, maxLength: 60, description: 'What it is for (Glosa).', examples: ['Comisión 5 %'] }),
    tasa: Type.Optional(Pct('Percent, informative (TasaComision).', 100, 5)),
    montoNeto: Type.Integer({
      minimum: -MAX_AMOUNT,
      maximum: MAX_AMOUNT,
      description:
        'Net amount in pesos (ValComNeto); its IVA (ValComIVA, 19 %) is added and both are subtracted from the total. Below zero for a commission given back (a liquidación liquidated).',
      examples: [17500],
    }),
    montoExento: Type.Optional(
      Type.Integer({
        minimum: -MAX_AMOUNT,
        maximum: MAX_AMOUNT,
        description: 'Exempt amount in pesos (ValComExe), subtracted from the total; below zero for one given back.',
        examples: [0],
      }),
    ),
  },
  { additionalProperties: false, description: 'One commission or charge of a liquidación-factura 43 (Comisiones).' },
);

export const CreateDteBody = Type.Object(
  {
    tipoDte: Type.Integer({
      minimum: 1,
      maximum: 999,
      description: `Document type (TipoDTE): ${describeTypes()}.`,
      examples: [33],
    }),
    fechaEmision: Type.Optional(
      DateField(
        'Date of issue (FchEmis). Default: today in Chile (America/Santiago). Not in the future, nor before the folios were authorised.',
      ),
    ),
    receptor: Type.Optional(ReceptorBody),
    detalle: Type.Array(DetalleBody, {
      minItems: 1,
      maxItems: 1000,
      description: `The lines (Detalle): 1–${maxLines((t) => t.family !== 'boleta')} (1–${maxLines((t) => t.family === 'boleta')} for boletas ${BOLETAS}).`,
    }),
    montoTotal: Type.Number({
      minimum: -MAX_AMOUNT,
      maximum: MAX_AMOUNT,
      description:
        'Total (MntTotal) in pesos, or in the export currency on 110–112: the total the service computes (docs/dte.md, "Amounts"); a mismatch is a 422 naming the expected value per field.',
      examples: [83300],
    }),
    formaPago: Type.Optional(
      Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)], {
        description: 'Payment form (FmaPago): 1 contado, 2 crédito, 3 sin costo. Ignored on boletas.',
        examples: [2],
      }),
    ),
    referencias: Type.Optional(
      Type.Array(ReferenciaBody, {
        maxItems: 40,
        description: `References to other documents (Referencia), up to 40. Required for ${NOTES}.`,
      }),
    ),
    descuentosGlobales: Type.Optional(
      Type.Array(DescuentoGlobalBody, {
        maxItems: 20,
        description: `Global discounts and surcharges (DscRcgGlobal), up to 20. Not on ${listCodes(typesWhere((t) => !t.adjustments))}.`,
      }),
    ),
    montoBruto: Type.Optional(
      Type.Boolean({
        description: `${typesWhere((t) => t.grossPrices).join(', ')}: line prices include IVA (MntBruto 1); not with impuestoAdicional.`,
        examples: [true],
      }),
    ),
    indMontoNeto: Type.Optional(Type.Boolean({ description: 'Boletas 39: line prices are net of IVA (IndMntNeto 2).', examples: [true] })),
    indServicio: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 5,
        description:
          'Service indicator (IndServicio): boletas 1–4 (default 3); facturas 1–3; exports 3–5 (3 services qualified as such by the Aduana, 4 hotel services, 5 international land transport), which waive the customs data they do not need.',
        examples: [3],
      }),
    ),
    fechaVencimiento: Type.Optional(DateField('Due date (FchVenc); not before fechaEmision. All types.', '2026-12-25')),
    medioPago: Type.Optional(
      Type.Union(
        ['CH', 'CF', 'LT', 'EF', 'PE', 'TC', 'OT'].map((m) => Type.Literal(m)),
        {
          description:
            'Means of payment (MedioPago): CH cheque, CF cheque a fecha, LT letra, EF efectivo, PE pago a cta. corriente, TC tarjeta, OT otro. Not on boletas.',
          examples: ['PE'],
        },
      ),
    ),
    terminosPago: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Payment terms as text (TermPagoGlosa). Not on boletas.',
        examples: ['30 días fecha factura'],
      }),
    ),
    terminosPagoDias: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 999, description: 'Payment term in days (TermPagoDias). Not on boletas.', examples: [30] }),
    ),
    pagos: Type.Optional(
      Type.Array(
        Type.Object(
          {
            fecha: DateField('Payment date (MntPagos/FchPago).', '2026-12-25'),
            monto: Type.Integer({
              minimum: 0,
              maximum: MAX_AMOUNT,
              description: 'Amount due on that date, in pesos (MntPagos/MntPago).',
              examples: [714000],
            }),
            glosa: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 40,
                description: 'Text for this payment (MntPagos/GlosaPagos).',
                examples: ['Primera cuota'],
              }),
            ),
          },
          { additionalProperties: false, description: 'One payment of the schedule (MntPagos).' },
        ),
        { maxItems: 30, description: 'Payment schedule (MntPagos), up to 30. Not on boletas.' },
      ),
    ),
    indTraslado: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 9,
        description:
          'Guías 52 (IndTraslado): 1 constituye venta (default), 2 ventas por efectuar, 3 consignaciones, 4 entrega gratuita, 5 traslado interno, 6 otros traslados no venta, 7 guía de devolución, 8 traslado para exportación, 9 venta para exportación.',
        examples: [5],
      }),
    ),
    tipoDespacho: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 3,
        description:
          'Guías 52 (TipoDespacho): 1 por cuenta del receptor, 2 del emisor a instalaciones del receptor, 3 del emisor a otras instalaciones.',
        examples: [2],
      }),
    ),
    transporte: Type.Optional(TransporteBody),
    exportacion: Type.Optional(ExportacionBody),
    comisiones: Type.Optional(
      Type.Array(ComisionBody, {
        maxItems: 20,
        description: '43 only: commissions and other charges (Comisiones), up to 20, subtracted from the total.',
      }),
    ),
    emisor: Type.Optional(
      Type.Object(
        {
          telefono: Type.Optional(
            Type.String({ minLength: 1, maxLength: 20, description: "Issuer's phone (Telefono).", examples: ['+56 2 2345 6789'] }),
          ),
          correo: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 80,
              description: "Issuer's e-mail (CorreoEmisor).",
              examples: ['facturacion@empresa.cl'],
            }),
          ),
          sucursal: Type.Optional(
            Type.String({ minLength: 1, maxLength: 20, description: 'Branch name (Sucursal).', examples: ['Casa Matriz'] }),
          ),
          codigoSucursal: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 999_999_999,
              description: "The SII's code of the branch (CdgSIISucur).",
              examples: [81234567],
            }),
          ),
          vendedor: Type.Optional(
            Type.String({ minLength: 1, maxLength: 60, description: 'Seller code (CdgVendedor).', examples: ['V-017'] }),
          ),
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
          description: "Per-document override of the tenant's issuer data (its `emisor`): each key given replaces the tenant's. All types.",
        },
      ),
    ),
  },
  { additionalProperties: false },
);

const SiiSchema = Type.Object(
  {
    estado: Nullable(Type.String({ description: 'SII state: REC, EPR, DOK, RLV, RCH, RSC, RFR, RCT, …' })),
    glosa: Nullable(Type.String({ description: "The SII's explanation; rejections and reparos start with their code, e.g. DTE-3-101." })),
  },
  { description: "The SII's latest answer; estado and glosa are null until there is one." },
);

const StatusField = Type.Union(
  DTE_STATUSES.map((s) => Type.Literal(s)),
  { description: 'created → sending → sent → accepted | accepted_with_objections | rejected; send_failed when the upload failed.' },
);

/** A response field's description (the record echoes the request; see CreateDteBody for each field's SII element). */
const S = (description: string) => Type.String({ description });
const N = (description: string) => Type.Number({ description });
const I = (description: string) => Type.Integer({ description });
const B = (description: string) => Type.Boolean({ description });

export const DteSchema = Type.Object(
  {
    id: Uuid('DTE id.'),
    livemode: Livemode(),
    tenantId: Uuid('The issuing tenant.'),
    tipoDte: I(`Document type (TipoDTE): ${listCodes(SUPPORTED_TIPOS_DTE, 'or')}.`),
    folio: I("Folio the document took (Folio), from the tenant's CAF of its type."),
    status: StatusField,
    fechaEmision: S('Date of issue (FchEmis), YYYY-MM-DD.'),
    receptor: Type.Object(
      {
        rut: S('Recipient RUT as written (RUTRecep): SII form, without dots (77777777-7).'),
        razonSocial: Nullable(S('Legal name (RznSocRecep).')),
        giro: Nullable(S('Line of business as written (GiroRecep, at most 40 characters).')),
        direccion: Nullable(S('Address (DirRecep).')),
        comuna: Nullable(S('Comuna (CmnaRecep).')),
        ciudad: Nullable(S('City (CiudadRecep).')),
        contacto: Nullable(S('Contact (Contacto).')),
        correo: Nullable(S('E-mail (CorreoRecep).')),
        extranjero: Nullable(
          Type.Object(
            {
              nacionalidad: Nullable(S('Nationality, Aduana country code (Nacionalidad).')),
              numeroId: Nullable(S('Foreign tax id or passport (NumId).')),
            },
            { description: 'Exports: the foreign receptor (Extranjero).' },
          ),
        ),
      },
      { description: 'The recipient as written in the document (RUT in SII form, text after the text policy).' },
    ),
    detalle: Type.Array(
      Type.Object(
        {
          nombre: S('Item name (NmbItem).'),
          cantidad: Nullable(N('Quantity (QtyItem).')),
          precioUnitario: Nullable(N('Unit price (PrcItem).')),
          montoItem: N('Line amount (MontoItem).'),
          exento: B(`Exempt line (IndExe 1), resolved: true on every line of ${ALL_EXEMPT}.`),
          indExe: Nullable(I('IndExe as written: 1–6, null on taxed lines.')),
          unidad: Nullable(S('Unit of measure (UnmdItem).')),
          descripcion: Nullable(S('Description (DscItem).')),
          codigos: Type.Array(
            Type.Object({ tipo: S('Coding (TpoCodigo).'), valor: S('Code (VlrCodigo), as text.') }, { description: 'One item code.' }),
            { description: 'Item codes (CdgItem).' },
          ),
          descuentoPct: Nullable(N('Line discount in percent (DescuentoPct).')),
          descuentoMonto: Nullable(N('Line discount amount (DescuentoMonto), computed from the percentage when only that was given.')),
          recargoPct: Nullable(N('Line surcharge in percent (RecargoPct).')),
          recargoMonto: Nullable(N('Line surcharge amount (RecargoMonto), computed from the percentage when only that was given.')),
          impuestoAdicional: Type.Array(Type.Integer(), { description: 'Additional tax or retention codes of the line (CodImpAdic).' }),
          retenedor: B('The issuer withholds as retention agent on this line (Retenedor/IndAgente R).'),
          tipoDocLiquidado: Nullable(S('43: type of the liquidated document (TpoDocLiq).')),
        },
        { description: 'One line (Detalle).' },
      ),
      { description: 'The lines as written in the document.' },
    ),
    referencias: Type.Array(
      Type.Object(
        {
          tipoDocRef: S('Type of the referenced document (TpoDocRef).'),
          folioRef: S('Its folio (FolioRef).'),
          fechaRef: S('Its date (FchRef), YYYY-MM-DD.'),
          codRef: Nullable(I('1 anula, 2 corrige texto, 3 corrige montos (CodRef).')),
          razonRef: Nullable(S('Reason (RazonRef).')),
          indGlobal: B('Covers every document of that type (IndGlobal 1).'),
          rutOtro: Nullable(S('RUT of the other issuer (RUTOtr), SII form.')),
        },
        { description: 'One reference (Referencia).' },
      ),
      { description: 'References to other documents (Referencia).' },
    ),
    formaPago: Nullable(I('1 contado, 2 crédito, 3 sin costo (FmaPago).')),
    emisor: Type.Object(
      {
        telefono: Nullable(S('Issuer phone (Telefono).')),
        correo: Nullable(S('Issuer e-mail (CorreoEmisor).')),
        sucursal: Nullable(S('Branch name (Sucursal).')),
        codigoSucursal: Nullable(I("The SII's branch code (CdgSIISucur).")),
        vendedor: Nullable(S('Seller code (CdgVendedor).')),
        unidadSii: Nullable(Type.String({ description: "The SII office printed on the document; null: the issuer's city." })),
      },
      {
        description:
          "Issuer data of this document beyond the tenant's identity (RUT, razón social, giro, address): the tenant's `emisor` as it was at issuance, with the document's overrides.",
      },
    ),
    indServicio: Nullable(I('Service indicator (IndServicio).')),
    indTraslado: Nullable(I('Guías 52: kind of transfer (IndTraslado).')),
    tipoDespacho: Nullable(I('Guías 52: who dispatches (TipoDespacho).')),
    montoBruto: B('Line prices include IVA (MntBruto 1).'),
    indMontoNeto: B('Boletas: line prices are net (IndMntNeto 2).'),
    fechaVencimiento: Nullable(S('Due date (FchVenc), YYYY-MM-DD.')),
    medioPago: Nullable(S('Means of payment (MedioPago): CH, CF, LT, EF, PE, TC or OT.')),
    terminosPago: Nullable(S('Payment terms (TermPagoGlosa).')),
    terminosPagoDias: Nullable(I('Payment term in days (TermPagoDias).')),
    pagos: Type.Array(
      Type.Object(
        {
          fecha: S('Payment date (FchPago), YYYY-MM-DD.'),
          monto: I('Amount (MntPago).'),
          glosa: Nullable(S('Text (GlosaPagos).')),
        },
        { description: 'One payment (MntPagos).' },
      ),
      { description: 'Payment schedule (MntPagos).' },
    ),
    descuentosGlobales: Type.Array(
      Type.Object(
        {
          tipo: S('descuento or recargo (TpoMov).'),
          valor: N('Percent or amount as given (ValorDR).'),
          unidad: S('% or $ (TpoValor).'),
          glosa: Nullable(S('Text (GlosaDR).')),
          exento: B('Applies to the exempt lines (IndExeDR 1).'),
          monto: Type.Number({ description: 'What it amounts to.' }),
        },
        { description: 'One global discount or surcharge (DscRcgGlobal).' },
      ),
      { description: 'Global discounts and surcharges (DscRcgGlobal).' },
    ),
    transporte: Nullable(Type.Object({}, { additionalProperties: true, description: 'Transport data as given (Transporte).' })),
    exportacion: Nullable(
      Type.Object({}, { additionalProperties: true, description: 'Exports: currency, other currency and customs data as given.' }),
    ),
    comisiones: Type.Array(Type.Object({}, { additionalProperties: true, description: 'One commission as given.' }), {
      description: '43: commissions and other charges (Comisiones).',
    }),
    montoNeto: N('Net taxed amount (MntNeto), after global discounts and surcharges.'),
    montoExento: N('Exempt amount (MntExe).'),
    iva: N('IVA, 19 % of montoNeto (IVA).'),
    impuestos: Type.Array(
      Type.Object(
        { tipo: I('Tax code (TipoImp).'), tasa: N('Rate in percent (TasaImp).'), monto: N('Amount (MontoImp).') },
        { description: 'One additional tax or retention.' },
      ),
      {
        description: 'Each additional tax or retention (ImptoReten): code, rate and amount.',
      },
    ),
    ivaRetenido: Type.Number({ description: 'IVA withheld by the buyer (retention codes).' }),
    ivaNoRetenido: N('IVA not withheld (IVANoRet), when some was withheld.'),
    montoNoFacturable: N('Non-billable amount (MontoNF): Σ indExe 2 − Σ indExe 6; not in the total.'),
    otraMoneda: Nullable(
      Type.Object(
        {
          moneda: S('The other currency (TpoMoneda).'),
          tipoCambio: N('Exchange rate (TpoCambio).'),
          montoExento: N('Exempt amount in that currency (MntExeOtrMnda).'),
          montoTotal: N('Total in that currency (MntTotOtrMnda).'),
        },
        { description: 'Exports: the totals in the other currency (OtraMoneda).' },
      ),
    ),
    montoTotal: N('Total (MntTotal), in pesos or the export currency.'),
    trackId: Nullable(S("The SII's track id of the envelope the document travelled in, once uploaded.")),
    sii: SiiSchema,
    createdAt: Timestamp('When the document was created.'),
    updatedAt: Timestamp('Last state change.'),
  },
  { $id: 'Dte', title: 'Dte' },
);

export const DteStatusSchema = Type.Object(
  {
    id: Uuid(),
    livemode: Livemode(),
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
    livemode: Livemode(),
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
        description: `The cedible copy, with the acuse de recibo (Ley 19.983): only for ${listCodes(typesWhere((t) => t.cedible !== null))} (others: 422 not_cedible).`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const DteParams = Type.Object({ dteId: Type.String({ maxLength: 64, description: 'DTE id' }) }, { additionalProperties: false });

/** POST …/dte/{dteId}/deliveries (docs/exchange.md): where to send the document again. */
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
