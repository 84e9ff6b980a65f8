import { decodeXml } from '../xml-decode.ts';
import type { XmlEncoding } from '../xml-decode.ts';
import { formatRutSii, tryParseRut } from '../rut.ts';

/** Reading values out of foreign documents: anything unreadable is null, never an exception. */
export function numberOrNull(s: string | undefined): number | null {
  if (s === undefined || s === '' || !/^\d+$/.test(s)) return null;
  return Number(s);
}

/** An amount: integer or decimal, negative allowed (a 43 may total below zero; exports carry decimals). */
export function amountOrNull(s: string | undefined): number | null {
  if (s === undefined || !/^-?\d+(\.\d+)?$/.test(s)) return null;
  return Number(s);
}

export function siiRutOrNull(s: string | undefined): string | null {
  const r = s ? tryParseRut(s) : null;
  return r ? formatRutSii(r) : null;
}

export function sourceText(bytes: Buffer, encoding: XmlEncoding): string {
  // Byte-faithful view for signatures over raw bytes (TED, CAF): one char per byte unless UTF-8.
  return encoding === 'utf-8' ? decodeXml(bytes, 'utf-8') : bytes.toString('latin1');
}
