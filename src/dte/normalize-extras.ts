import { DteEngineError } from './errors.ts';
import { familyCodes } from './catalogue.ts';
import { cleanText } from './text-policy.ts';
import { MAX_COMISIONES, MAX_DESCUENTOS_GLOBALES, MAX_LENGTH, MAX_PAGOS } from './limits.ts';
import { checkSiiDate } from './dates.ts';
import { toSiiRut } from './rut.ts';
import { decimalFromNumber, formatDecimal } from './decimal.ts';
import { percentText } from './normalize-lines.ts';
import { comisionIva, type Totals } from './amounts.ts';
import { aduanaCode, type AduanaTable } from './aduana/aduana.ts';
import type { AduanaInput, ComisionInput, DescuentoGlobalInput, ExportacionInput, PagoInput, TransporteInput } from './types.ts';

/**
 * The document-level parts of docs/decisions.md §11 besides lines and references: global discounts,
 * payments, transport, export data and commissions, cleaned and in SII form. Codes and limits
 * follow DTE_v10.xsd (`Exportaciones`, `Liquidacion`, `Transporte/Aduana`).
 */

export interface NormalizedGlobal {
  tipo: 'D' | 'R';
  unidad: '%' | '$';
  /** ValorDR as written. */
  valor: string;
  glosa?: string | undefined;
  exento: boolean;
  /** What it amounts to. */
  monto: number;
}

export function normalizeGlobals(input: readonly DescuentoGlobalInput[] | undefined, totals: Totals): NormalizedGlobal[] {
  const list = input ?? [];
  if (list.length > MAX_DESCUENTOS_GLOBALES)
    throw new DteEngineError('invalid_field', `descuentosGlobales takes at most ${MAX_DESCUENTOS_GLOBALES} entries`, 'descuentosGlobales');
  return list.map((g, i) => {
    const p = `descuentosGlobales[${i}]`;
    if (g.tipo !== 'descuento' && g.tipo !== 'recargo')
      throw new DteEngineError('invalid_field', `${p}.tipo must be "descuento" or "recargo"`, `${p}.tipo`);
    if (g.unidad !== '%' && g.unidad !== '$') throw new DteEngineError('invalid_field', `${p}.unidad must be "%" or "$"`, `${p}.unidad`);
    const valor = g.unidad === '%' ? percentText(g.valor, `${p}.valor`) : formatDecimal(decimalFromNumber(g.valor, `${p}.valor`));
    if (valor === undefined || Number(valor) <= 0) throw new DteEngineError('invalid_number', `${p}.valor must be above 0`, `${p}.valor`);
    return {
      tipo: g.tipo === 'descuento' ? 'D' : 'R',
      unidad: g.unidad,
      valor,
      glosa: cleanText(g.glosa, { param: `${p}.glosa`, maxLength: MAX_LENGTH.glosaDr }),
      exento: g.exento === true,
      monto: totals.globales[i] ?? 0,
    };
  });
}

export interface NormalizedPago {
  fecha: string;
  monto: number;
  glosa?: string | undefined;
}

export function normalizePagos(input: readonly PagoInput[] | undefined): NormalizedPago[] {
  const list = input ?? [];
  if (list.length > MAX_PAGOS) throw new DteEngineError('invalid_field', `pagos takes at most ${MAX_PAGOS} entries`, 'pagos');
  return list.map((x, i) => {
    const p = `pagos[${i}]`;
    if (!Number.isSafeInteger(x.monto) || x.monto < 0)
      throw new DteEngineError('invalid_number', `${p}.monto must be a whole number of pesos, 0 or more`, `${p}.monto`);
    return {
      fecha: checkSiiDate(x.fecha, `${p}.fecha`),
      monto: x.monto,
      glosa: cleanText(x.glosa, { param: `${p}.glosa`, maxLength: MAX_LENGTH.glosaPago }),
    };
  });
}

export interface NormalizedTransporte {
  patente?: string | undefined;
  rutTransportista?: string | undefined;
  chofer?: { rut: string; nombre: string } | undefined;
  direccion?: string | undefined;
  comuna?: string | undefined;
  ciudad?: string | undefined;
}

export function normalizeTransporte(t: TransporteInput | undefined): NormalizedTransporte | undefined {
  if (!t) return undefined;
  if ((t.rutChofer === undefined) !== (t.nombreChofer === undefined)) {
    throw new DteEngineError(
      'required_field',
      'transporte.rutChofer and transporte.nombreChofer go together (Chofer)',
      'transporte.rutChofer',
    );
  }
  return {
    patente: cleanText(t.patente, { param: 'transporte.patente', maxLength: MAX_LENGTH.patente }),
    rutTransportista: t.rutTransportista === undefined ? undefined : toSiiRut(t.rutTransportista, 'transporte.rutTransportista'),
    chofer:
      t.rutChofer === undefined
        ? undefined
        : {
            rut: toSiiRut(t.rutChofer, 'transporte.rutChofer'),
            nombre: cleanText(t.nombreChofer, { param: 'transporte.nombreChofer', maxLength: MAX_LENGTH.nombreChofer, required: true }),
          },
    direccion: cleanText(t.direccion, { param: 'transporte.direccion', maxLength: MAX_LENGTH.direccion }),
    comuna: cleanText(t.comuna, { param: 'transporte.comuna', maxLength: MAX_LENGTH.comuna }),
    ciudad: cleanText(t.ciudad, { param: 'transporte.ciudad', maxLength: MAX_LENGTH.ciudad }),
  };
}

/** TipMonType (SiiTypes_v10.xsd). */
export const CURRENCIES = [
  'BOLIVAR', 'BOLIVIANO', 'CHELIN', 'CORONA DIN', 'CORONA NOR', 'CORONA SC', 'CRUZEIRO REAL', 'DIRHAM', 'DOLAR AUST',
  'DOLAR CAN', 'DOLAR HK', 'DOLAR NZ', 'DOLAR SIN', 'DOLAR TAI', 'DOLAR USA', 'DRACMA', 'ESCUDO', 'EURO', 'FLORIN',
  'FRANCO BEL', 'FRANCO FR', 'FRANCO SZ', 'GUARANI', 'LIBRA EST', 'LIRA', 'MARCO AL', 'MARCO FIN', 'NUEVO SOL',
  'OTRAS MONEDAS', 'PESETA', 'PESO', 'PESO CL', 'PESO COL', 'PESO MEX', 'PESO URUG', 'RAND', 'RENMINBI', 'RUPIA', 'SUCRE', 'YEN',
] as const; // prettier-ignore

function currency(v: string | undefined, param: string): string {
  if (typeof v !== 'string' || !(CURRENCIES as readonly string[]).includes(v)) {
    throw new DteEngineError(
      'invalid_currency',
      `${param} must be one of the SII's currency names (TipMonType), e.g. "DOLAR USA", "EURO", "PESO CL"`,
      param,
    );
  }
  return v;
}

const intCode = (v: number | undefined, digits: number, param: string): number | undefined => {
  if (v === undefined) return undefined;
  if (!Number.isInteger(v) || v < 1 || v >= 10 ** digits)
    throw new DteEngineError('invalid_field', `${param} must be a code of up to ${digits} digits`, param);
  return v;
};

/**
 * A code of one of the Aduana's tables, given as its code or as its name in the table ("FOB",
 * "A FIRME", "MARITIMA, FLUVIAL Y LACUSTRE", "CONTENEDOR REFRIGERADO"; without regard to case or
 * accents: src/dte/aduana/README.md), as the SII's test sets write them and a person would.
 */
const namedCode = (v: number | string | undefined, table: AduanaTable, digits: number, param: string): number | undefined => {
  if (typeof v !== 'string') return intCode(v, digits, param);
  const code = aduanaCode(table, v);
  if (code === undefined)
    throw new DteEngineError(
      'invalid_field',
      `${param} '${v.slice(0, 60)}' is not a name in the Aduana's ${table.replace(/_/g, ' ')} table: give its code, or its name as the table writes it (docs/dte.md, "Exports")`,
      param,
    );
  return intCode(code, digits, param);
};

const decText = (v: number | undefined, fraction: number, param: string): string | undefined => {
  if (v === undefined) return undefined;
  const d = decimalFromNumber(v, param);
  if (d.scale > fraction) throw new DteEngineError('invalid_number', `${param} may have at most ${fraction} decimals`, param);
  return formatDecimal(d);
};

export interface NormalizedExportacion {
  moneda: string;
  otraMoneda?: { moneda: string; tipoCambio: string } | undefined;
  formaPago?: number | undefined;
  aduana?: NormalizedAduana | undefined;
}

export interface NormalizedAduana {
  /** Scalar fields by their API name (AduanaInput), cleaned; parts.ts maps them to the XSD's elements. */
  fields: Record<string, string | number | undefined>;
  bultos: { tipo: number; cantidad: number; marcas?: string; idContainer?: string; sello?: string; emisorSello?: string }[];
}

function normalizeAduana(a: AduanaInput | undefined): NormalizedAduana | undefined {
  if (!a) return undefined;
  const p = 'exportacion.aduana';
  const txt = (v: string | undefined, name: string, max: number) => cleanText(v, { param: `${p}.${name}`, maxLength: max });
  return {
    fields: {
      modalidadVenta: namedCode(a.modalidadVenta, 'modalidades_venta', 2, `${p}.modalidadVenta`),
      clausulaVenta: namedCode(a.clausulaVenta, 'clausulas_venta', 2, `${p}.clausulaVenta`),
      totalClausulaVenta: decText(a.totalClausulaVenta, 2, `${p}.totalClausulaVenta`),
      viaTransporte: namedCode(a.viaTransporte, 'transportes', 2, `${p}.viaTransporte`),
      nombreTransporte: txt(a.nombreTransporte, 'nombreTransporte', MAX_LENGTH.aduanaTexto),
      rutCompaniaTransporte:
        a.rutCompaniaTransporte === undefined ? undefined : toSiiRut(a.rutCompaniaTransporte, `${p}.rutCompaniaTransporte`),
      nombreCompaniaTransporte: txt(a.nombreCompaniaTransporte, 'nombreCompaniaTransporte', MAX_LENGTH.aduanaTexto),
      booking: txt(a.booking, 'booking', MAX_LENGTH.aduanaId),
      operador: txt(a.operador, 'operador', MAX_LENGTH.aduanaId),
      puertoEmbarque: namedCode(a.puertoEmbarque, 'puertos', 4, `${p}.puertoEmbarque`),
      puertoDesembarque: namedCode(a.puertoDesembarque, 'puertos', 4, `${p}.puertoDesembarque`),
      tara: intCode(a.tara, 7, `${p}.tara`),
      unidadTara: namedCode(a.unidadTara, 'unidades', 2, `${p}.unidadTara`),
      pesoBruto: decText(a.pesoBruto, 2, `${p}.pesoBruto`),
      unidadPesoBruto: namedCode(a.unidadPesoBruto, 'unidades', 2, `${p}.unidadPesoBruto`),
      pesoNeto: decText(a.pesoNeto, 2, `${p}.pesoNeto`),
      unidadPesoNeto: namedCode(a.unidadPesoNeto, 'unidades', 2, `${p}.unidadPesoNeto`),
      totalItems: intCode(a.totalItems, 18, `${p}.totalItems`),
      totalBultos: intCode(a.totalBultos, 18, `${p}.totalBultos`),
      flete: decText(a.flete, 4, `${p}.flete`),
      seguro: decText(a.seguro, 4, `${p}.seguro`),
      paisReceptor: namedCode(a.paisReceptor, 'paises', 3, `${p}.paisReceptor`),
      paisDestino: namedCode(a.paisDestino, 'paises', 3, `${p}.paisDestino`),
    },
    bultos: (a.bultos ?? []).slice(0, 10).map((b, i) => {
      const q = `${p}.bultos[${i}]`;
      const out: NormalizedAduana['bultos'][number] = {
        tipo: namedCode(b.tipo, 'tipos_bulto', 3, `${q}.tipo`)!,
        cantidad: intCode(b.cantidad, 10, `${q}.cantidad`)!,
      };
      const marcas = cleanText(b.marcas, { param: `${q}.marcas`, maxLength: MAX_LENGTH.marcas });
      const idContainer = cleanText(b.idContainer, { param: `${q}.idContainer`, maxLength: MAX_LENGTH.idContainer });
      const sello = cleanText(b.sello, { param: `${q}.sello`, maxLength: MAX_LENGTH.sello });
      const emisorSello = cleanText(b.emisorSello, { param: `${q}.emisorSello`, maxLength: MAX_LENGTH.emisorSello });
      if (marcas) out.marcas = marcas;
      if (idContainer) out.idContainer = idContainer;
      if (sello) out.sello = sello;
      if (emisorSello) out.emisorSello = emisorSello;
      return out;
    }),
  };
}

export function normalizeExportacion(e: ExportacionInput | undefined, isExport: boolean): NormalizedExportacion | undefined {
  if (!isExport) {
    if (e)
      throw new DteEngineError('invalid_field', `exportacion is only for export documents (${familyCodes('exportacion')})`, 'exportacion');
    return undefined;
  }
  if (!e) throw new DteEngineError('required_field', 'exportacion (with its moneda) is required on export documents', 'exportacion');
  if ((e.aduana?.bultos?.length ?? 0) > 10)
    throw new DteEngineError('invalid_field', 'exportacion.aduana.bultos takes at most 10 entries', 'exportacion.aduana.bultos');
  const otra = e.otraMoneda;
  return {
    moneda: currency(e.moneda, 'exportacion.moneda'),
    otraMoneda: otra
      ? {
          moneda: currency(otra.moneda, 'exportacion.otraMoneda.moneda'),
          tipoCambio: (() => {
            const t = decText(otra.tipoCambio, 4, 'exportacion.otraMoneda.tipoCambio');
            if (t === undefined || Number(t) <= 0 || Number(t) > 999999.9999)
              throw new DteEngineError(
                'invalid_number',
                'exportacion.otraMoneda.tipoCambio must be above 0 and below 1,000,000, up to 4 decimals',
                'exportacion.otraMoneda.tipoCambio',
              );
            return t;
          })(),
        }
      : undefined,
    formaPago: namedCode(e.formaPago, 'formas_pago', 2, 'exportacion.formaPago'),
    aduana: normalizeAduana(e.aduana),
  };
}

export interface NormalizedComision {
  tipo: 'C' | 'O';
  glosa: string;
  tasa?: string | undefined;
  montoNeto: number;
  montoExento: number;
  iva: number;
}

export function normalizeComisiones(input: readonly ComisionInput[] | undefined, isLiquidacion: boolean): NormalizedComision[] {
  const list = input ?? [];
  if (!isLiquidacion) {
    if (list.length > 0)
      throw new DteEngineError(
        'invalid_field',
        `comisiones are only for liquidaciones-factura (${familyCodes('liquidacion')})`,
        'comisiones',
      );
    return [];
  }
  // The format document calls the area mandatory on a 43, but its schema makes it optional and the
  // SII's own test set asks for liquidaciones without commissions (docs/certification.md): none is allowed.
  if (list.length > MAX_COMISIONES)
    throw new DteEngineError('invalid_field', `comisiones takes at most ${MAX_COMISIONES} entries`, 'comisiones');
  return list.map((c, i) => {
    const p = `comisiones[${i}]`;
    if (c.tipo !== 'comision' && c.tipo !== 'otro')
      throw new DteEngineError('invalid_field', `${p}.tipo must be "comision" or "otro"`, `${p}.tipo`);
    for (const k of ['montoNeto', 'montoExento'] as const) {
      const v = c[k];
      // Below zero too: a commission returned with a liquidated liquidación (format document, 22/09/2005 4).
      if (v !== undefined && !Number.isSafeInteger(v))
        throw new DteEngineError('invalid_number', `${p}.${k} must be a whole number of pesos`, `${p}.${k}`);
    }
    const montoExento = c.montoExento ?? 0;
    return {
      tipo: c.tipo === 'comision' ? 'C' : 'O',
      glosa: cleanText(c.glosa, { param: `${p}.glosa`, maxLength: MAX_LENGTH.glosaComision, required: true }),
      tasa: percentText(c.tasa, `${p}.tasa`),
      montoNeto: c.montoNeto,
      montoExento,
      iva: comisionIva(c.montoNeto, `${p}.montoNeto`),
    };
  });
}
