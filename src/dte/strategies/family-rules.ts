import { DteEngineError } from '../errors.ts';
import { cleanText } from '../text-policy.ts';
import { MAX_LENGTH } from '../limits.ts';
import { RUT_ANONYMOUS } from '../rut.ts';
import { familyCodes } from '../catalogue.ts';
import type { TipoDte } from '../catalogue.ts';
import { normalizeComisiones, normalizeExportacion } from '../normalize-extras.ts';
import type { NormalizedComision, NormalizedExportacion } from '../normalize-extras.ts';
import type { DetalleInput, DteInput, ReceptorInput } from '../types.ts';

type Input = Omit<DteInput, 'folio'>;

/**
 * The rules a family adds to the normaliser (normalize.ts, normalize-lines.ts,
 * normalize-references.ts), as hooks the normaliser calls at fixed points instead of asking which
 * family a type is. `documentRules` are the rules of a DTE_v10 `Documento` (a factura, a note);
 * boletas, guías, exports and the liquidación-factura override what differs. Each hook throws the
 * `DteEngineError` the normaliser has always thrown there (docs/dte.md, "Error codes").
 */
export interface FamilyRules {
  /** After the issuer's address is read: the liquidación-factura needs it. */
  checkEmisor(e: { direccion?: string | undefined }): void;
  /** The receptor's RUT in SII form: only a boleta may go to the anonymous consumer. */
  checkReceptorRut(rut: string, tipoDte: TipoDte): void;
  /** receptor.extranjero (exports only). */
  normalizeExtranjero(x: NonNullable<ReceptorInput['extranjero']>): { nacionalidad?: string; numeroId?: string };
  checkFormaPago(formaPago: number | undefined): void;
  /** indTraslado and tipoDespacho (guías only). */
  checkTraslado(input: Input): void;
  checkTransporte(input: Input): void;
  /** Line discount and surcharge amounts (whole numbers on exports). */
  checkLineAdjustments(input: Input): void;
  /** medioPago, pagos, terminosPago (none on boletas). */
  checkPaymentTerms(input: Input): void;
  normalizeExportacion(e: Input['exportacion']): NormalizedExportacion | undefined;
  normalizeComisiones(list: Input['comisiones']): NormalizedComision[];
  /** IndServicio as written: a boleta's defaults to 3. */
  indServicio(given: number | undefined): number | undefined;
  /** IndTraslado as written: a guía's defaults to 1; nobody else has one. */
  indTraslado(given: number | undefined): number | undefined;
  /** Whether lines may leave out quantity and price (a guía that moves goods without a sale). */
  pricesOptional(indTraslado: number | undefined): boolean;
  /** A line's IndExe beyond the common 1..6 (a boleta's is 1, 2 or 6). */
  checkLineIndExe(d: DetalleInput, p: string): void;
  checkLineRetenedor(d: DetalleInput, p: string): void;
  /** TpoDocLiq as kept: required on a liquidación-factura, dropped elsewhere. */
  tipoDocLiquidado(value: string | undefined, p: string): string | undefined;
  /** The largest recargoPct on a line. */
  maxRecargoPct: number;
  /** One reference, after its common checks. */
  checkReference(ref: { indGlobal?: boolean | undefined; rutOtro?: string | undefined }, p: string): void;
}

const refuseIf = (when: unknown, message: string, param: string, code = 'invalid_field'): void => {
  if (when) throw new DteEngineError(code, message, param);
};

export const documentRules: FamilyRules = {
  checkEmisor: () => undefined,
  checkReceptorRut(rut, tipoDte) {
    refuseIf(
      rut === RUT_ANONYMOUS,
      `66.666.666-6 (consumidor final) is for boletas only; a type ${tipoDte} needs the receptor's own RUT`,
      'receptor.rut',
      'anonymous_receptor_not_allowed',
    );
  },
  normalizeExtranjero() {
    throw new DteEngineError(
      'invalid_field',
      `receptor.extranjero is only for export documents (${familyCodes('exportacion')})`,
      'receptor.extranjero',
    );
  },
  checkFormaPago: (v) =>
    refuseIf(v !== undefined && ![1, 2, 3].includes(v), 'formaPago must be 1 (contado), 2 (crédito) or 3 (sin costo)', 'formaPago'),
  checkTraslado(input) {
    refuseIf(input.indTraslado !== undefined, `indTraslado is only for guías (${familyCodes('guia')})`, 'indTraslado');
    refuseIf(input.tipoDespacho !== undefined, `tipoDespacho is only for guías (${familyCodes('guia')})`, 'tipoDespacho');
  },
  checkTransporte: (input) =>
    refuseIf(input.transporte !== undefined, `transporte is only for guías (${familyCodes('guia')}) and exports`, 'transporte'),
  checkLineAdjustments: () => undefined,
  checkPaymentTerms: () => undefined,
  normalizeExportacion: (e) => normalizeExportacion(e, false),
  normalizeComisiones: (list) => normalizeComisiones(list, false),
  indServicio: (given) => given,
  indTraslado: () => undefined,
  pricesOptional: () => false,
  checkLineIndExe: () => undefined,
  checkLineRetenedor: () => undefined,
  tipoDocLiquidado: () => undefined,
  maxRecargoPct: 999.99,
  checkReference: () => undefined,
};

export const boletaRules: FamilyRules = {
  ...documentRules,
  checkReceptorRut: () => undefined,
  checkFormaPago: (v) => refuseIf(v !== undefined, 'formaPago does not exist on boletas', 'formaPago'),
  checkPaymentTerms: (input) =>
    refuseIf(
      input.medioPago || input.pagos?.length || input.terminosPago || input.terminosPagoDias,
      'Boletas carry no payment terms (EnvioBOLETA schema); only fechaVencimiento',
      'medioPago',
    ),
  indServicio: (given) => given ?? 3,
  checkLineIndExe: (d, p) =>
    refuseIf(
      d.indExe !== undefined && ![1, 2, 6].includes(d.indExe),
      `${p}.indExe on a boleta is 1, 2 or 6 (EnvioBOLETA schema)`,
      `${p}.indExe`,
    ),
  checkLineRetenedor: (d, p) => refuseIf(d.retenedor === true, `${p}.retenedor does not exist on boletas`, `${p}.retenedor`),
  maxRecargoPct: 100,
  checkReference: (ref, p) => refuseIf(ref.indGlobal || ref.rutOtro, `${p}: boleta references have no indGlobal or rutOtro`, p),
};

/** Guía de despacho: IndTraslado (default 1, "operación constituye venta"), TipoDespacho, Transporte. */
export const guiaRules: FamilyRules = {
  ...documentRules,
  checkTraslado(input) {
    refuseIf(
      input.indTraslado !== undefined && !(Number.isInteger(input.indTraslado) && input.indTraslado >= 1 && input.indTraslado <= 9),
      'indTraslado must be an integer 1..9',
      'indTraslado',
    );
    refuseIf(input.tipoDespacho !== undefined && ![1, 2, 3].includes(input.tipoDespacho), 'tipoDespacho must be 1, 2 or 3', 'tipoDespacho');
  },
  checkTransporte: () => undefined,
  indTraslado: (given) => given ?? 1,
  // A guía that moves goods without a sale (IndTraslado ≠ 1) may leave prices out (docs/decisions.md §11).
  pricesOptional: (indTraslado) => indTraslado !== 1,
};

/** Exports: the foreign receptor, Transporte/Aduana, the currency, whole-number line amounts. */
export const exportRules: FamilyRules = {
  ...documentRules,
  normalizeExtranjero(x) {
    const nacionalidad = cleanText(x.nacionalidad, { param: 'receptor.extranjero.nacionalidad', maxLength: MAX_LENGTH.nacionalidad });
    const numeroId = cleanText(x.numeroId, { param: 'receptor.extranjero.numeroId', maxLength: MAX_LENGTH.numeroId });
    refuseIf(
      nacionalidad !== undefined && !/^\d{1,3}$/.test(nacionalidad),
      'receptor.extranjero.nacionalidad is the country code of the Aduana table (up to 3 digits, e.g. 225 for the USA)',
      'receptor.extranjero.nacionalidad',
    );
    return { ...(nacionalidad ? { nacionalidad } : {}), ...(numeroId ? { numeroId } : {}) };
  },
  checkTransporte: () => undefined,
  checkLineAdjustments: (input) =>
    refuseIf(
      input.detalle?.some((l) => !Number.isInteger(l.descuentoMonto ?? 0) || !Number.isInteger(l.recargoMonto ?? 0)),
      'On exports, line discount and surcharge amounts are whole numbers (DescuentoMonto is an integer in the schema); use descuentoPct',
      'detalle',
      'invalid_number',
    ),
  normalizeExportacion: (e) => normalizeExportacion(e, true),
};

/** Liquidación-factura: the issuer's address, TpoDocLiq on each line, its commissions. */
export const liquidacionRules: FamilyRules = {
  ...documentRules,
  checkEmisor: (e) =>
    refuseIf(
      e.direccion === undefined,
      `A liquidación-factura (${familyCodes('liquidacion')}) needs the issuer's address (DirOrigen)`,
      'emisor.direccion',
      'required_field',
    ),
  normalizeComisiones: (list) => normalizeComisiones(list, true),
  tipoDocLiquidado(value, p) {
    refuseIf(
      value === undefined,
      `${p}.tipoDocLiquidado (the type of the document liquidated, e.g. 33) is required on a ${familyCodes('liquidacion')}`,
      `${p}.tipoDocLiquidado`,
      'required_field',
    );
    return value;
  },
};
