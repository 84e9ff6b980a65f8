/**
 * The project's own sample documents, one per feature of the document model (docs/dte.md): every
 * type, line and global discounts, additional taxes and retentions, guías, notes that cancel or
 * correct, exports with another currency. Each is an API request in the API's words with its totals
 * worked out by hand beside it: IVA is 19 % of the neto rounded half up; a boleta's prices include
 * IVA (neto = round(gross / 1.19), IVA = gross − neto); additional taxes are their rate over the
 * lines that carry them (src/dte/tax-codes.ts); retentions are subtracted from the total.
 *
 * Notes that cancel (codRef 1) carry the amounts of the document they cancel (docs/dte.md,
 * `reference_amount_mismatch`), so the cancelling 61 repeats the first factura's lines, the 56 the
 * 61's, and the export notes the first export's. References to folio 1 of another type point at
 * the first document of that type created here.
 */
export interface SampleCase {
  name: string;
  /** The body without `fechaEmision`, line `montoItem`s and `montoTotal` (the test adds them). */
  body: (fecha: string) => Record<string, unknown>;
  want: {
    montoNeto?: number;
    iva?: number;
    montoExento?: number;
    impuesto?: { tipo: number; tasa: number; monto: number };
    ivaNoRetenido?: number;
    montoTotal: number;
  };
}

const company = {
  rut: '77.777.777-7',
  razonSocial: 'Comercial Los Aromos SpA',
  giro: 'Venta al por mayor de artículos de ferretería',
  direccion: 'Av. Vicuña Mackenna 4820',
  comuna: 'Macul',
};
// The SII's RUT for a buyer who gives none (docs/dte.md, boletas).
const anonymous = { rut: '66.666.666-6', razonSocial: 'Sin RUT' };
const foreign = {
  rut: '55.555.555-5',
  razonSocial: 'Margaret Holloway',
  giro: 'Particular',
  direccion: '742 Evergreen Terrace, Portland, Oregon',
  ciudad: 'Portland',
  extranjero: { nacionalidad: '225' },
};
const passport = { tipoDocRef: 813, folioRef: 'P4471902' };
const cables = { nombre: 'Cable HDMI 2 m', cantidad: 120, precioUnitario: 2350 };
const hotel = { nombre: 'Alojamiento 3 noches', cantidad: 1, precioUnitario: 285, indExe: 1 };

export const SAMPLE_CASES: SampleCase[] = [
  {
    // 120 × 2350 = 282000; IVA 282000 × 0.19 = 53580; total 335580.
    name: '33 simple',
    body: () => ({ tipoDte: 33, receptor: company, detalle: [cables] }),
    want: { montoNeto: 282000, iva: 53580, montoTotal: 335580 },
  },
  {
    // Invoices a guía (the 52 below): 40 × 3990 = 159600; IVA 30324; total 189924.
    name: '33 invoicing a guía',
    body: (fecha) => ({
      tipoDte: 33,
      receptor: company,
      detalle: [{ nombre: 'Cerradura digital', cantidad: 40, precioUnitario: 3990 }],
      referencias: [{ tipoDocRef: 52, folioRef: '1', fechaRef: fecha, razonRef: 'Guía de despacho' }],
    }),
    want: { montoNeto: 159600, iva: 30324, montoTotal: 189924 },
  },
  {
    // IVA anticipado harina (19, 12 %): 1.5 TON × 310000 = 465000; IVA 88350; 12 % = 55800;
    // total 465000 + 88350 + 55800 = 609150.
    name: '33 IVA anticipado',
    body: () => ({
      tipoDte: 33,
      receptor: company,
      detalle: [
        {
          nombre: 'Harina de trigo',
          cantidad: 1.5,
          unidad: 'TON',
          precioUnitario: 310000,
          codigos: [{ tipo: 'INT1', valor: 'harina-t' }],
          impuestoAdicional: 19,
          retenedor: true,
        },
      ],
    }),
    want: { montoNeto: 465000, iva: 88350, impuesto: { tipo: 19, tasa: 12, monto: 55800 }, montoTotal: 609150 },
  },
  {
    // 250000 − 15 % (37500) = 212500; IVA 40375; total 252875.
    name: '33 global discount',
    body: () => ({
      tipoDte: 33,
      receptor: company,
      detalle: [{ nombre: 'Implementación de sistema', cantidad: 1, precioUnitario: 250000 }],
      descuentosGlobales: [{ tipo: 'descuento', valor: 15, unidad: '%' }],
    }),
    want: { montoNeto: 212500, iva: 40375, montoTotal: 252875 },
  },
  {
    // 3 × 45990 = 137970 − 12000 = 125970; IVA 23934.3 → 23934; total 149904.
    name: '33 line discount in pesos',
    body: () => ({
      tipoDte: 33,
      receptor: company,
      detalle: [{ nombre: 'Taladro percutor', cantidad: 3, precioUnitario: 45990, descuentoMonto: 12000 }],
    }),
    want: { montoNeto: 125970, iva: 23934, montoTotal: 149904 },
  },
  {
    // 2 × 18750 = 37500 − 8 % (3000) = 34500; IVA 6555; total 41055.
    name: '33 line discount in percent',
    body: () => ({
      tipoDte: 33,
      receptor: company,
      detalle: [{ nombre: 'Juego de llaves', cantidad: 2, precioUnitario: 18750, descuentoPct: 8 }],
    }),
    want: { montoNeto: 34500, iva: 6555, montoTotal: 41055 },
  },
  {
    // 12 × 1590 = 19080; IVA 3625.2 → 3625; total 22705.
    name: '33 cash, with payment terms on two lines',
    body: () => ({
      tipoDte: 33,
      receptor: company,
      formaPago: 1,
      terminosPago: 'Pago contado al retirar\nen bodega',
      detalle: [{ nombre: 'Caja de tornillos', cantidad: 12, precioUnitario: 1590 }],
    }),
    want: { montoNeto: 19080, iva: 3625, montoTotal: 22705 },
  },
  {
    // Vinos (25, 20.5 %): 6 × 5490 = 32940; IVA 6258.6 → 6259; 20.5 % = 6752.7 → 6753;
    // total 32940 + 6259 + 6753 = 45952.
    name: '33 additional tax',
    body: () => ({
      tipoDte: 33,
      receptor: company,
      detalle: [{ nombre: 'Vino tinto reserva', cantidad: 6, precioUnitario: 5490, impuestoAdicional: 25 }],
    }),
    want: { montoNeto: 32940, iva: 6259, impuesto: { tipo: 25, tasa: 20.5, monto: 6753 }, montoTotal: 45952 },
  },
  {
    // All exempt: 4 × 85000 = 340000.
    name: '34 simple',
    body: () => ({
      tipoDte: 34,
      receptor: company,
      detalle: [{ nombre: 'Curso de capacitación', cantidad: 4, precioUnitario: 85000, indExe: 1 }],
    }),
    want: { montoExento: 340000, montoTotal: 340000 },
  },
  {
    // Gross 3 × 2800 = 8400; neto 8400 / 1.19 = 7058.82 → 7059; IVA 8400 − 7059 = 1341.
    name: '39 simple',
    body: () => ({ tipoDte: 39, receptor: anonymous, detalle: [{ nombre: 'Empanada de pino', cantidad: 3, precioUnitario: 2800 }] }),
    want: { montoNeto: 7059, iva: 1341, montoTotal: 8400 },
  },
  {
    // Gross 15990 − 10 % (1599) = 14391; neto 14391 / 1.19 = 12093.28 → 12093; IVA 2298.
    name: '39 global discount',
    body: () => ({
      tipoDte: 39,
      receptor: anonymous,
      detalle: [{ nombre: 'Torta de mil hojas', cantidad: 1, precioUnitario: 15990 }],
      descuentosGlobales: [{ tipo: 'descuento', valor: 10, unidad: '%' }],
    }),
    want: { montoNeto: 12093, iva: 2298, montoTotal: 14391 },
  },
  {
    // 2 × 4500 = 9000, exempt.
    name: '41 simple',
    body: () => ({
      tipoDte: 41,
      receptor: anonymous,
      detalle: [{ nombre: 'Entrada a museo', cantidad: 2, precioUnitario: 4500, indExe: 1 }],
    }),
    want: { montoExento: 9000, montoTotal: 9000 },
  },
  {
    // 20000 − 5 % (1000) on the exempt sum = 19000.
    name: '41 global discount',
    body: () => ({
      tipoDte: 41,
      receptor: anonymous,
      detalle: [{ nombre: 'Taller de cerámica', cantidad: 1, precioUnitario: 20000, indExe: 1 }],
      descuentosGlobales: [{ tipo: 'descuento', valor: 5, unidad: '%', exento: true }],
    }),
    want: { montoExento: 19000, montoTotal: 19000 },
  },
  {
    // 62000; IVA 11780; total 73780.
    name: '46 taxed',
    body: () => ({ tipoDte: 46, receptor: company, detalle: [{ nombre: 'Cobre en desuso', cantidad: 1, precioUnitario: 62000 }] }),
    want: { montoNeto: 62000, iva: 11780, montoTotal: 73780 },
  },
  {
    name: '46 exempt',
    body: () => ({
      tipoDte: 46,
      receptor: company,
      detalle: [{ nombre: 'Leña de eucalipto', cantidad: 1, precioUnitario: 38000, indExe: 1 }],
    }),
    want: { montoExento: 38000, montoTotal: 38000 },
  },
  {
    // IVA retenido total (15, 19 %): 250000; IVA 47500, all withheld; total 250000 + 47500 − 47500.
    name: '46 all IVA withheld',
    body: () => ({
      tipoDte: 46,
      receptor: company,
      detalle: [{ nombre: 'Chatarra de fierro', cantidad: 1, precioUnitario: 250000, impuestoAdicional: 15 }],
    }),
    want: { montoNeto: 250000, iva: 47500, impuesto: { tipo: 15, tasa: 19, monto: 47500 }, montoTotal: 250000 },
  },
  {
    // IVA retenido trigo (34, 4 %): 3 × 9000 = 27000; IVA 5130; withheld 1080; not withheld
    // 5130 − 1080 = 4050; total 27000 + 5130 − 1080 = 31050.
    name: '46 part of the IVA withheld',
    body: () => ({
      tipoDte: 46,
      receptor: company,
      detalle: [
        {
          nombre: 'Trigo',
          cantidad: 3,
          unidad: 'QQ',
          precioUnitario: 9000,
          codigos: [{ tipo: 'INT1', valor: 'trigo' }],
          impuestoAdicional: 34,
        },
      ],
    }),
    want: { montoNeto: 27000, iva: 5130, impuesto: { tipo: 34, tasa: 4, monto: 1080 }, ivaNoRetenido: 4050, montoTotal: 31050 },
  },
  {
    // A sale: 25 × 4200 = 105000; IVA 19950; total 124950.
    name: '52 sale',
    body: () => ({
      tipoDte: 52,
      receptor: company,
      indTraslado: 1,
      tipoDespacho: 1,
      transporte: {
        patente: 'KJTR45',
        rutTransportista: '15.432.876-9',
        rutChofer: '12.345.678-5',
        nombreChofer: 'Juana Pérez',
        direccion: 'Camino a Melipilla 9870',
        comuna: 'Maipú',
      },
      detalle: [{ nombre: 'Saco de cemento', cantidad: 25, precioUnitario: 4200 }],
    }),
    want: { montoNeto: 105000, iva: 19950, montoTotal: 124950 },
  },
  {
    // A move between the issuer's own premises, no price: total 0.
    name: '52 internal move',
    body: () => ({
      tipoDte: 52,
      receptor: company,
      indTraslado: 5,
      transporte: { patente: 'KJTR45', direccion: 'Camino a Melipilla 9870', comuna: 'Maipú' },
      detalle: [{ nombre: 'Notebook de bodega', cantidad: 1 }],
    }),
    want: { montoTotal: 0 },
  },
  {
    // Cancels the cancelling 61 below: the same lines as it, so 335580.
    name: '56 cancelling a nota de crédito',
    body: (fecha) => ({
      tipoDte: 56,
      receptor: company,
      detalle: [cables],
      referencias: [{ tipoDocRef: 61, folioRef: '1', fechaRef: fecha, codRef: 1, razonRef: 'Anula nota de crédito' }],
    }),
    want: { montoNeto: 282000, iva: 53580, montoTotal: 335580 },
  },
  {
    // Cancels the first factura: its lines, 335580.
    name: '61 cancelling a factura',
    body: (fecha) => ({
      tipoDte: 61,
      receptor: company,
      detalle: [cables],
      referencias: [{ tipoDocRef: 33, folioRef: '1', fechaRef: fecha, codRef: 1, razonRef: 'Anula factura' }],
    }),
    want: { montoNeto: 282000, iva: 53580, montoTotal: 335580 },
  },
  {
    // Corrects a text: zero amounts.
    name: '61 correcting a text',
    body: (fecha) => ({
      tipoDte: 61,
      receptor: company,
      detalle: [{ nombre: 'Corrige giro del receptor', cantidad: 1, precioUnitario: 0 }],
      referencias: [{ tipoDocRef: 33, folioRef: '1', fechaRef: fecha, codRef: 2, razonRef: 'Corrige giro' }],
    }),
    want: { montoNeto: 0, iva: 0, montoTotal: 0 },
  },
  {
    // Corrects an amount (codRef 3): 120 × 150 = 18000; IVA 3420; total 21420.
    name: '61 correcting an amount',
    body: (fecha) => ({
      tipoDte: 61,
      receptor: company,
      detalle: [{ nombre: 'Diferencia de precio cable HDMI', cantidad: 120, precioUnitario: 150 }],
      referencias: [{ tipoDocRef: 33, folioRef: '1', fechaRef: fecha, codRef: 3, razonRef: 'Corrige precio' }],
    }),
    want: { montoNeto: 18000, iva: 3420, montoTotal: 21420 },
  },
  {
    // Hotel services to a foreign guest (indServicio 4), in US dollars: 1 × 285 = 285, exempt.
    name: '110 hotel',
    body: (fecha) => ({
      tipoDte: 110,
      indServicio: 4,
      receptor: foreign,
      exportacion: { moneda: 'DOLAR USA' },
      detalle: [hotel],
      referencias: [{ ...passport, fechaRef: fecha }],
    }),
    want: { montoExento: 285, montoTotal: 285 },
  },
  {
    // 1 × 241.5 = 241.5 US dollars, exempt (4 decimals allowed); in pesos at 950: 229425.
    name: '110 with the total in pesos',
    body: (fecha) => ({
      tipoDte: 110,
      indServicio: 4,
      receptor: foreign,
      exportacion: { moneda: 'DOLAR USA', otraMoneda: { moneda: 'PESO CL', tipoCambio: 950 } },
      detalle: [{ nombre: 'Alojamiento 2 noches y desayuno', cantidad: 1, precioUnitario: 241.5, indExe: 1 }],
      referencias: [{ ...passport, fechaRef: fecha }],
    }),
    want: { montoExento: 241.5, montoTotal: 241.5 },
  },
  {
    // Cancels the 112 below: the first export's lines, 285.
    name: '111 cancelling an export nota de crédito',
    body: (fecha) => ({
      tipoDte: 111,
      indServicio: 4,
      receptor: foreign,
      exportacion: { moneda: 'DOLAR USA' },
      detalle: [hotel],
      referencias: [
        { ...passport, fechaRef: fecha },
        { tipoDocRef: 112, folioRef: '1', fechaRef: fecha, codRef: 1, razonRef: 'Anula nota de crédito' },
      ],
    }),
    want: { montoExento: 285, montoTotal: 285 },
  },
  {
    // Cancels the first export: its lines, 285.
    name: '112 cancelling an export',
    body: (fecha) => ({
      tipoDte: 112,
      indServicio: 4,
      receptor: foreign,
      exportacion: { moneda: 'DOLAR USA' },
      detalle: [hotel],
      referencias: [
        { ...passport, fechaRef: fecha },
        { tipoDocRef: 110, folioRef: '1', fechaRef: fecha, codRef: 1, razonRef: 'Anula factura de exportación' },
      ],
    }),
    want: { montoExento: 285, montoTotal: 285 },
  },
];
