import { errors } from '../errors.ts';
import { isMultipartBody } from './multipart.ts';

/**
 * NUL (U+0000) cannot be stored in a PostgreSQL text column: a request carrying one used to fail
 * deep in the database with a 500, whose log then printed the SQL parameters. Every request value
 * is checked once at the edge instead (src/http/app.ts): a 400 `invalid_character` naming the
 * field. Other control characters are stored or cleaned where the domain says so (the DTE engine's
 * text policy).
 */
export function findNul(value: unknown, param = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\0') ? param || '(body)' : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findNul(value[i], `${param}[${i}]`);
      if (hit) return hit;
    }
    return undefined;
  }
  if (value && typeof value === 'object' && !Buffer.isBuffer(value)) {
    for (const [k, v] of Object.entries(value)) {
      const hit = findNul(k, param ? `${param}.${k}` : k) ?? findNul(v, param ? `${param}.${k}` : k);
      if (hit) return hit;
    }
  }
  return undefined;
}

export function refuseNul(value: unknown, where: 'body' | 'query' | 'params' | 'form'): void {
  // A multipart body's fields (and file names) are named as the form names them.
  const values = isMultipartBody(value)
    ? { ...value.fields, ...Object.fromEntries(Object.entries(value.files).map(([k, f]) => [k, f.filename])) }
    : value;
  const param = findNul(values);
  if (param === undefined) return;
  const field = where === 'query' ? 'query parameter' : where === 'params' ? 'path parameter' : 'field';
  throw errors.invalid(
    'invalid_character',
    `The ${field} '${param}' contains a NUL character (U+0000), which no field accepts. Remove it.`,
    {
      param,
    },
  );
}
