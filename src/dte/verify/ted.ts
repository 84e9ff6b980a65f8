import { verify as rsaVerify } from 'node:crypto';
import type { Element } from '@xmldom/xmldom';
import { canonicalize, childText, firstChild } from '../c14n.ts';
import { flattenXml } from '../xml-decode.ts';
import { parseCafBlock, verifyCaf } from '../caf.ts';
import type { Caf } from '../caf.ts';
import { siiDate } from '../dates.ts';
import { DteEngineError } from '../errors.ts';
import { issue } from './types.ts';
import type { DteVerification, VerifyOptions } from './types.ts';

/**
 * The TED level: FRMT over the flattened ISO-8859-1 DD with the CAF key in the DD, the DD's data
 * against the document's, then the CAF itself (FRMA with the SII key of its IDK, issuer and type,
 * folio range, expiry).
 */
function latin1Bytes(s: string): Buffer | null {
  return /[^\u0000-\u00FF]/.test(s) ? null : Buffer.from(s, 'latin1');
}

export function verifyTed(documento: Element, source: string, out: DteVerification, opts: VerifyOptions): void {
  const ted = firstChild(documento, 'TED');
  const dd = ted ? firstChild(ted, 'DD') : undefined;
  const frmtText = ted ? firstChild(ted, 'FRMT')?.textContent : undefined;
  const rawDd = /<DD>[\s\S]*?<\/DD>/.exec(source)?.[0];
  if (!ted || !dd || !frmtText || !rawDd) {
    out.errors.push(issue('TED-3-510', 'ted_missing', 'The document has no complete TED (DD and FRMT)'));
    return;
  }
  const rawCaf = /<CAF(?:\s[^>]*)?>[\s\S]*?<\/CAF>/.exec(rawDd)?.[0];
  let caf: Caf | null = null;
  try {
    if (!rawCaf) throw new DteEngineError('caf_invalid', 'no CAF');
    caf = parseCafBlock(rawCaf);
  } catch (e) {
    out.errors.push(issue('CAF-3-516', 'caf_invalid', `The CAF inside the TED cannot be read: ${(e as Error).message}`));
  }
  // FRMT: over the raw flattened DD (what signers sign), else over its canonical form.
  if (caf) {
    const frmt = Buffer.from(frmtText.replace(/\s+/g, ''), 'base64');
    const candidates = [flattenXml(rawDd), flattenXml(canonicalize(dd, { ignoreAncestors: true }))];
    const ok = candidates.some((c) => {
      const b = latin1Bytes(c);
      try {
        return b !== null && rsaVerify('sha1', b, caf.publicKeyObject, frmt);
      } catch {
        return false;
      }
    });
    if (!ok)
      out.errors.push(
        issue('TED-3-510', 'ted_signature', 'The TED signature (FRMT) does not verify with the CAF key: the stamped data was altered'),
      );
  }
  // TED data must be the document's.
  const pairs: [string, string | null, string | number | null][] = [
    ['RE', childText(dd, ['RE']) ?? null, out.rutEmisor],
    ['TD', childText(dd, ['TD']) ?? null, out.tipoDte],
    ['F', childText(dd, ['F']) ?? null, out.folio],
    ['FE', childText(dd, ['FE']) ?? null, out.fechaEmision],
    ['RR', childText(dd, ['RR']) ?? null, out.rutReceptor],
    ['MNT', childText(dd, ['MNT']) ?? null, out.montoTotal],
  ];
  for (const [name, tedValue, docValue] of pairs) {
    const same = name === 'MNT' ? tedValue !== null && Number(tedValue) === docValue : tedValue === String(docValue);
    if (tedValue === null || docValue === null || !same) {
      out.errors.push(issue('TED-3-511', 'ted_data', `TED ${name} (${String(tedValue)}) differs from the document (${String(docValue)})`));
    }
  }
  if (!caf) return;
  out.caf = { idk: caf.idk, desde: caf.desde, hasta: caf.hasta, vencimiento: caf.vencimiento };
  const cv = verifyCaf(caf, opts.siiKeys);
  for (const e of cv.errors) out.errors.push(issue('CAF-3-516', e.code === 'unknown_idk' ? 'caf_unknown_idk' : 'caf_signature', e.message));
  if (out.tipoDte !== null && caf.tipoDte !== out.tipoDte) {
    out.errors.push(issue('CAF-3-519', 'caf_type_mismatch', `The CAF authorizes type ${caf.tipoDte}, the document is type ${out.tipoDte}`));
  }
  if (out.rutEmisor !== null && caf.rutEmisor !== out.rutEmisor) {
    out.errors.push(issue('CAF-3-519', 'caf_rut_mismatch', `The CAF belongs to ${caf.rutEmisor}, the document to ${out.rutEmisor}`));
  }
  if (out.folio !== null && (out.folio < caf.desde || out.folio > caf.hasta)) {
    out.errors.push(issue('CAF-3-518', 'folio_out_of_range', `Folio ${out.folio} is outside the CAF range ${caf.desde}-${caf.hasta}`));
  }
  if (caf.vencimiento !== null) {
    const fe = out.fechaEmision;
    const today = opts.now ? siiDate(opts.now) : null;
    if ((fe !== null && fe >= caf.vencimiento) || (today !== null && today >= caf.vencimiento)) {
      out.errors.push(issue('CAF-3-517', 'caf_expired', `The CAF expired on ${caf.vencimiento}`));
    }
  }
}
