import { DteEngineError } from './errors.ts';
import { cleanText } from './text-policy.ts';
import { MAX_LENGTH } from './limits.ts';
import { toSiiRut, RUT_ANONYMOUS } from './rut.ts';
import { checkSiiDate } from './dates.ts';
import { computeTotals } from './amounts.ts';
import type { Totals } from './amounts.ts';
import { isSupportedTipoDte, SUPPORTED_TIPOS_DTE } from './types.ts';
import type { DteInput, EmisorInput, ReceptorInput, TipoDte } from './types.ts';
import { strategyFor } from './strategies/index.ts';
import type { DocumentStrategy } from './strategies/index.ts';
import { normalizeLines, type NormalizedLine } from './normalize-lines.ts';
import { normalizeReferences, type NormalizedReference } from './normalize-references.ts';
import {
  normalizeComisiones,
  normalizeExportacion,
  normalizeGlobals,
  normalizePagos,
  normalizeTransporte,
  type NormalizedComision,
  type NormalizedExportacion,
  type NormalizedGlobal,
  type NormalizedPago,
  type NormalizedTransporte,
} from './normalize-extras.ts';

/**
 * Step 1 of the pipeline: validated, cleaned, SII-formatted values, with totals computed. No
 * folio: the document is complete before a folio is spent on it (see prepare.ts). Every rule of
 * docs/decisions.md §11 that the SII checks on form is checked here, each with its own code
 * (docs/dte.md, "Error codes"), so a document the engine lets through is one the SII accepts.
 */
export interface NormalizedDocument {
  tipoDte: TipoDte;
  fechaEmision: string;
  strategy: DocumentStrategy;
  /** Same fields as the input, cleaned and in SII form; activity codes as six-digit text. */
  emisor: Omit<EmisorInput, 'acteco'> & { acteco: string[] };
  receptor: Omit<ReceptorInput, 'extranjero'> & { extranjero?: { nacionalidad?: string; numeroId?: string } | undefined };
  detalle: NormalizedLine[];
  referencias: NormalizedReference[];
  descuentosGlobales: NormalizedGlobal[];
  formaPago?: 1 | 2 | 3 | undefined;
  /** Boletas: always (default 3); other types only when given. */
  indServicio?: number | undefined;
  indTraslado?: number | undefined;
  tipoDespacho?: number | undefined;
  montoBruto: boolean;
  indMontoNeto: boolean;
  fechaVencimiento?: string | undefined;
  medioPago?: string | undefined;
  terminosPago?: string | undefined;
  terminosPagoDias?: number | undefined;
  pagos: NormalizedPago[];
  transporte?: NormalizedTransporte | undefined;
  exportacion?: NormalizedExportacion | undefined;
  comisiones: NormalizedComision[];
  totals: Totals;
}

/** A normalised document with its folio: what the strategies write and the TED stamps. */
export type NormalizedDte = NormalizedDocument & { folio: number };

/** The engine input without its folio. */
export type DocumentInput = Omit<DteInput, 'folio'>;

export function checkFolio(folio: number): number {
  if (!Number.isSafeInteger(folio) || folio < 1 || folio > 9_999_999_999) {
    throw new DteEngineError('invalid_folio', 'folio must be a positive integer of at most 10 digits', 'folio');
  }
  return folio;
}

/** Normalises a complete input, folio included (the emulator's tests build documents piece by piece). */
export function normalizeDte(input: DteInput): NormalizedDte {
  const document = normalizeDocument(input);
  return { ...document, folio: checkFolio(input.folio) };
}

function optional(v: string | undefined, param: string, maxLength: number, truncate = false): string | undefined {
  return cleanText(v, { param, maxLength, truncate });
}

const oneOf = <T extends string | number>(v: T | undefined, allowed: readonly T[], param: string, what: string): T | undefined => {
  if (v !== undefined && !allowed.includes(v)) throw new DteEngineError('invalid_field', `${param} must be ${what}`, param);
  return v;
};

function normalizeEmisor(e: EmisorInput | undefined, strategy: DocumentStrategy): NormalizedDocument['emisor'] {
  if (!e) throw new DteEngineError('required_field', 'emisor is required', 'emisor');
  const acteco = (e.acteco ?? []).map((a, i) => {
    const s = String(a);
    if (!/^[1-9]\d{0,5}$/.test(s))
      throw new DteEngineError('invalid_acteco', `emisor.acteco[${i}] must be an activity code of up to 6 digits`, `emisor.acteco[${i}]`);
    return s;
  });
  if (strategy.needsActeco && (acteco.length < 1 || acteco.length > 4)) {
    throw new DteEngineError(
      'invalid_acteco',
      'emisor.acteco needs 1 to 4 economic activity codes for this document type',
      'emisor.acteco',
    );
  }
  if (
    e.codigoSucursal !== undefined &&
    (!Number.isSafeInteger(e.codigoSucursal) || e.codigoSucursal < 1 || e.codigoSucursal > 999_999_999)
  ) {
    throw new DteEngineError(
      'invalid_field',
      'emisor.codigoSucursal must be a positive integer of up to 9 digits',
      'emisor.codigoSucursal',
    );
  }
  const direccion = optional(e.direccion, 'emisor.direccion', MAX_LENGTH.direccion);
  if (strategy.root === 'Liquidacion' && direccion === undefined) {
    throw new DteEngineError('required_field', "A liquidación-factura (43) needs the issuer's address (DirOrigen)", 'emisor.direccion');
  }
  return {
    rut: toSiiRut(e.rut, 'emisor.rut'),
    razonSocial: cleanText(e.razonSocial, { param: 'emisor.razonSocial', maxLength: MAX_LENGTH.razonSocial, required: true }),
    // Giro: registry text often longer than the field; the SII's own portal cuts it.
    giro: cleanText(e.giro, { param: 'emisor.giro', maxLength: MAX_LENGTH.giroEmisor, required: true, truncate: true }),
    acteco,
    direccion,
    comuna: optional(e.comuna, 'emisor.comuna', MAX_LENGTH.comuna),
    ciudad: optional(e.ciudad, 'emisor.ciudad', MAX_LENGTH.ciudad),
    telefono: optional(e.telefono, 'emisor.telefono', MAX_LENGTH.telefono),
    correo: optional(e.correo, 'emisor.correo', MAX_LENGTH.correo),
    codigoSucursal: e.codigoSucursal,
    sucursal: optional(e.sucursal, 'emisor.sucursal', MAX_LENGTH.sucursal),
    vendedor: optional(e.vendedor, 'emisor.vendedor', MAX_LENGTH.vendedor),
  };
}

function normalizeReceptor(tipoDte: TipoDte, r: ReceptorInput | undefined, strategy: DocumentStrategy): NormalizedDocument['receptor'] {
  if (!r && strategy.receptorRequired)
    throw new DteEngineError('required_field', 'receptor is required for this document type', 'receptor');
  if (!r) return { rut: RUT_ANONYMOUS };
  const rut = toSiiRut(r.rut, 'receptor.rut');
  if (rut === RUT_ANONYMOUS && !strategy.boleta) {
    throw new DteEngineError(
      'anonymous_receptor_not_allowed',
      `66.666.666-6 (consumidor final) is for boletas only; a type ${tipoDte} needs the receptor's own RUT`,
      'receptor.rut',
    );
  }
  const out: NormalizedDocument['receptor'] = {
    rut,
    razonSocial: cleanText(r.razonSocial, {
      param: 'receptor.razonSocial',
      maxLength: MAX_LENGTH.razonSocial,
      required: strategy.receptorRequired,
    }),
    giro: optional(r.giro, 'receptor.giro', MAX_LENGTH.giroReceptor, true),
    direccion: optional(r.direccion, 'receptor.direccion', MAX_LENGTH.direccion),
    comuna: optional(r.comuna, 'receptor.comuna', MAX_LENGTH.comuna),
    ciudad: optional(r.ciudad, 'receptor.ciudad', MAX_LENGTH.ciudad),
    contacto: optional(r.contacto, 'receptor.contacto', MAX_LENGTH.contacto),
    correo: optional(r.correo, 'receptor.correo', MAX_LENGTH.correo),
  };
  if (strategy.receptorDetailsRequired) {
    // Format document, Receptor: GiroRecep, DirRecep and CmnaRecep are mandatory (1) on these types.
    for (const k of ['giro', 'direccion', 'comuna'] as const) {
      if (out[k] === undefined)
        throw new DteEngineError(
          'receptor_incomplete',
          `receptor.${k} is required on a type ${tipoDte} (the SII requires the receptor's giro, dirección and comuna)`,
          `receptor.${k}`,
        );
    }
  }
  if (r.extranjero) {
    if (!strategy.exportacion)
      throw new DteEngineError('invalid_field', 'receptor.extranjero is only for export documents (110, 111, 112)', 'receptor.extranjero');
    const nacionalidad = optional(r.extranjero.nacionalidad, 'receptor.extranjero.nacionalidad', MAX_LENGTH.nacionalidad);
    const numeroId = optional(r.extranjero.numeroId, 'receptor.extranjero.numeroId', MAX_LENGTH.numeroId);
    if (nacionalidad !== undefined && !/^\d{1,3}$/.test(nacionalidad))
      throw new DteEngineError(
        'invalid_field',
        'receptor.extranjero.nacionalidad is the country code of the Aduana table (up to 3 digits, e.g. 225 for the USA)',
        'receptor.extranjero.nacionalidad',
      );
    out.extranjero = { ...(nacionalidad ? { nacionalidad } : {}), ...(numeroId ? { numeroId } : {}) };
  }
  return out;
}

function checkIndicators(input: DocumentInput, strategy: DocumentStrategy): void {
  if (input.formaPago !== undefined && (strategy.boleta || ![1, 2, 3].includes(input.formaPago)))
    throw new DteEngineError(
      'invalid_field',
      strategy.boleta ? 'formaPago does not exist on boletas' : 'formaPago must be 1 (contado), 2 (crédito) or 3 (sin costo)',
      'formaPago',
    );
  if (input.indServicio !== undefined && !strategy.indServicio.includes(input.indServicio))
    throw new DteEngineError(
      'invalid_field',
      `indServicio on this document type is one of ${strategy.indServicio.join(', ') || '(none)'}`,
      'indServicio',
    );
  if (
    input.indTraslado !== undefined &&
    (!strategy.guia || !(Number.isInteger(input.indTraslado) && input.indTraslado >= 1 && input.indTraslado <= 9))
  )
    throw new DteEngineError(
      'invalid_field',
      strategy.guia ? 'indTraslado must be an integer 1..9' : 'indTraslado is only for guías (52)',
      'indTraslado',
    );
  if (input.tipoDespacho !== undefined && (!strategy.guia || ![1, 2, 3].includes(input.tipoDespacho)))
    throw new DteEngineError(
      'invalid_field',
      strategy.guia ? 'tipoDespacho must be 1, 2 or 3' : 'tipoDespacho is only for guías (52)',
      'tipoDespacho',
    );
  if (input.transporte !== undefined && !strategy.guia && !strategy.exportacion)
    throw new DteEngineError('invalid_field', 'transporte is only for guías (52) and exports', 'transporte');
  if (input.montoBruto === true && !strategy.grossPrices)
    throw new DteEngineError(
      'invalid_field',
      'montoBruto (prices include IVA) is for 33, 34, 46, 52, 56 and 61; boletas include IVA unless indMontoNeto',
      'montoBruto',
    );
  if (input.indMontoNeto === true && input.tipoDte !== 39)
    throw new DteEngineError('invalid_field', 'indMontoNeto (prices are net) is only for boletas 39', 'indMontoNeto');
  if (input.montoBruto === true && input.detalle?.some((d) => d.impuestoAdicional !== undefined))
    throw new DteEngineError(
      'gross_prices_with_additional_tax',
      'Prices that include IVA (montoBruto) cannot be split from additional taxes: give net prices',
      'montoBruto',
    );
  if (
    !strategy.adjustments &&
    (input.descuentosGlobales?.length ||
      input.detalle?.some(
        (l) => l.descuentoPct !== undefined || l.descuentoMonto !== undefined || l.recargoPct !== undefined || l.recargoMonto !== undefined,
      ))
  )
    throw new DteEngineError(
      'invalid_field',
      `A type ${input.tipoDte} has no discounts or surcharges in its schema (Liquidacion)`,
      'descuentosGlobales',
    );
  if (
    strategy.exportacion &&
    input.detalle?.some((l) => !Number.isInteger(l.descuentoMonto ?? 0) || !Number.isInteger(l.recargoMonto ?? 0))
  )
    throw new DteEngineError(
      'invalid_number',
      'On exports, line discount and surcharge amounts are whole numbers (DescuentoMonto is an integer in the schema); use descuentoPct',
      'detalle',
    );
  oneOf(input.medioPago, ['CH', 'CF', 'LT', 'EF', 'PE', 'TC', 'OT'], 'medioPago', 'CH, CF, LT, EF, PE, TC or OT');
  if (strategy.boleta && (input.medioPago || input.pagos?.length || input.terminosPago || input.terminosPagoDias))
    throw new DteEngineError('invalid_field', 'Boletas carry no payment terms (EnvioBOLETA schema); only fechaVencimiento', 'medioPago');
  if (
    input.terminosPagoDias !== undefined &&
    !(Number.isInteger(input.terminosPagoDias) && input.terminosPagoDias >= 1 && input.terminosPagoDias <= 999)
  )
    throw new DteEngineError('invalid_field', 'terminosPagoDias must be 1 to 999', 'terminosPagoDias');
}

export function normalizeDocument(input: DocumentInput): NormalizedDocument {
  if (!input || typeof input !== 'object') throw new DteEngineError('invalid_document', 'The document input must be an object');
  if (!isSupportedTipoDte(input.tipoDte)) {
    throw new DteEngineError(
      'unsupported_tipo_dte',
      `tipoDte ${String(input.tipoDte)} is not supported (${SUPPORTED_TIPOS_DTE.join(', ')})`,
      'tipoDte',
    );
  }
  const tipoDte = input.tipoDte;
  const strategy = strategyFor(tipoDte);
  const fechaEmision = checkSiiDate(input.fechaEmision, 'fechaEmision');
  const emisor = normalizeEmisor(input.emisor, strategy);
  const receptor = normalizeReceptor(tipoDte, input.receptor, strategy);
  checkIndicators(input, strategy);
  const exportacion = normalizeExportacion(input.exportacion, strategy.exportacion);

  if (!Array.isArray(input.detalle) || input.detalle.length < 1) {
    throw new DteEngineError('required_field', 'detalle needs at least one line', 'detalle');
  }
  if (input.detalle.length > strategy.maxLines) {
    throw new DteEngineError('too_many_lines', `detalle may have at most ${strategy.maxLines} lines for this document type`, 'detalle');
  }
  const indTraslado = strategy.guia ? (input.indTraslado ?? 1) : undefined;
  const totals = computeTotals(tipoDte, input.detalle, {
    descuentosGlobales: input.descuentosGlobales,
    montoBruto: input.montoBruto,
    indMontoNeto: input.indMontoNeto,
    moneda: exportacion?.moneda,
    otraMoneda: exportacion?.otraMoneda
      ? { moneda: exportacion.otraMoneda.moneda, tipoCambio: Number(exportacion.otraMoneda.tipoCambio) }
      : undefined,
    comisiones: input.comisiones,
  });
  // A guía that moves goods without a sale (IndTraslado ≠ 1) may leave prices out (docs/decisions.md §11).
  const detalle = normalizeLines(tipoDte, strategy, input.detalle, totals, { pricesOptional: strategy.guia && indTraslado !== 1 });
  if (input.montoTotal !== undefined && input.montoTotal !== totals.montoTotal) {
    throw new DteEngineError('amount_mismatch', `montoTotal should be ${totals.montoTotal}, got ${input.montoTotal}`, 'montoTotal', {
      expected: totals.montoTotal,
      actual: input.montoTotal,
    });
  }
  if (strategy.forbidAllExempt && detalle.every((d) => d.exento)) {
    throw new DteEngineError(
      'all_lines_exempt',
      `Every line is exempt: the SII does not accept a type ${tipoDte} without taxed lines; issue an exempt document (34 or 41) instead`,
      'detalle',
    );
  }
  const referencias = normalizeReferences(tipoDte, strategy, input.referencias ?? [], fechaEmision, totals);
  const fechaVencimiento = input.fechaVencimiento === undefined ? undefined : checkSiiDate(input.fechaVencimiento, 'fechaVencimiento');
  if (fechaVencimiento !== undefined && fechaVencimiento < fechaEmision)
    throw new DteEngineError(
      'invalid_date',
      `fechaVencimiento ${fechaVencimiento} is before fechaEmision ${fechaEmision}`,
      'fechaVencimiento',
    );

  const doc: NormalizedDocument = {
    tipoDte,
    fechaEmision,
    strategy,
    emisor,
    receptor,
    detalle,
    referencias,
    descuentosGlobales: normalizeGlobals(input.descuentosGlobales, totals),
    formaPago: input.formaPago,
    indServicio: strategy.boleta ? (input.indServicio ?? 3) : input.indServicio,
    indTraslado,
    tipoDespacho: input.tipoDespacho,
    montoBruto: input.montoBruto === true,
    indMontoNeto: input.indMontoNeto === true,
    fechaVencimiento,
    medioPago: input.medioPago,
    terminosPago: optional(input.terminosPago, 'terminosPago', MAX_LENGTH.terminosPago),
    terminosPagoDias: input.terminosPagoDias,
    pagos: normalizePagos(input.pagos),
    transporte: normalizeTransporte(input.transporte),
    exportacion,
    comisiones: normalizeComisiones(input.comisiones, strategy.root === 'Liquidacion'),
    totals,
  };
  strategy.checkForm?.(doc);
  return doc;
}
