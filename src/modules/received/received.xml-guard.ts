import { errors } from '../../errors.ts';

/**
 * Hostile XML is the normal case for uploads from outside (docs/received.md, "Limits"). Before any
 * parser sees the bytes, this scan refuses what no SII document needs and what parsers can be
 * turned against us with:
 *  - any DTD (`<!DOCTYPE`), which is where external entities (XXE: files, URLs) and entity
 *    expansion ("billion laughs") are declared — the engine's parser (@xmldom/xmldom) and the
 *    schema validator (libxml2) are then never asked to process one;
 *  - encodings the engine does not read (UTF-16/32: NUL bytes or their byte-order marks), which
 *    would also hide markup from this scan;
 *  - nesting deeper than MAX_DEPTH (SII documents nest about 10 levels; the verifier's
 *    canonicalisation recurses per level);
 *  - `<DTE` hidden in comments or CDATA: the verifier cuts DTEs out of the raw text, so the raw
 *    count must equal the count of real DTE elements.
 * The scan is linear and allocation-free apart from the text view of the bytes.
 */
export const MAX_DEPTH = 32;

const param = 'body';

const refuse = (code: string, message: string) => errors.invalid(code, message, { param });

export interface GuardResult {
  /** Real `<DTE>` start tags (outside comments, CDATA and processing instructions). */
  dteElements: number;
}

function refuseDtd(text: string, at: number): never {
  const rest = text.slice(at);
  const head = /^<!DOCTYPE\s+[^\s[>]+\s*(SYSTEM|PUBLIC)\b/i.test(rest);
  if (head || /<!ENTITY\s+(?:%\s*)?[^\s>]+\s+(?:SYSTEM|PUBLIC)\b/i.test(rest))
    throw refuse(
      'xml_external_entity_forbidden',
      'The document declares an external entity or DTD (SYSTEM/PUBLIC). Uploads may not reference files or URLs; send the EnvioDTE without a DOCTYPE.',
    );
  if (/<!ENTITY\b/i.test(rest))
    throw refuse(
      'xml_entity_expansion_forbidden',
      'The document declares entities in a DTD. Entity declarations are refused (they can expand without bound); send the EnvioDTE without a DOCTYPE.',
    );
  throw refuse('xml_doctype_forbidden', 'The document has a DOCTYPE. SII documents have none; send the EnvioDTE without it.');
}

/** Throws a 400 AppError with the code of the first problem found; see the codes in docs/received.md. */
export function guardXml(body: Buffer): GuardResult {
  if (body.length === 0) throw refuse('xml_malformed', 'The body is empty: send the EnvioDTE XML itself.');
  if (
    body.includes(0) ||
    (body[0] === 0xfe && body[1] === 0xff) ||
    (body[0] === 0xff && body[1] === 0xfe) ||
    (body[0] === 0x00 && body[1] === 0x00)
  )
    throw refuse(
      'xml_encoding_unsupported',
      'The document is not in an ASCII-compatible encoding (it has NUL bytes or a UTF-16/32 byte-order mark). Send it as ISO-8859-1 (as the SII requires) or UTF-8.',
    );
  // Markup is ASCII in every encoding accepted here, so a one-byte-per-character view is enough.
  const text = body.toString('latin1');
  let depth = 0;
  let dteElements = 0;
  let i = text.indexOf('<');
  while (i >= 0) {
    if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end < 0) throw refuse('xml_malformed', 'The document has an unterminated comment.');
      i = text.indexOf('<', end + 3);
      continue;
    }
    if (text.startsWith('<![CDATA[', i)) {
      const end = text.indexOf(']]>', i + 9);
      if (end < 0) throw refuse('xml_malformed', 'The document has an unterminated CDATA section.');
      i = text.indexOf('<', end + 3);
      continue;
    }
    if (text.startsWith('<!', i)) {
      if (/^<!DOCTYPE/i.test(text.slice(i, i + 9))) refuseDtd(text, i);
      if (/^<!ENTITY/i.test(text.slice(i, i + 8))) refuseDtd(text, i);
      throw refuse('xml_malformed', 'The document has a markup declaration (<!…>) that SII documents never have.');
    }
    if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i + 2);
      if (end < 0) throw refuse('xml_malformed', 'The document has an unterminated processing instruction.');
      i = text.indexOf('<', end + 2);
      continue;
    }
    // A tag: find its end outside quoted attribute values.
    let j = i + 1;
    let quote = '';
    for (; j < text.length; j++) {
      const c = text[j];
      if (quote) {
        if (c === quote) quote = '';
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '>') break;
    }
    if (j >= text.length) throw refuse('xml_malformed', 'The document ends inside a tag.');
    if (text[i + 1] === '/') depth--;
    else if (text[j - 1] !== '/') {
      depth++;
      if (depth > MAX_DEPTH)
        throw refuse('xml_too_deep', `The document nests elements more than ${MAX_DEPTH} levels deep; SII documents nest about 10.`);
    }
    if (/^<DTE[\s/>]/.test(text.slice(i, i + 5))) dteElements++;
    i = text.indexOf('<', j + 1);
  }
  const rawDtes = text.match(/<DTE[\s>]/g)?.length ?? 0;
  if (rawDtes !== dteElements)
    throw refuse(
      'xml_malformed',
      'The document has <DTE inside a comment, CDATA section or processing instruction; send the envelope without it.',
    );
  return { dteElements };
}
