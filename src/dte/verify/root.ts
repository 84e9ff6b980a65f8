import type { Element } from '@xmldom/xmldom';
import { parseXml } from '../c14n.ts';
import { decodeXml, detectEncoding, type XmlEncoding } from '../xml-decode.ts';
import { issue, type SchemaKind, type SchemaValidator, type VerificationIssue } from './types.ts';

/**
 * The first step of every verification (a DTE, an envelope, a book): the bytes decoded in their
 * declared encoding and parsed, and the root element one of `names`. Otherwise the reason is added
 * to `errors` under the SII's code for the level (`code`) and the root is null.
 */
export function readRoot<N extends string>(
  bytes: Buffer,
  names: readonly N[],
  code: string,
  notIt: { check: string; message: string },
  errors: VerificationIssue[],
): { root: Element | null; name: N | null; encoding: XmlEncoding } {
  const encoding = detectEncoding(bytes);
  let root: Element | null;
  try {
    root = parseXml(decodeXml(bytes, encoding)).documentElement;
  } catch (e) {
    errors.push(issue(code, 'xml_malformed', (e as Error).message));
    return { root: null, name: null, encoding };
  }
  const name = names.find((n) => n === root?.localName);
  if (!root || name === undefined) {
    errors.push(issue(code, notIt.check, notIt.message));
    return { root: null, name: null, encoding };
  }
  return { root, name, encoding };
}

/**
 * The schema step every verification ends with when a validator is given: a file the schema refuses
 * is invalid, its first reasons first among the errors (code RSC, as the SII reports it).
 */
export async function checkSchema(
  out: { valid: boolean; errors: VerificationIssue[] },
  bytes: Buffer,
  kind: SchemaKind,
  validator: SchemaValidator,
): Promise<void> {
  const r = await validator(bytes, kind);
  if (r.valid) return;
  out.errors.unshift(issue('RSC', 'schema', `Not valid against the SII schema: ${r.errors.slice(0, 3).join('; ')}`));
  out.valid = false;
}
