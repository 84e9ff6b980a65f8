import { DteEngineError } from './errors.ts';
import { cleanText } from './text-policy.ts';
import { MAX_FRACTION_DIGITS_QTY_PRICE, MAX_INTEGER_DIGITS_QTY_PRICE, MAX_LENGTH } from './limits.ts';
import { decimalFromNumber, formatDecimal, integerDigits, isZero } from './decimal.ts';
import { lineAmountGiven, lineIndExe, taxCodesOf, type Totals } from './amounts.ts';
import { TAX_CODES, UNSUPPORTED_TAX_CODES } from './tax-codes.ts';
import type { DetalleInput, TipoDte } from './types.ts';
import type { DocumentStrategy } from './strategies/strategy.ts';

/** One `<Detalle>` line, cleaned and in SII form (see normalize.ts). */
export interface NormalizedLine {
  nombre: string;
  descripcion?: string | undefined;
  unidad?: string | undefined;
  /** Decimal text for QtyItem/PrcItem, omitted when zero or absent (their schema minimum is 0.000001). */
  cantidad?: string | undefined;
  precio?: string | undefined;
  /** IndExe as written (1 exempt, 2/6 no facturable, …), undefined for a taxed line. */
  indExe?: number | undefined;
  exento: boolean;
  montoItem: number;
  codigos: { tipo: string; valor: string }[];
  descuentoPct?: string | undefined;
  descuentoMonto?: number | undefined;
  recargoPct?: string | undefined;
  recargoMonto?: number | undefined;
  /** CodImpAdic codes (0–2). */
  impuestos: number[];
  retenedor: boolean;
  /** 43: TpoDocLiq. */
  tipoDocLiquidado?: string | undefined;
}

const MAX_CODIGOS = 5;

function qtyOrPrice(value: number | undefined, param: string): string | undefined {
  if (value === undefined) return undefined;
  const dec = decimalFromNumber(value, param);
  if (dec.scale > MAX_FRACTION_DIGITS_QTY_PRICE) {
    throw new DteEngineError('invalid_number', `${param} may have at most ${MAX_FRACTION_DIGITS_QTY_PRICE} decimals`, param);
  }
  if (integerDigits(dec) > MAX_INTEGER_DIGITS_QTY_PRICE) {
    throw new DteEngineError('invalid_number', `${param} may have at most ${MAX_INTEGER_DIGITS_QTY_PRICE} integer digits`, param);
  }
  return isZero(dec) ? undefined : formatDecimal(dec);
}

/** A percentage as PctType writes it (0.01–999.99, two decimals). */
export function percentText(value: number | undefined, param: string, max = 100): string | undefined {
  if (value === undefined) return undefined;
  const dec = decimalFromNumber(value, param);
  if (dec.scale > 2 || value <= 0 || value > max) {
    throw new DteEngineError('invalid_number', `${param} must be a percentage above 0 and at most ${max}, with up to 2 decimals`, param);
  }
  return formatDecimal(dec);
}

function taxCodes(tipoDte: TipoDte, d: DetalleInput, p: string): number[] {
  const codes = taxCodesOf(d);
  if (codes.length === 0) return codes;
  if (codes.length > 2) throw new DteEngineError('invalid_field', `${p}.impuestoAdicional takes at most 2 codes`, `${p}.impuestoAdicional`);
  for (const c of codes) {
    const t = TAX_CODES.get(c);
    if (!t) {
      const why = UNSUPPORTED_TAX_CODES.includes(c)
        ? 'its amount is not a rate on the line (specific taxes per m³, margins), which this service does not compute yet'
        : 'it is not a code of the SII table';
      throw new DteEngineError(
        'unsupported_additional_tax',
        `${p}.impuestoAdicional ${c} cannot be used: ${why}. Supported codes: ${[...TAX_CODES.keys()].join(', ')}`,
        `${p}.impuestoAdicional`,
      );
    }
    // `documentos` comes from the catalogue's tax groups, which no boleta has.
    if (!t.documentos.includes(tipoDte)) {
      throw new DteEngineError(
        'additional_tax_not_allowed',
        `${p}.impuestoAdicional ${c} (${t.nombre}) does not apply to document type ${tipoDte}; the SII allows it on ${t.documentos.join(', ')}`,
        `${p}.impuestoAdicional`,
      );
    }
  }
  if (new Set(codes).size !== codes.length) {
    throw new DteEngineError('invalid_field', `${p}.impuestoAdicional repeats a code`, `${p}.impuestoAdicional`);
  }
  return codes;
}

export function normalizeLines(
  tipoDte: TipoDte,
  strategy: DocumentStrategy,
  input: readonly DetalleInput[],
  totals: Totals,
  opts: { pricesOptional: boolean },
): NormalizedLine[] {
  return input.map((d, i) => {
    const p = `detalle[${i}]`;
    // A liquidación-factura's line may give its montoItem instead of a price (amounts.ts, lineAmountGiven).
    if ((d.cantidad === undefined || d.precioUnitario === undefined) && !opts.pricesOptional && !lineAmountGiven(tipoDte, d)) {
      const missing = d.cantidad === undefined ? 'cantidad' : 'precioUnitario';
      throw new DteEngineError(
        'required_field',
        `${p}.${missing} is required (only a guía 52 that moves goods without a sale may leave out prices, and a liquidación-factura line that gives its montoItem)`,
        `${p}.${missing}`,
      );
    }
    if (d.montoItem !== undefined && d.montoItem < 0 && !lineAmountGiven(tipoDte, d))
      throw new DteEngineError(
        'negative_line_amount',
        `${p}.montoItem is below zero: only a liquidación-factura line that gives its montoItem without a price may be`,
        `${p}.montoItem`,
      );
    if (d.indExe !== undefined && !(Number.isInteger(d.indExe) && d.indExe >= 1 && d.indExe <= 6)) {
      throw new DteEngineError('invalid_field', `${p}.indExe must be 1 to 6`, `${p}.indExe`);
    }
    if (d.exento === true && d.indExe !== undefined && d.indExe !== 1) {
      throw new DteEngineError('invalid_field', `${p}: exento true is indExe 1; give one or the other`, `${p}.indExe`);
    }
    strategy.checkLineIndExe(d, p);
    const codigos = (d.codigos ?? []).map((c, j) => ({
      tipo: cleanText(c?.tipo, { param: `${p}.codigos[${j}].tipo`, maxLength: MAX_LENGTH.tipoCodigo, required: true }),
      valor: cleanText(c?.valor === undefined ? undefined : String(c.valor), {
        param: `${p}.codigos[${j}].valor`,
        maxLength: MAX_LENGTH.valorCodigo,
        required: true,
      }),
    }));
    if (codigos.length > MAX_CODIGOS)
      throw new DteEngineError('invalid_field', `${p}.codigos takes at most ${MAX_CODIGOS} codes`, `${p}.codigos`);
    const impuestos = taxCodes(tipoDte, d, p);
    const la = totals.lineAmounts[i]!;
    if (d.montoItem !== undefined && d.montoItem !== la.montoItem) {
      throw new DteEngineError('amount_mismatch', `${p}.montoItem should be ${la.montoItem}, got ${d.montoItem}`, `${p}.montoItem`, {
        expected: la.montoItem,
        actual: d.montoItem,
      });
    }
    strategy.checkLineRetenedor(d, p);
    const tipoDocLiquidado = strategy.tipoDocLiquidado(
      d.tipoDocLiquidado === undefined
        ? undefined
        : cleanText(String(d.tipoDocLiquidado), { param: `${p}.tipoDocLiquidado`, maxLength: 3, required: true }),
      p,
    );
    const indExe = lineIndExe(tipoDte, d);
    return {
      nombre: cleanText(d.nombre, { param: `${p}.nombre`, maxLength: MAX_LENGTH.nombreItem, required: true }),
      descripcion: cleanText(d.descripcion, { param: `${p}.descripcion`, maxLength: MAX_LENGTH.descripcionItem }),
      unidad: cleanText(d.unidad, { param: `${p}.unidad`, maxLength: MAX_LENGTH.unidad }),
      cantidad: qtyOrPrice(d.cantidad, `${p}.cantidad`),
      precio: qtyOrPrice(d.precioUnitario, `${p}.precioUnitario`),
      indExe,
      exento: indExe === 1,
      montoItem: la.montoItem,
      codigos,
      descuentoPct: percentText(d.descuentoPct, `${p}.descuentoPct`),
      descuentoMonto: la.descuentoMonto,
      recargoPct: percentText(d.recargoPct, `${p}.recargoPct`, strategy.maxRecargoPct),
      recargoMonto: la.recargoMonto,
      impuestos,
      retenedor: d.retenedor === true,
      tipoDocLiquidado,
    };
  });
}
