import { DteEngineError } from './errors.ts';

/**
 * Text policy for every string written into SII XML (ISO-8859-1 documents):
 *  - TAB, LF, CR become a space (single-line fields; also keeps CR out of signed bytes, where a
 *    parser would normalise it and break the digest);
 *  - other C0 controls, DEL and C1 controls (U+0080–U+009F) are removed: not meaningful, and
 *    C0 controls are not allowed in XML 1.0 at all;
 *  - typographic characters a word processor or phone keyboard puts in (’ ‘ “ ” „ – — … and
 *    the Unicode spaces) become their Latin-1 equivalents (' " - ... and a space), as docs/decisions.md
 *    §11 asks: what was meant is kept, and the printed document shows what the XML holds;
 *  - any other character above U+00FF (emoji, €, ™, CJK…) is rejected with
 *    `unsupported_character` naming the field: it cannot be encoded in ISO-8859-1 and the SII
 *    rejects substitutes (ENV-3-0); guessing a replacement would change what the document says;
 *  - leading/trailing spaces are trimmed (inner runs kept, as the SII keeps "EMPRESA  LTDA");
 *  - required fields must be non-empty after this.
 * Lengths: see `cleanText` callers. Fields are rejected with `field_too_long` when longer than the
 * schema allows, except the ones passed with `truncate: true` (TED RSR/IT1, defined by the SII as
 * the first 40 characters; receiver/issuer giro, which the SII's own portal truncates).
 * Truncation counts characters (all ≤ U+00FF, one byte each), so it can never split a character.
 */
export interface CleanOptions {
  param: string;
  maxLength: number;
  required?: boolean;
  truncate?: boolean;
}

const WHITESPACE_CONTROLS = /[\t\n\r]/g;
const OTHER_CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
const OUTSIDE_LATIN1 = /[^\u0000-\u00FF]/u;
/** Printable Latin-1 only: nothing for the rules below to convert, remove or reject but the trim. */
const PRINTABLE_LATIN1 = /^[\u0020-\u007E\u00A0-\u00FF]*$/;

/** Typographic characters with an unambiguous Latin-1 equivalent (docs/decisions.md §11). */
const TYPOGRAPHIC: ReadonlyArray<[RegExp, string]> = [
  [/[\u2018\u2019\u201A\u201B\u2032]/g, "'"],
  [/[\u201C\u201D\u201E\u201F\u2033]/g, '"'],
  [/[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g, '-'],
  [/\u2026/g, '...'],
  [/[\u2000-\u200A\u202F\u205F\u3000]/g, ' '],
  [/[\u200B-\u200D\u2060\uFEFF]/g, ''],
];

/** Replaces typographic characters with their Latin-1 equivalents; everything else is kept. */
export function toLatin1Typography(value: string): string {
  if (!/[\u2000-\u206F\u2212\u3000\uFEFF]/.test(value)) return value;
  let s = value;
  for (const [re, to] of TYPOGRAPHIC) s = s.replace(re, to);
  return s;
}

export function cleanText(value: string | undefined | null, opts: CleanOptions & { required: true }): string;
export function cleanText(value: string | undefined | null, opts: CleanOptions): string | undefined;
export function cleanText(value: string | undefined | null, opts: CleanOptions): string | undefined {
  if (value === undefined || value === null) {
    if (opts.required) throw new DteEngineError('required_field', `${opts.param} is required`, opts.param);
    return undefined;
  }
  if (typeof value !== 'string') {
    throw new DteEngineError('invalid_field', `${opts.param} must be a string`, opts.param);
  }
  // Most text is already printable Latin-1: one test instead of the conversions (a document has
  // a few dozen fields, and this ran for each; docs/performance.md, "The engine").
  let s = PRINTABLE_LATIN1.test(value) ? value.trim() : latin1Text(value, opts.param);
  if (s.length > opts.maxLength) {
    if (!opts.truncate) {
      throw new DteEngineError(
        'field_too_long',
        `${opts.param} is ${s.length} characters long; the SII allows at most ${opts.maxLength}`,
        opts.param,
        { maxLength: opts.maxLength },
      );
    }
    s = s.slice(0, opts.maxLength).trimEnd();
  }
  if (s.length === 0) {
    if (opts.required) throw new DteEngineError('required_field', `${opts.param} must not be empty`, opts.param);
    return undefined;
  }
  return s;
}

/** The conversions and the refusal of the text policy, trimmed; the length rules come after. */
function latin1Text(value: string, param: string): string {
  const converted = toLatin1Typography(value);
  const bad = OUTSIDE_LATIN1.exec(converted);
  if (bad) {
    const cp = bad[0].codePointAt(0) ?? 0;
    throw new DteEngineError(
      'unsupported_character',
      `${param} contains the character "${bad[0]}" (U+${cp.toString(16).toUpperCase().padStart(4, '0')}), which the SII's ISO-8859-1 documents cannot carry: remove it or use a Latin-1 equivalent`,
      param,
      { character: bad[0], codePoint: cp },
    );
  }
  return converted.replace(WHITESPACE_CONTROLS, ' ').replace(OTHER_CONTROLS, '').trim();
}

/** True when every character can be written in an ISO-8859-1 document. */
export function isLatin1(s: string): boolean {
  return !OUTSIDE_LATIN1.test(s);
}
