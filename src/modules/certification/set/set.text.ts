/**
 * The set's bytes into lines. The SII serves the file in ISO-8859-1 (docs/certification.md); a
 * user may have re-saved it as UTF-8, and one real set mixes CRLF and LF. An explicit charset
 * wins; otherwise bytes that are valid UTF-8 are UTF-8, anything else ISO-8859-1 (every byte is a
 * character there, so the decode never fails).
 */
const LATIN1 = /^(iso-?8859-1|latin-?1|l1|windows-1252|cp1252|us-ascii|ascii)$/i;
const UTF8 = /^utf-?8$/i;

export class UnsupportedCharsetError extends Error {
  readonly charset: string;
  constructor(charset: string) {
    super(`charset ${charset} is not one a test set comes in; send ISO-8859-1 or UTF-8.`);
    this.charset = charset;
  }
}

export function decodeSetText(input: string | Uint8Array, charset?: string): string {
  if (typeof input === 'string') return input.replace(/^\uFEFF/, '');
  const bytes = input;
  if (charset && !LATIN1.test(charset) && !UTF8.test(charset)) throw new UnsupportedCharsetError(charset);
  if (charset && LATIN1.test(charset)) return new TextDecoder('latin1').decode(bytes);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    if (charset) return new TextDecoder('utf-8').decode(bytes); // told UTF-8: replace what is broken, as asked.
    return new TextDecoder('latin1').decode(bytes);
  }
}

/**
 * Lines numbered as an editor shows them: split on LF only, carriage returns dropped wherever
 * they are (one real set has a line that is a CR followed by a tab).
 */
export function setLines(text: string): string[] {
  return text.split('\n').map((l) => l.replace(/\r/g, ''));
}

/** The cells of a line: tabs or runs of two or more spaces separate them (the SII aligns both ways). */
export function cellsOf(line: string): string[] {
  return line
    .split(/\t+| {2,}/)
    .map((c) => c.trim())
    .filter((c) => c !== '');
}
