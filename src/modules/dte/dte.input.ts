import type { Static } from '@sinclair/typebox';
import {
  checkAmounts,
  DteEngineError,
  MAX_DETALLE_LINES_BOLETA,
  MAX_LENGTH,
  prepareDte,
  siiDate,
  documentType,
  isBoleta,
  isLiquidacion,
  tryParseRut,
  type DetalleInput,
  type DocumentInput,
  type PreparedDte,
} from '../../dte/index.ts';
import { errors, type AppError } from '../../errors.ts';
import { parseTipoDte, requireDate, siiText } from '../../lib/validate.ts';
import type { TenantRow } from '../tenants/index.ts';
import { engineErrorToAppError } from './dte.errors.ts';
import type { CreateDteBody } from './dte.schemas.ts';

/**
 * The create request, checked in the order a client can act on it, every failure a 4xx with its
 * own code and the field it names (docs/dte.md, "Creating a DTE" and "Error codes"), then
 * prepared by the engine: all of this runs before a folio is reserved, so bad input never costs
 * a folio. Per-type rules come from the engine's strategies.
 */
export type CreateDte = Static<typeof CreateDteBody>;

export interface PreparedCreate {
  /**
   * A problem with the tenant's own data, to report once the tenant is known to be ready. When
   * set, `prepared` was checked with a stand-in activity code and must never be issued.
   */
  tenantProblem: AppError | undefined;
  prepared: PreparedDte;
  /** The SII office to print: the document's, else the tenant's, else null (the issuer's city). */
  unidadSii: string | null;
}

/** Any valid code: lets a tenant without activity codes have the rest of its request checked. */
const STAND_IN_ACTECO = 100000;

function emisorFor(tenant: TenantRow): DocumentInput['emisor'] {
  // The tenant's issuer defaults (docs/decisions.md §11) below its identity; unidadSii is printed, not signed.
  const { unidadSii: _printed, ...defaults } = tenant.emisor ?? {};
  return {
    ...defaults,
    rut: tenant.rut_empresa,
    razonSocial: tenant.razon_social,
    giro: tenant.giro,
    acteco: tenant.acteco,
    direccion: tenant.direccion,
    comuna: tenant.comuna,
    ciudad: tenant.ciudad,
  };
}

export function prepareCreate(body: CreateDte, tenant: TenantRow, now: Date): PreparedCreate {
  const tipoDte = parseTipoDte(body.tipoDte);
  const type = documentType(tipoDte);

  const today = siiDate(now);
  const fechaEmision = requireDate(body.fechaEmision ?? today, 'fechaEmision');
  if (fechaEmision > today)
    throw errors.invalid('invalid_date', `fechaEmision ${fechaEmision} is in the future; today in Chile is ${today}.`, {
      param: 'fechaEmision',
    });

  const r = body.receptor;
  if (!r && type.receptorRequired)
    throw errors.invalid('required_field', `receptor (with rut and razonSocial) is required for document type ${tipoDte}.`, {
      param: 'receptor',
    });
  if (r) {
    if (!tryParseRut(r.rut.trim()))
      throw errors.invalid('invalid_rut', `receptor.rut '${r.rut}' is not a valid RUT: write it with its check digit, like 76.123.456-7.`, {
        param: 'receptor.rut',
      });
    if (type.receptorRequired && !r.razonSocial?.trim())
      throw errors.invalid('required_field', `receptor.razonSocial is required for document type ${tipoDte}.`, {
        param: 'receptor.razonSocial',
      });
  }
  if (body.detalle.length > type.maxLines)
    throw errors.invalid(
      'too_many_lines',
      `detalle has ${body.detalle.length} lines; a document of type ${tipoDte} may have at most ${type.maxLines} (boletas ${MAX_DETALLE_LINES_BOLETA}).`,
      {
        param: 'detalle',
      },
    );
  if (type.requiresReferencias && !body.referencias?.length)
    throw errors.unprocessable(
      'references_required',
      `Document type ${tipoDte} must reference the document it modifies: add referencias.`,
      { param: 'referencias' },
    );

  // A guía that moves goods without a sale may leave out precioUnitario and montoItem
  // (docs/decisions.md §11): such a line is worth 0. Every other line states its montoItem; whether
  // a line may go without a price at all is the engine's rule (only a guía, indTraslado ≠ 1).
  const detalle = body.detalle.map((d, i) => {
    if (d.montoItem !== undefined) return d;
    if (d.precioUnitario === undefined) return { ...d, montoItem: 0 };
    // A missing body field is invalid_field, as the schema would answer (docs/errors.md).
    throw errors.invalid('invalid_field', `detalle[${i}].montoItem is required on a line with a precioUnitario.`, {
      param: `detalle[${i}].montoItem`,
    });
  });

  // Amounts first, every field at once: the 422 names the expected value of each (docs/dte.md, "Amounts").
  let mismatches: ReturnType<typeof checkAmounts>;
  try {
    mismatches = checkAmounts(tipoDte, detalle, body.montoTotal, {
      descuentosGlobales: body.descuentosGlobales,
      montoBruto: body.montoBruto,
      indMontoNeto: body.indMontoNeto,
      moneda: body.exportacion?.moneda,
      otraMoneda: body.exportacion?.otraMoneda,
      comisiones: isLiquidacion(tipoDte) ? body.comisiones : undefined,
    });
  } catch (e) {
    throw engineErrorToAppError(e);
  }
  if (mismatches.length > 0) {
    const first = mismatches[0]!;
    throw errors.unprocessable('amount_mismatch', first.message, {
      param: first.param,
      details: {
        expected: first.expected,
        actual: first.actual ?? null,
        mismatches: mismatches.map(({ param, expected, actual }) => ({ param, expected, actual: actual ?? null })),
      },
    });
  }

  // A tenant without activity codes is the tenant's problem, not the request's: it is reported
  // after readiness (see `tenantProblem`), with the rest of the request checked first.
  const tenantProblem =
    type.needsActeco && tenant.acteco.length === 0
      ? (engineErrorToAppError(new DteEngineError('invalid_acteco', 'no activity codes', 'emisor.acteco')) as AppError)
      : undefined;
  const emisor = emisorFor(tenant);
  const { unidadSii: printedOffice, ...documentIssuer } = body.emisor ?? {};
  // Printed beside what the XML carries, never signed: the same text policy as the rest (src/lib/validate.ts).
  const unidadSii = siiText(printedOffice, { param: 'emisor.unidadSii', maxLength: MAX_LENGTH.unidadSii, optional: true });
  const input: DocumentInput = {
    tipoDte,
    fechaEmision,
    emisor: { ...(tenantProblem ? { ...emisor, acteco: [STAND_IN_ACTECO] } : emisor), ...documentIssuer },
    receptor: r
      ? {
          rut: r.rut.trim(),
          razonSocial: r.razonSocial,
          giro: r.giro,
          direccion: r.direccion,
          comuna: r.comuna,
          ciudad: r.ciudad,
          contacto: r.contacto,
          correo: r.correo,
          extranjero: r.extranjero,
        }
      : undefined,
    detalle: detalle.map((d) => ({ ...d, indExe: d.indExe as DetalleInput['indExe'] })),
    referencias: body.referencias?.map((x) => ({ ...x })),
    // Boletas have no FmaPago: a formaPago sent with one is left out, as before (docs/dte.md).
    formaPago: isBoleta(tipoDte) ? undefined : (body.formaPago as DocumentInput['formaPago']),
    montoTotal: body.montoTotal,
    descuentosGlobales: body.descuentosGlobales,
    montoBruto: body.montoBruto,
    indMontoNeto: body.indMontoNeto,
    indServicio: body.indServicio as DocumentInput['indServicio'],
    fechaVencimiento: body.fechaVencimiento,
    medioPago: body.medioPago as DocumentInput['medioPago'],
    terminosPago: body.terminosPago,
    terminosPagoDias: body.terminosPagoDias,
    pagos: body.pagos,
    indTraslado: body.indTraslado as DocumentInput['indTraslado'],
    tipoDespacho: body.tipoDespacho as DocumentInput['tipoDespacho'],
    transporte: body.transporte,
    exportacion: body.exportacion,
    comisiones: body.comisiones,
  };
  // A refusal of an issuer key the request overrides is the request's (400), not the tenant's (409).
  const overridden = (param: string) => {
    const k = /^emisor\.(\w+)$/.exec(param)?.[1];
    return k !== undefined && k in documentIssuer;
  };
  try {
    return { tenantProblem, prepared: prepareDte(input), unidadSii: unidadSii ?? tenant.emisor?.unidadSii ?? null };
  } catch (e) {
    throw engineErrorToAppError(e, overridden);
  }
}
