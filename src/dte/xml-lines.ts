/**
 * One element per line, as in the SII's own example envelope (`F60T33-ejemplo-oficial-SII.xml`).
 *
 * Why: the SII's upload parser reads a file line by line and refuses the whole file when any line
 * is longer than 4,090 characters ("CHR-00002: Line too long (4090)"; a one-line envelope gets
 * "SCH-00001 Invalid Schema Name"). A factura of about eight lines written on one line already
 * crosses it, and so does any envelope of several documents (docs/dte.md, "Lines").
 *
 * How, without breaking signatures: the line breaks are written *before* anything is digested, so
 * they are part of the signed text (C14N keeps whitespace text nodes; the schemas allow it between
 * elements). Only whitespace between two tags is added, never inside a text value, and never in
 * an empty element (`<A></A>` stays as it is: a newline there would become its value). The TED's
 * DD is still signed flattened (ted.ts), as the SII and every verifier flatten it before checking
 * FRMT. Base64 values are wrapped at 64 columns where they are written (xmldsig.ts).
 */
export const MAX_XML_LINE = 4090;

/**
 * Inserts a line feed between `>` and `<` wherever that adds a whitespace-only text node between
 * two elements: before every start tag, and between two end tags. Input: our own canonical XML
 * (text never holds a literal `<` or `>`: escapeText writes `&lt;`/`&gt;`). Idempotent.
 */
export function breakLines(xml: string): string {
  let out = '';
  let from = 0;
  for (let i = xml.indexOf('><'); i !== -1; i = xml.indexOf('><', i + 2)) {
    // `</` after a start tag closes an empty element: leave `<A></A>` alone.
    if (xml.charCodeAt(i + 2) === 0x2f && xml.charCodeAt(xml.lastIndexOf('<', i) + 1) !== 0x2f) continue;
    out += xml.slice(from, i + 1) + '\n';
    from = i + 1;
  }
  return from === 0 ? xml : out + xml.slice(from);
}

/** The length of the longest line of `bytes` (split at LF), in bytes: what the SII's parser counts. */
export function longestLine(bytes: Buffer | string): number {
  const b = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes;
  let longest = 0;
  let start = 0;
  for (let i = b.indexOf(0x0a); i !== -1; i = b.indexOf(0x0a, i + 1)) {
    longest = Math.max(longest, i - start);
    start = i + 1;
  }
  return Math.max(longest, b.length - start);
}
