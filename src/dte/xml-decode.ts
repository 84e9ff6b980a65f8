/**
 * Turning foreign XML bytes into a JS string. SII files are ISO-8859-1 but often mis-declare it
 * (CAFs without an encoding attribute, real DTEs declared windows-1252). Rules:
 *  - declared UTF-8, or no declaration/encoding, and the bytes are valid UTF-8 with some non-ASCII
 *    → UTF-8 (a file re-saved by an editor);
 *  - declared windows-1252 → windows-1252;
 *  - otherwise → ISO-8859-1 (one byte per character; never fails).
 */
export type XmlEncoding = 'utf-8' | 'iso-8859-1' | 'windows-1252';

const DECL = /^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/;

export function declaredEncoding(bytes: Buffer): string | null {
  const head = bytes.subarray(0, 200).toString('latin1');
  const m = DECL.exec(head);
  return m?.[1]?.toLowerCase() ?? null;
}

function isValidUtf8WithNonAscii(bytes: Buffer): boolean {
  let nonAscii = false;
  for (const b of bytes) {
    if (b >= 0x80) {
      nonAscii = true;
      break;
    }
  }
  if (!nonAscii) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

export function detectEncoding(bytes: Buffer): XmlEncoding {
  const declared = declaredEncoding(bytes);
  if (declared === 'windows-1252' || declared === 'cp1252') return 'windows-1252';
  if ((declared === null || declared === 'utf-8' || declared === 'utf8') && isValidUtf8WithNonAscii(bytes)) return 'utf-8';
  if (declared === 'utf-8' || declared === 'utf8') {
    // Declared UTF-8 but not valid UTF-8 (or pure ASCII, where it does not matter): bytes win.
    return 'iso-8859-1';
  }
  return 'iso-8859-1';
}

export function decodeXml(bytes: Buffer, encoding: XmlEncoding = detectEncoding(bytes)): string {
  if (encoding === 'utf-8') return bytes.toString('utf8').replace(/^\uFEFF/, '');
  // WHATWG TextDecoder maps the "iso-8859-1" label to windows-1252; Buffer's latin1 is the real thing.
  if (encoding === 'windows-1252') return new TextDecoder('windows-1252').decode(bytes);
  return bytes.toString('latin1');
}

/** Decodes the five predefined entities and numeric character references of XML text. */
export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (_m, e: string) => {
    switch (e) {
      case 'amp':
        return '&';
      case 'lt':
        return '<';
      case 'gt':
        return '>';
      case 'quot':
        return '"';
      case 'apos':
        return "'";
      default:
        return String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    }
  });
}

/** Removes whitespace between tags: the SII's "flattened" form used for TED/CAF signatures. */
export function flattenXml(s: string): string {
  return s.trim().replace(/>\s+</g, '><');
}
