/**
 * Small readers over a DTE's XML text, for the emulator's review (review.ts, rules/*). The SII's
 * documents use no prefixes on their own elements, so a tag name is enough; a reader that cannot
 * find or read a value answers undefined/null and the rule that needed it judges nothing.
 */

/** The trimmed text of the first `<name>` element (or undefined). */
export const text = (s: string, name: string): string | undefined => {
  const m = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`).exec(s);
  return m ? m[1]!.trim() : undefined;
};

/** The contents of every `<name>` element, in document order (elements of that name must not nest). */
export const blocks = (s: string, name: string): string[] =>
  [...s.matchAll(new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`, 'g'))].map((m) => m[1]!);

/** A whole number or decimal as a JS number (or null). */
export const num = (s: string | undefined): number | null => (s !== undefined && /^-?\d+(\.\d+)?$/.test(s) ? Number(s) : null);

export const decode = (s: string): string =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/**
 * The element under `<DTE>` that holds the document: `Documento` (33, 34, 46, 52, 56, 61 and the
 * boletas 39/41), `Liquidacion` (43) or `Exportaciones` (110, 111, 112) [XSD-DTE; docs/sources.md §1].
 */
export type DocumentRoot = 'Documento' | 'Liquidacion' | 'Exportaciones';

export function documentRoot(dte: string): DocumentRoot | null {
  const m = /<(Documento|Liquidacion|Exportaciones)[\s>]/.exec(dte);
  return m ? (m[1] as DocumentRoot) : null;
}
