import type { Static } from '@sinclair/typebox';
import {
  checkAmounts,
  DteEngineError,
  isDteEngineError,
  MAX_DETALLE_LINES,
  siiDate,
  toSiiRut,
  tryParseRut,
  type DteInput,
  type TipoDte,
} from '../../dte/index.ts';
// The engine's first pipeline step, used here as a dry run: not in its public index.
import { normalizeDte } from '../../dte/normalize.ts';
import { errors, type AppError } from '../../errors.ts';
import type { TenantRow } from '../tenants/index.ts';
import { parseTipoDte } from '../../lib/validate.ts';
import type { CreateDteBody } from './dte.schemas.ts';
import type { StoredLine, StoredReceptor, StoredReferencia } from './dte.store.ts';

/**
 * The create request, checked in the order a client can act on it, every failure a 4xx with its
 * own code and the field it names (decisions §7). All of this runs before a folio is reserved,
 * so bad input never costs a folio.
 */
export type CreateDte = Static<typeof CreateDteBody>;

export interface CheckedCreate {
  /** A problem with the tenant's own data, to report once the tenant is known to be ready. */
  tenantProblem: AppError | undefined;
  tipoDte: TipoDte;
  fechaEmision: string;
  /** The engine input, without the folio. */
  input: Omit<DteInput, 'folio'>;
  receptor: StoredReceptor;
  detalle: StoredLine[];
  referencias: StoredReferencia[];
}

const isBoleta = (t: number) => t === 39 || t === 41;

// Engine codes that are business rules (422); the rest are malformed values (400).
const BUSINESS_CODES = new Set(['amount_mismatch', 'unsupported_tipo_dte', 'all_lines_exempt', 'references_required', 'amount_too_large']);

/** Turns an engine error about the request into the API's error. */
export function engineErrorToAppError(e: unknown): unknown {
  if (!isDteEngineError(e)) return e;
  const param = e.param;
  if (param?.startsWith('emisor')) {
    if (e.code === 'invalid_acteco')
      return errors.conflict(
        'tenant_acteco_missing',
        'This document type needs the tenant\'s economic activity codes (acteco). Set them with PATCH /api/v1/tenants/{tenantId} {"acteco": [620200]}.',
        { param: 'acteco' },
      );
    return errors.conflict(
      'tenant_data_invalid',
      `The tenant's data cannot go into a DTE: ${e.message}. Fix it with PATCH /api/v1/tenants/{tenantId}.`,
    );
  }
  const opts = { ...(param ? { param } : {}), ...(e.details ? { details: e.details } : {}) };
  return BUSINESS_CODES.has(e.code) ? errors.unprocessable(e.code, e.message, opts) : errors.invalid(e.code, e.message, opts);
}

export function emisorFor(tenant: TenantRow): DteInput['emisor'] {
  return {
    rut: tenant.rut_empresa,
    razonSocial: tenant.razon_social,
    giro: tenant.giro,
    acteco: tenant.acteco,
    direccion: tenant.direccion,
    comuna: tenant.comuna,
    ciudad: tenant.ciudad,
  };
}

export function checkCreate(body: CreateDte, tenant: TenantRow, now: Date): CheckedCreate {
  const tipoDte = parseTipoDte(body.tipoDte) as TipoDte;
  const boleta = isBoleta(tipoDte);

  const today = siiDate(now);
  const fechaEmision = body.fechaEmision ?? today;
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(fechaEmision) ||
    Number.isNaN(Date.parse(`${fechaEmision}T00:00:00Z`)) ||
    new Date(`${fechaEmision}T00:00:00Z`).toISOString().slice(0, 10) !== fechaEmision
  )
    throw errors.invalid('invalid_date', `fechaEmision '${fechaEmision}' is not a valid date in YYYY-MM-DD form.`, {
      param: 'fechaEmision',
    });
  if (fechaEmision > today)
    throw errors.invalid('invalid_date', `fechaEmision ${fechaEmision} is in the future; today in Chile is ${today}.`, {
      param: 'fechaEmision',
    });

  const r = body.receptor;
  if (!r && !boleta)
    throw errors.invalid('required_field', `receptor (with rut and razonSocial) is required for document type ${tipoDte}.`, {
      param: 'receptor',
    });
  if (r) {
    if (!tryParseRut(r.rut.trim()))
      throw errors.invalid('invalid_rut', `receptor.rut '${r.rut}' is not a valid RUT: write it with its check digit, like 76.123.456-7.`, {
        param: 'receptor.rut',
      });
    if (!boleta && !r.razonSocial?.trim())
      throw errors.invalid('required_field', `receptor.razonSocial is required for document type ${tipoDte}.`, {
        param: 'receptor.razonSocial',
      });
  }
  if (!boleta && body.detalle.length > MAX_DETALLE_LINES)
    throw errors.invalid(
      'too_many_lines',
      `detalle has ${body.detalle.length} lines; a document of type ${tipoDte} may have at most ${MAX_DETALLE_LINES} (boletas 1000).`,
      {
        param: 'detalle',
      },
    );
  if ((tipoDte === 56 || tipoDte === 61) && !body.referencias?.length)
    throw errors.unprocessable(
      'references_required',
      `Document type ${tipoDte} must reference the document it modifies: add referencias.`,
      { param: 'referencias' },
    );

  const mismatches = checkAmounts(tipoDte, body.detalle, body.montoTotal);
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

  const input: Omit<DteInput, 'folio'> = {
    tipoDte,
    fechaEmision,
    emisor: emisorFor(tenant),
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
        }
      : undefined,
    detalle: body.detalle.map((d) => ({
      nombre: d.nombre,
      cantidad: d.cantidad,
      precioUnitario: d.precioUnitario,
      montoItem: d.montoItem,
      exento: d.exento,
      unidad: d.unidad,
      descripcion: d.descripcion,
    })),
    referencias: body.referencias?.map((x) => ({ ...x })),
    formaPago: boleta ? undefined : body.formaPago,
    montoTotal: body.montoTotal,
  };
  // Everything else the engine checks (text policy, lengths, references), as a dry run with a
  // placeholder folio: the real folio changes nothing it validates. A tenant without activity
  // codes is the tenant's problem, not the request's: it is reported after readiness (see
  // `tenantProblem`), so the dry run borrows a placeholder code to check the rest.
  const needsActeco = !boleta;
  const tenantProblem =
    needsActeco && tenant.acteco.length === 0
      ? (engineErrorToAppError(new DteEngineError('invalid_acteco', 'no activity codes', 'emisor.acteco')) as AppError)
      : undefined;
  let normalized;
  try {
    normalized = normalizeDte({ ...input, folio: 1, emisor: { ...input.emisor, acteco: tenantProblem ? [100000] : input.emisor.acteco } });
  } catch (e) {
    throw engineErrorToAppError(e);
  }
  return {
    tenantProblem,
    tipoDte,
    fechaEmision,
    input,
    receptor: {
      rut: toSiiRut(normalized.receptor.rut),
      razonSocial: normalized.receptor.razonSocial ?? null,
      giro: normalized.receptor.giro ?? null,
      direccion: normalized.receptor.direccion ?? null,
      comuna: normalized.receptor.comuna ?? null,
      ciudad: normalized.receptor.ciudad ?? null,
    },
    detalle: normalized.detalle.map((d, i) => ({
      nombre: d.nombre,
      cantidad: body.detalle[i]!.cantidad,
      precioUnitario: body.detalle[i]!.precioUnitario,
      montoItem: d.montoItem,
      exento: d.exento,
      unidad: d.unidad ?? null,
      descripcion: d.descripcion ?? null,
    })),
    referencias: normalized.referencias.map((x) => ({
      tipoDocRef: x.tipoDocRef,
      folioRef: x.folioRef,
      fechaRef: x.fechaRef,
      codRef: x.codRef ?? null,
      razonRef: x.razonRef ?? null,
    })),
  };
}
