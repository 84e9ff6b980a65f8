import { DteEngineError } from './errors.ts';
import { cleanText } from './text-policy.ts';
import { MAX_FRACTION_DIGITS_QTY_PRICE, MAX_INTEGER_DIGITS_QTY_PRICE, MAX_LENGTH, MAX_REFERENCIAS } from './limits.ts';
import { toSiiRut, RUT_ANONYMOUS } from './rut.ts';
import { checkSiiDate } from './dates.ts';
import { decimalFromNumber, formatDecimal, integerDigits, isZero } from './decimal.ts';
import type { Decimal } from './decimal.ts';
import { computeTotals, lineIsExempt } from './amounts.ts';
import type { Totals } from './amounts.ts';
import { isSupportedTipoDte } from './types.ts';
import type { DteInput, EmisorInput, ReceptorInput, TipoDte } from './types.ts';
import { strategyFor } from './strategies/index.ts';
import type { DocumentStrategy } from './strategies/index.ts';

/**
 * Step 1 of the pipeline: validated, cleaned, SII-formatted values, with totals computed. No
 * folio: the document is complete before a folio is spent on it (see prepare.ts).
 */
export interface NormalizedDocument {
  tipoDte: TipoDte;
  fechaEmision: string;
  strategy: DocumentStrategy;
  /** Same fields as the input, cleaned and in SII form; activity codes as six-digit text. */
  emisor: Omit<EmisorInput, 'acteco'> & { acteco: string[] };
  receptor: ReceptorInput;
  detalle: {
    nombre: string;
    descripcion?: string | undefined;
    unidad?: string | undefined;
    /** Decimal text for QtyItem/PrcItem, omitted when zero (their schema minimum is 0.000001). */
    cantidad?: string | undefined;
    precio?: string | undefined;
    exento: boolean;
    montoItem: number;
  }[];
  referencias: {
    tipoDocRef: string;
    folioRef: string;
    fechaRef: string;
    codRef?: 1 | 2 | 3 | undefined;
    razonRef?: string | undefined;
  }[];
  formaPago?: 1 | 2 | 3 | undefined;
  indServicio: 1 | 2 | 3 | 4;
  indTraslado?: number | undefined;
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

function qtyOrPrice(value: number, param: string): { text: string | undefined; dec: Decimal } {
  const dec = decimalFromNumber(value, param);
  if (dec.scale > MAX_FRACTION_DIGITS_QTY_PRICE) {
    throw new DteEngineError('invalid_number', `${param} may have at most ${MAX_FRACTION_DIGITS_QTY_PRICE} decimals`, param);
  }
  if (integerDigits(dec) > MAX_INTEGER_DIGITS_QTY_PRICE) {
    throw new DteEngineError('invalid_number', `${param} may have at most ${MAX_INTEGER_DIGITS_QTY_PRICE} integer digits`, param);
  }
  return { text: isZero(dec) ? undefined : formatDecimal(dec), dec };
}

function optional(v: string | undefined, param: string, maxLength: number, truncate = false): string | undefined {
  return cleanText(v, { param, maxLength, truncate });
}

export function normalizeDocument(input: DocumentInput): NormalizedDocument {
  if (!input || typeof input !== 'object') throw new DteEngineError('invalid_document', 'The document input must be an object');
  if (!isSupportedTipoDte(input.tipoDte)) {
    throw new DteEngineError(
      'unsupported_tipo_dte',
      `tipoDte ${String(input.tipoDte)} is not supported (33, 34, 39, 41, 46, 52, 56, 61)`,
      'tipoDte',
    );
  }
  const tipoDte = input.tipoDte;
  const strategy = strategyFor(tipoDte);
  const fechaEmision = checkSiiDate(input.fechaEmision, 'fechaEmision');

  const e = input.emisor;
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
  const emisor: NormalizedDocument['emisor'] = {
    rut: toSiiRut(e.rut, 'emisor.rut'),
    razonSocial: cleanText(e.razonSocial, { param: 'emisor.razonSocial', maxLength: MAX_LENGTH.razonSocial, required: true }),
    // Giro: registry text often longer than the field; the SII's own portal cuts it.
    giro: cleanText(e.giro, { param: 'emisor.giro', maxLength: MAX_LENGTH.giroEmisor, required: true, truncate: true }),
    acteco,
    direccion: optional(e.direccion, 'emisor.direccion', MAX_LENGTH.direccion),
    comuna: optional(e.comuna, 'emisor.comuna', MAX_LENGTH.comuna),
    ciudad: optional(e.ciudad, 'emisor.ciudad', MAX_LENGTH.ciudad),
    telefono: optional(e.telefono, 'emisor.telefono', MAX_LENGTH.telefono),
    correo: optional(e.correo, 'emisor.correo', MAX_LENGTH.correo),
    codigoSucursal: e.codigoSucursal,
  };

  const r = input.receptor;
  if (!r && strategy.receptorRequired)
    throw new DteEngineError('required_field', 'receptor is required for this document type', 'receptor');
  const receptor: NormalizedDocument['receptor'] = r
    ? {
        rut: toSiiRut(r.rut, 'receptor.rut'),
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
      }
    : { rut: RUT_ANONYMOUS };

  if (!Array.isArray(input.detalle) || input.detalle.length < 1) {
    throw new DteEngineError('required_field', 'detalle needs at least one line', 'detalle');
  }
  if (input.detalle.length > strategy.maxLines) {
    throw new DteEngineError('too_many_lines', `detalle may have at most ${strategy.maxLines} lines for this document type`, 'detalle');
  }
  const totals = computeTotals(tipoDte, input.detalle);
  const detalle = input.detalle.map((d, i) => {
    const p = `detalle[${i}]`;
    const cantidad = qtyOrPrice(d.cantidad, `${p}.cantidad`);
    const precio = qtyOrPrice(d.precioUnitario, `${p}.precioUnitario`);
    const montoItem = totals.lineas[i] ?? 0;
    if (d.montoItem !== undefined && d.montoItem !== montoItem) {
      throw new DteEngineError(
        'amount_mismatch',
        `${p}.montoItem should be ${montoItem} (round(cantidad × precioUnitario)), got ${d.montoItem}`,
        `${p}.montoItem`,
        {
          expected: montoItem,
          actual: d.montoItem,
        },
      );
    }
    return {
      nombre: cleanText(d.nombre, { param: `${p}.nombre`, maxLength: MAX_LENGTH.nombreItem, required: true }),
      descripcion: optional(d.descripcion, `${p}.descripcion`, MAX_LENGTH.descripcionItem),
      unidad: optional(d.unidad, `${p}.unidad`, MAX_LENGTH.unidad),
      cantidad: cantidad.text,
      precio: precio.text,
      exento: lineIsExempt(tipoDte, d),
      montoItem,
    };
  });
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

  const refsIn = input.referencias ?? [];
  if (refsIn.length > MAX_REFERENCIAS)
    throw new DteEngineError('too_many_references', `referencias may have at most ${MAX_REFERENCIAS} entries`, 'referencias');
  if (strategy.requiresReferencias && refsIn.length === 0) {
    throw new DteEngineError(
      'references_required',
      `Document type ${tipoDte} must reference the document it modifies (referencias)`,
      'referencias',
    );
  }
  const referencias = refsIn.map((ref, i) => {
    const p = `referencias[${i}]`;
    const tipoDocRef = cleanText(String(ref.tipoDocRef ?? ''), {
      param: `${p}.tipoDocRef`,
      maxLength: MAX_LENGTH.tipoDocRef,
      required: true,
    });
    const folioRef = cleanText(String(ref.folioRef ?? ''), { param: `${p}.folioRef`, maxLength: MAX_LENGTH.folioRef, required: true });
    const fechaRef = checkSiiDate(ref.fechaRef, `${p}.fechaRef`);
    if (ref.codRef !== undefined && ![1, 2, 3].includes(ref.codRef)) {
      throw new DteEngineError('invalid_field', `${p}.codRef must be 1 (anula), 2 (corrige texto) or 3 (corrige montos)`, `${p}.codRef`);
    }
    if (strategy.requiresReferencias && ref.codRef === undefined) {
      throw new DteEngineError('required_field', `${p}.codRef is required for credit and debit notes`, `${p}.codRef`);
    }
    const razonRef = optional(ref.razonRef, `${p}.razonRef`, MAX_LENGTH.razonRef);
    if (strategy.requiresReferencias && razonRef === undefined) {
      throw new DteEngineError('required_field', `${p}.razonRef is required for credit and debit notes`, `${p}.razonRef`);
    }
    return { tipoDocRef, folioRef, fechaRef, codRef: ref.codRef, razonRef };
  });

  if (input.formaPago !== undefined && ![1, 2, 3].includes(input.formaPago)) {
    throw new DteEngineError('invalid_field', 'formaPago must be 1 (contado), 2 (crédito) or 3 (sin costo)', 'formaPago');
  }
  const indServicio = input.indServicio ?? 3;
  if (![1, 2, 3, 4].includes(indServicio)) throw new DteEngineError('invalid_field', 'indServicio must be 1, 2, 3 or 4', 'indServicio');
  if (input.indTraslado !== undefined && !(Number.isInteger(input.indTraslado) && input.indTraslado >= 1 && input.indTraslado <= 9)) {
    throw new DteEngineError('invalid_field', 'indTraslado must be an integer 1..9', 'indTraslado');
  }

  return {
    tipoDte,
    fechaEmision,
    strategy,
    emisor,
    receptor,
    detalle,
    referencias,
    formaPago: input.formaPago,
    indServicio,
    indTraslado: input.indTraslado,
    totals,
  };
}
