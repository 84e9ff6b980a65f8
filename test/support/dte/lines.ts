import { expect } from 'vitest';

/**
 * Test-only: the shape src/dte/xml-lines.ts promises for every XML we sign — no line over 4,090
 * characters (the SII refuses the file) and at most one element per line.
 */
export const SII_MAX_LINE = 4090;

/**
 * The text with the line feeds between tags removed (the one after the XML declaration kept): for
 * assertions about content, not layout.
 */
export function flatXml(xml: Buffer | string): string {
  return (typeof xml === 'string' ? xml : xml.toString('latin1')).replace(/([^?])>\n</g, '$1><');
}

// A line is the declaration, one start tag, one end tag, one element with its text, or a run of
// wrapped base64 (the last one with the element's end tag).
const ONE_ELEMENT =
  /^(?:<\?xml [^>]*\?>|<[A-Za-z][^<>]*>|<\/[A-Za-z][^<>]*>|<([A-Za-z][\w.:-]*)(?: [^<>]*)?>[^<>]*<\/\1>|<[A-Za-z][^<>]*>[A-Za-z0-9+/=]+|[A-Za-z0-9+/=]+(?:<\/[A-Za-z][^<>]*>)?)$/;

export function expectOneElementPerLine(xml: Buffer | string): void {
  const lines = (typeof xml === 'string' ? xml : xml.toString('latin1')).split('\n');
  const longest = Math.max(...lines.map((l) => l.length));
  expect(longest, 'longest line').toBeLessThanOrEqual(SII_MAX_LINE);
  const crowded = lines.filter((l) => !ONE_ELEMENT.test(l));
  expect(crowded, 'lines holding more than one element').toEqual([]);
}
