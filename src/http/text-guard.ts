import { errors } from '../errors.ts';
import { isMultipartBody } from './multipart.ts';

/**
 * What no field of any request may hold, checked once at the edge for every route, pages and
 * forms included (src/http/app.ts), before any schema, service or store sees the value
 * (docs/errors.md, "Text"):
 *  - NUL (U+0000): a PostgreSQL text column cannot store it; a request carrying one used to fail
 *    deep in the database with a 500 whose log printed the SQL parameters → 400 `invalid_character`;
 *  - a lone surrogate (U+D800–U+DFFF not in a pair) and the noncharacters U+FFFE and U+FFFF: not
 *    text at all. JSON can carry a lone surrogate ("\ud800"); the database driver would store it as
 *    U+FFFD (so what was stored is not what was sent), and a signed XML answer would carry
 *    `&#xD800;`, which no XML parser accepts → 400 `unsupported_character`, the code documents
 *    use for characters they cannot carry.
 * Everything else is the domain's business: text that goes into the SII's ISO-8859-1 XML follows
 * the engine's policy (src/dte/text-policy.ts, applied by `siiText` in src/lib/validate.ts);
 * other text (names of keys, webhook descriptions) is stored as sent.
 */
export interface BadCharacter {
  param: string;
  codePoint: number;
}

// A high surrogate not followed by a low one, a low one not preceded by a high one, U+FFFE, U+FFFF.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|[\uFFFE\uFFFF]/;

export function findUnstorable(value: unknown, param = ''): BadCharacter | undefined {
  if (typeof value === 'string') {
    const m = UNSTORABLE.exec(value);
    return m ? { param: param || '(body)', codePoint: m[0].charCodeAt(0) } : undefined;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findUnstorable(value[i], `${param}[${i}]`);
      if (hit) return hit;
    }
    return undefined;
  }
  if (value && typeof value === 'object' && !Buffer.isBuffer(value)) {
    for (const [k, v] of Object.entries(value)) {
      const hit = findUnstorable(k, param ? `${param}.${k}` : k) ?? findUnstorable(v, param ? `${param}.${k}` : k);
      if (hit) return hit;
    }
  }
  return undefined;
}

const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

export function refuseUnstorable(value: unknown, where: 'body' | 'query' | 'params' | 'form'): void {
  // A multipart body's fields (and file names) are named as the form names them.
  const values = isMultipartBody(value)
    ? { ...value.fields, ...Object.fromEntries(Object.entries(value.files).map(([k, f]) => [k, f.filename])) }
    : value;
  const hit = findUnstorable(values);
  if (hit === undefined) return;
  const { param, codePoint } = hit;
  const field = where === 'query' ? 'query parameter' : where === 'params' ? 'path parameter' : 'field';
  if (codePoint === 0)
    throw errors.invalid(
      'invalid_character',
      `The ${field} '${param}' contains a NUL character (U+0000), which no field accepts. Remove it.`,
      {
        param,
      },
    );
  const what = codePoint >= 0xd800 && codePoint <= 0xdfff ? `a lone surrogate (${hex(codePoint)})` : `the noncharacter ${hex(codePoint)}`;
  throw errors.invalid(
    'unsupported_character',
    `The ${field} '${param}' contains ${what}, which is not text and no field accepts: send well-formed UTF-8 text.`,
    { param, details: { codePoint } },
  );
}
