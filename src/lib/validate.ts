/**
 * Request values that several modules check the same way, with the same error codes. Each rule
 * lives here once; the facts behind them (calendar dates, document types) are the engine's.
 */
import { cleanText, isDteEngineError, isSupportedTipoDte, isValidDate, SUPPORTED_TIPOS_DTE, type TipoDte } from '../dte/index.ts';
import { errors } from '../errors.ts';

/** A real calendar date in YYYY-MM-DD form, from 2000 on (the SII's FechaType starts there). */
export function requireDate(value: string, param: string): string {
  if (typeof value !== 'string' || !isValidDate(value) || value < '2000-01-01')
    throw errors.invalid('invalid_date', `${param} '${value}' is not a valid date in YYYY-MM-DD form.`, { param });
  return value;
}

/** A document type code this service issues (path parameters arrive as text). */
export function parseTipoDte(value: unknown, param = 'tipoDte'): TipoDte {
  const n = typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n))
    throw errors.invalid('invalid_tipo_dte', `${param} must be a document type code such as 33.`, { param });
  if (!isSupportedTipoDte(n))
    throw errors.unprocessable(
      'unsupported_tipo_dte',
      `Document type ${n} is not supported. Use ${SUPPORTED_TIPOS_DTE.slice(0, -1).join(', ')} or ${SUPPORTED_TIPOS_DTE.at(-1)}.`,
      { param },
    );
  return n;
}

/**
 * Text that will be written into the SII's ISO-8859-1 XML (a tenant's identity and issuer data, an
 * acceptance's glosa and recinto), cleaned by the engine's own text policy (src/dte/text-policy.ts)
 * before it is stored or signed, so that what is stored is what documents carry and a value the
 * engine would refuse later is refused now, naming the field: typographic characters become their
 * Latin-1 equivalents, tabs and line breaks a space, other control characters are removed, the
 * result is trimmed; a character outside ISO-8859-1 → 400 `unsupported_character`, too long after
 * cleaning → 400 `field_too_long` (unless `truncate`), blank → 400 `required_field` (POST …/dte
 * answers the same codes for its own fields; docs/errors.md, "Text").
 */
export function siiText(value: string, opts: { param: string; maxLength: number; truncate?: boolean }): string;
export function siiText(
  value: string | undefined,
  opts: { param: string; maxLength: number; truncate?: boolean; optional: true },
): string | undefined;
export function siiText(
  value: string | undefined,
  opts: { param: string; maxLength: number; truncate?: boolean; optional?: boolean },
): string | undefined {
  try {
    return cleanText(value, { param: opts.param, maxLength: opts.maxLength, truncate: opts.truncate ?? false, required: !opts.optional });
  } catch (e) {
    if (!isDteEngineError(e)) throw e;
    throw errors.invalid(e.code, e.message.endsWith('.') ? e.message : `${e.message}.`, {
      param: opts.param,
      ...(e.details ? { details: e.details } : {}),
    });
  }
}
