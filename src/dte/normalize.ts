import { DteEngineError } from './errors.ts';
import { cleanText } from './text-policy.ts';
import { MAX_LENGTH } from './limits.ts';
import { toSiiRut, RUT_ANONYMOUS } from './rut.ts';
import { checkSiiDate } from './dates.ts';
import { computeTotals } from './amounts.ts';
import type { Totals } from './amounts.ts';
import { documentType, isSupportedTipoDte, SUPPORTED_TIPOS_DTE, typesWhere } from './catalogue.ts';
import type { DocumentType } from './catalogue.ts';
import type { DteInput, EmisorInput, ReceptorInput, TipoDte } from './types.ts';
import { strategyFor } from './strategies/index.ts';
import type { DocumentStrategy } from './strategies/index.ts';
import { normalizeLines, type NormalizedLine } from './normalize-lines.ts';
import { normalizeReferences, type NormalizedReference } from './normalize-references.ts';
import {
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
  /** The type's entry in the catalogue: its facts. */
  type: DocumentType;
  /** Its family's strategy: its rules' hooks and how it is written. */
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

function normalizeEmisor(e: EmisorInput | undefined, type: DocumentType, strategy: DocumentStrategy): NormalizedDocument['emisor'] {
  if (!e) throw new DteEngineError('required_field', 'emisor is required', 'emisor');
  const acteco = (e.acteco ?? []).map((a, i) => {
    const s = String(a);
    if (!/^[1-9]\d{0,5}$/.test(s))
      throw new DteEngineError('invalid_acteco', `emisor.acteco[${i}] must be an activity code of up to 6 digits`, `emisor.acteco[${i}]`);
    return s;
  });
  if (type.needsActeco && (acteco.length < 1 || acteco.length > 4)) {
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
  strategy.checkEmisor({ direccion });
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

function normalizeReceptor(
  tipoDte: TipoDte,
  r: ReceptorInput | undefined,
  type: DocumentType,
  strategy: DocumentStrategy,
): NormalizedDocument['receptor'] {
  if (!r && type.receptorRequired) throw new DteEngineError('required_field', 'receptor is required for this document type', 'receptor');
  if (!r) return { rut: RUT_ANONYMOUS };
  const rut = toSiiRut(r.rut, 'receptor.rut');
  strategy.checkReceptorRut(rut, tipoDte);
  const out: NormalizedDocument['receptor'] = {
    rut,
    razonSocial: cleanText(r.razonSocial, {
      param: 'receptor.razonSocial',
      maxLength: MAX_LENGTH.razonSocial,
      required: type.receptorRequired,
    }),
    giro: optional(r.giro, 'receptor.giro', MAX_LENGTH.giroReceptor, true),
    direccion: optional(r.direccion, 'receptor.direccion', MAX_LENGTH.direccion),
    comuna: optional(r.comuna, 'receptor.comuna', MAX_LENGTH.comuna),
    ciudad: optional(r.ciudad, 'receptor.ciudad', MAX_LENGTH.ciudad),
    contacto: optional(r.contacto, 'receptor.contacto', MAX_LENGTH.contacto),
    correo: optional(r.correo, 'receptor.correo', MAX_LENGTH.correo),
  };
  if (type.receptorDetailsRequired) {
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
  if (r.extranjero) out.extranjero = strategy.normalizeExtranjero(r.extranjero);
  return out;
}

/** The document-level indicators, in a fixed order: the family's hooks and the type's facts. */
function checkIndicators(input: DocumentInput, type: DocumentType, strategy: DocumentStrategy): void {
  strategy.checkFormaPago(input.formaPago);
  if (input.indServicio !== undefined && !type.indServicio.includes(input.indServicio))
    throw new DteEngineError(
      'invalid_field',
      `indServicio on this document type is one of ${type.indServicio.join(', ') || '(none)'}`,
      'indServicio',
    );
  strategy.checkTraslado(input);
  strategy.checkTransporte(input);
  if (input.montoBruto === true && !type.grossPrices)
    throw new DteEngineError(
      'invalid_field',
      `montoBruto (prices include IVA) is for ${typesWhere((t) => t.grossPrices)
        .join(', ')
        .replace(/, (\d+)$/, ' and $1')}; boletas include IVA unless indMontoNeto`,
      'montoBruto',
    );
  if (input.indMontoNeto === true && !type.grossByDefault)
    throw new DteEngineError(
      'invalid_field',
      `indMontoNeto (prices are net) is only for boletas ${typesWhere((t) => t.grossByDefault).join(', ')}`,
      'indMontoNeto',
    );
  if (input.montoBruto === true && input.detalle?.some((d) => d.impuestoAdicional !== undefined))
    throw new DteEngineError(
      'gross_prices_with_additional_tax',
      'Prices that include IVA (montoBruto) cannot be split from additional taxes: give net prices',
      'montoBruto',
    );
  if (
    !type.adjustments &&
    (input.descuentosGlobales?.length ||
      input.detalle?.some(
        (l) => l.descuentoPct !== undefined || l.descuentoMonto !== undefined || l.recargoPct !== undefined || l.recargoMonto !== undefined,
      ))
  )
    throw new DteEngineError(
      'invalid_field',
      `A type ${input.tipoDte} has no discounts or surcharges in its schema (${type.root})`,
      'descuentosGlobales',
    );
  strategy.checkLineAdjustments(input);
  oneOf(input.medioPago, ['CH', 'CF', 'LT', 'EF', 'PE', 'TC', 'OT'], 'medioPago', 'CH, CF, LT, EF, PE, TC or OT');
  strategy.checkPaymentTerms(input);
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
  const type = documentType(tipoDte);
  const strategy = strategyFor(tipoDte);
  const fechaEmision = checkSiiDate(input.fechaEmision, 'fechaEmision');
  const emisor = normalizeEmisor(input.emisor, type, strategy);
  const receptor = normalizeReceptor(tipoDte, input.receptor, type, strategy);
  checkIndicators(input, type, strategy);
  const exportacion = strategy.normalizeExportacion(input.exportacion);

  if (!Array.isArray(input.detalle) || input.detalle.length < 1) {
    throw new DteEngineError('required_field', 'detalle needs at least one line', 'detalle');
  }
  if (input.detalle.length > type.maxLines) {
    throw new DteEngineError('too_many_lines', `detalle may have at most ${type.maxLines} lines for this document type`, 'detalle');
  }
  const indTraslado = strategy.indTraslado(input.indTraslado);
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
  const detalle = normalizeLines(tipoDte, strategy, input.detalle, totals, { pricesOptional: strategy.pricesOptional(indTraslado) });
  if (input.montoTotal !== undefined && input.montoTotal !== totals.montoTotal) {
    throw new DteEngineError('amount_mismatch', `montoTotal should be ${totals.montoTotal}, got ${input.montoTotal}`, 'montoTotal', {
      expected: totals.montoTotal,
      actual: input.montoTotal,
    });
  }
  if (type.forbidAllExempt && detalle.every((d) => d.exento)) {
    throw new DteEngineError(
      'all_lines_exempt',
      `Every line is exempt: the SII does not accept a type ${tipoDte} without taxed lines; issue an exempt document (${typesWhere((t) => t.amounts === 'exento' || t.amounts === 'boleta_exenta').join(' or ')}) instead`,
      'detalle',
    );
  }
  const referencias = normalizeReferences(tipoDte, type, strategy, input.referencias ?? [], fechaEmision, totals);
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
    type,
    strategy,
    emisor,
    receptor,
    detalle,
    referencias,
    descuentosGlobales: normalizeGlobals(input.descuentosGlobales, totals),
    formaPago: input.formaPago,
    indServicio: strategy.indServicio(input.indServicio),
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
    comisiones: strategy.normalizeComisiones(input.comisiones),
    totals,
  };
  strategy.checkForm?.(doc);
  return doc;
}
