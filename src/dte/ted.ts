import { sign } from 'node:crypto';
import { DteEngineError } from './errors.ts';
import type { Caf } from './caf.ts';
import { el } from './xml-escape.ts';
import { MAX_LENGTH } from './limits.ts';

/**
 * TED (Timbre Electrónico): DD with the document's key data and the CAF, signed with the CAF's
 * private key. FRMT = base64(RSA-SHA1(RSASK, DD)) where DD is the `<DD>…</DD>` element:
 *  - without namespace declarations (the TED is signed outside the SiiDte namespace),
 *  - flattened (no whitespace between tags),
 *  - canonical (double quotes, C14N escaping),
 *  - encoded in ISO-8859-1.
 * The document carries the TED cut into lines like every element (xml-lines.ts, as in the SII's
 * own example); the SII and every verifier flatten the DD before checking FRMT, and the flat TED
 * (`Ted.xml`, `tedBytes`) is what the PDF417 holds.
 *
 * RSR and IT1 are the first 40 characters of the receiver name and of the first item's name
 * (the SII's definition). We also drop `"` and `'` from these two copies: how the SII serialises
 * quotes before checking FRMT is not documented (LibreDTE signs them as `&quot;`/`&apos;`,
 * canonical XML keeps them literal), and without quotes every reading gives the same bytes.
 */
export interface TedInput {
  rutEmisor: string;
  tipoDte: number;
  folio: number;
  fechaEmision: string;
  rutReceptor: string;
  /** Receiver name, already cleaned by the text policy; RR is used when absent. */
  razonSocialReceptor: string | undefined;
  montoTotal: number;
  /** First item's name, already cleaned. */
  primerItem: string;
  /** TSTED, `AAAA-MM-DDTHH:MI:SS`. */
  timestamp: string;
  caf: Caf;
}

export interface Ted {
  /** `<TED version="1.0">…</TED>` flattened (the document embeds it cut into lines, dte-xml.ts). */
  xml: string;
  /** `<DD>…</DD>`, the signed text. */
  dd: string;
  frmt: string;
  /** The TED flattened in ISO-8859-1: the PDF417 payload of the printed document. */
  tedBytes: Buffer;
}

export function tedExcerpt(s: string | undefined, max: number): string | undefined {
  if (s === undefined) return undefined;
  const t = s.replace(/["']/g, '').trim().slice(0, max).trim();
  return t.length > 0 ? t : undefined;
}

export function checkCafForDocument(caf: Caf, rutEmisor: string, tipoDte: number, folio: number): void {
  if (caf.tipoDte !== tipoDte) {
    throw new DteEngineError('caf_type_mismatch', `The CAF authorizes document type ${caf.tipoDte}, not ${tipoDte}`, 'tipoDte');
  }
  if (caf.rutEmisor !== rutEmisor) {
    throw new DteEngineError('caf_rut_mismatch', `The CAF belongs to ${caf.rutEmisor}, not to the issuer ${rutEmisor}`, 'emisor.rut');
  }
  if (!Number.isSafeInteger(folio) || folio < caf.desde || folio > caf.hasta) {
    throw new DteEngineError('folio_out_of_range', `Folio ${folio} is outside the CAF range ${caf.desde}-${caf.hasta}`, 'folio');
  }
  if (!caf.privateKey) {
    throw new DteEngineError('caf_private_key_missing', 'The CAF has no private key (RSASK): it cannot stamp documents', 'caf');
  }
}

export function buildTed(input: TedInput): Ted {
  const { caf } = input;
  checkCafForDocument(caf, input.rutEmisor, input.tipoDte, input.folio);
  const rsr = tedExcerpt(input.razonSocialReceptor, MAX_LENGTH.tedRsr) ?? input.rutReceptor;
  const it1 = tedExcerpt(input.primerItem, MAX_LENGTH.tedIt1) ?? '-';
  const dd =
    '<DD>' +
    el('RE', input.rutEmisor) +
    el('TD', input.tipoDte) +
    el('F', input.folio) +
    el('FE', input.fechaEmision) +
    el('RR', input.rutReceptor) +
    el('RSR', rsr) +
    el('MNT', input.montoTotal) +
    el('IT1', it1) +
    caf.embeddedCaf +
    el('TSTED', input.timestamp) +
    '</DD>';
  const frmt = sign('sha1', Buffer.from(dd, 'latin1'), caf.privateKey as NonNullable<Caf['privateKey']>).toString('base64');
  return new StampedTed(`<TED version="1.0">${dd}<FRMT algoritmo="SHA1withRSA">${frmt}</FRMT></TED>`, dd, frmt);
}

/**
 * The PDF417 payload is wanted only when printing: encoded on first use, not on every issue. A
 * class rather than an object literal with a getter, which V8 builds slowly (in dictionary mode):
 * that literal cost more than the encoding it deferred (docs/performance.md, "The engine").
 */
class StampedTed implements Ted {
  readonly xml: string;
  readonly dd: string;
  readonly frmt: string;
  #tedBytes: Buffer | undefined;
  constructor(xml: string, dd: string, frmt: string) {
    this.xml = xml;
    this.dd = dd;
    this.frmt = frmt;
  }
  get tedBytes(): Buffer {
    return (this.#tedBytes ??= Buffer.from(this.xml, 'latin1'));
  }
}
