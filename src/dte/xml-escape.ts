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
  // A scan, not replace() with a callback: about half the time on the strings that need it.
  let out = '';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const e = c === 0x26 ? '&amp;' : c === 0x3c ? '&lt;' : c === 0x3e ? '&gt;' : c === 0x0d ? '&#xD;' : undefined;
    if (e !== undefined) {
      out += s.slice(from, i) + e;
      from = i + 1;
    }
  }
  return out + s.slice(from);
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

// Start and end tags by element name, made once. Writing `<${name}>…</${name}>` afresh made five
// short strings per element, and their concatenation nodes were much of what digesting a document
// has to walk (docs/performance.md, "The engine"). Names come from the code: a bounded set.
const TAGS = new Map<string, readonly [string, string]>();
const MAX_CACHED_TAGS = 1024;

function tagsOf(name: string): readonly [string, string] {
  let t = TAGS.get(name);
  if (t === undefined) {
    t = [`<${name}>`, `</${name}>`];
    if (TAGS.size < MAX_CACHED_TAGS) TAGS.set(name, t);
  }
  return t;
}

/** `<name>escaped text</name>` — canonical form (no self-closing tags). */
export function el(name: string, text: string | number): string {
  const tags = tagsOf(name);
  return tags[0] + (typeof text === 'number' ? String(text) : escapeText(text)) + tags[1];
}
