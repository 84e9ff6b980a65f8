/**
 * Request values that several modules check the same way, with the same error codes. Each rule
 * lives here once; the facts behind them (calendar dates, document types) are the engine's.
 */
import { isSupportedTipoDte, isValidDate, SUPPORTED_TIPOS_DTE, type TipoDte } from '../dte/index.ts';
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
