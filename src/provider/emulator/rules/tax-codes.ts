/**
 * Additional taxes and retentions (TipoImp / CodImpAdic) as the format document's table lists them
 * [SII-FORMATO §4 "Codificación tipos de impuestos y recargos"; the code list of SiiTypes_v10.xsd
 * `ImpAdicDTEType`]. Our own reading of the SII's table, never the engine's (src/dte): the
 * emulator exists to catch the engine's mistakes.
 *
 * - `additional` taxes add to MntTotal, `retention`s subtract [F §A field 124: "+ Impuestos
 *   Adicionales + Impuestos Específicos + Iva Margen Comercialización + IVA Anticipado … − IVA
 *   Retenido productos"].
 * - `rate` (percent) is given only where MontoImp = round(rate × Σ MontoItem of the lines with the
 *   code) [F §A field 117 a)]; specific taxes (diesel, gasolina, gas), margen de comercialización
 *   and faenamiento (on Monto base faenamiento, b)) are outside that rule, so their amount is not
 *   judged.
 * - `usual`: the table says "Normalmente X % retención" (partial retentions of legumbres, ganado,
 *   madera, trigo, arroz, hidrobiológicas): the declared TasaImp is taken, never refused.
 * - Total retentions ("total del IVA", "Retención Total", "Retención del 100% del IVA", and the
 *   three-digit "código cambio de sujeto en retención total") retain the IVA rate, 19 % [REF §7].
 * - Codes missing here (53 retención suplementeros, whose base is the public price; 54, 55, in the
 *   schema but not in the table) are unknown: a document carrying them gets no total finding.
 */
export type TaxKind = 'additional' | 'retention';

export interface TaxCode {
  kind: TaxKind;
  rate?: string;
  usual?: boolean;
}

const add = (rate?: string): TaxCode => (rate === undefined ? { kind: 'additional' } : { kind: 'additional', rate });
const ret = (rate?: string, usual = false): TaxCode => ({ kind: 'retention', ...(rate === undefined ? {} : { rate }), usual });
const IVA = '19';

export const TAX_CODES: Readonly<Record<string, TaxCode>> = {
  '14': add(), // IVA de margen de comercialización (on MntMargenCom)
  '15': ret(IVA), // IVA retenido total: "suma de retenciones con tasa de IVA"
  '16': ret(), // IVA retenido parcial (schema only; no rate in the table)
  '17': add(), // IVA anticipado faenamiento carne: 5 % of Monto base faenamiento
  '18': add('5'), // IVA anticipado carne
  '19': add('12'), // IVA anticipado harina
  '23': add('15'), // Art. 37 a, b, c: oro, joyas, pieles
  '24': add('31.5'), // Art. 42 b: licores, piscos, whisky
  '25': add('20.5'), // Art. 42 c: vinos
  '26': add('20.5'), // Art. 42 c: cervezas y bebidas alcohólicas
  '27': add('10'), // Art. 42 a: bebidas analcohólicas y minerales
  '271': add('18'), // Art. 42 a inciso 2°: ditto, elevado contenido de azúcares
  '28': add(), // específico diesel (UTM/m3)
  '30': ret('10', true), // legumbres
  '301': ret(IVA),
  '31': ret(IVA), // silvestres: total del IVA
  '32': ret('8', true), // ganado
  '321': ret(IVA),
  '33': ret('8', true), // madera
  '331': ret(IVA),
  '34': ret('4', true), // trigo
  '341': ret(IVA),
  '35': add(), // específico gasolina (UTM/m3)
  '36': ret('10', true), // arroz
  '361': ret(IVA),
  '37': ret('10', true), // hidrobiológicas
  '371': ret(IVA),
  '38': ret(IVA), // chatarra: total del IVA
  '39': ret(IVA), // PPA: total del IVA
  '40': ret(), // IVA retenido opcional (schema only)
  '41': ret(IVA), // construcción: "se retiene el total del IVA"
  '44': add('15'), // Art. 37 e, h, i, l: alfombras, casas rodantes, caviar, armas
  '45': add('50'), // Art. 37 j: pirotecnia
  '46': ret(IVA), // oro: "retención del 100% del IVA"
  '47': ret(IVA), // cartones: retención total
  '48': ret('14'), // frambuesas: "Retención 14%"
  '481': ret(IVA),
  '49': ret('0'), // factura de compra sin retención: "0% de retención"
  '50': add(), // IVA de margen de comercialización de instrumentos de prepago
  '51': add(), // gas natural comprimido (UTM/KM3)
  '52': add(), // gas licuado de petróleo (UTM/M3)
};
