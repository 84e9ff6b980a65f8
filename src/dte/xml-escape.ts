/**
 * Escaping exactly as Canonical XML 1.0 writes character data, so that the text we emit is already
 * in canonical form and can be digested without re-parsing (see xmldsig.ts):
 *  - text: `&` → `&amp;`, `<` → `&lt;`, `>` → `&gt;` (and `\r` → `&#xD;`, never reached: the text
 *    policy strips CR);
 *  - quotes stay literal in text. The bytes we sign for the TED are the bytes we embed, and a
 *    verifier that re-canonicalises gets literal quotes too, so both kinds of verifier agree.
 *    (LibreDTE writes `&quot;`/`&apos;` in text, which only its own verifier reproduces; we avoid
 *    the question in the TED by removing quotes from RSR/IT1, see ted.ts.)
 */
export function escapeText(s: string): string {
  if (!/[&<>\r]/.test(s)) return s;
  return s.replace(/[&<>\r]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&#xD;'));
}

/** Attribute values in canonical form (double-quoted): `&`, `<`, `"`, TAB, LF, CR. */
export function escapeAttr(s: string): string {
  if (!/[&<"\t\n\r]/.test(s)) return s;
  return s.replace(/[&<"\t\n\r]/g, (c) => {
    switch (c) {
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      case '"':
        return '&quot;';
      case '\t':
        return '&#x9;';
      case '\n':
        return '&#xA;';
      default:
        return '&#xD;';
    }
  });
}

/** `<name>escaped text</name>` — canonical form (no self-closing tags). */
export function el(name: string, text: string | number): string {
  return `<${name}>${typeof text === 'number' ? String(text) : escapeText(text)}</${name}>`;
}
