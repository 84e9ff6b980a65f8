import { X509Certificate } from 'node:crypto';
import { DteEngineError } from './errors.ts';
import { tryParseRut, formatRutSii } from './rut.ts';

/**
 * The certificate holder's RUT, as the SII reads it for `Caratula/RutEnvia`: the subjectAltName
 * otherName with type-id 1.3.6.1.4.1.8321.1 (IA5String or UTF8String, often zero-padded like
 * "07880442-4"). Only the SAN extension (2.5.29.17) counts: the issuerAltName carries the CA's RUT
 * under the sibling OID …8321.2.
 */
export const OID_SII_RUT = '1.3.6.1.4.1.8321.1';
const OID_SAN = '2.5.29.17';

interface Tlv {
  tag: number;
  start: number; // first content byte
  end: number; // one past last content byte
  next: number; // offset of the following TLV
}

function readTlv(buf: Buffer, off: number): Tlv {
  if (off + 2 > buf.length) throw new Error('truncated DER');
  const tag = buf[off] as number;
  let len = buf[off + 1] as number;
  let start = off + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || start + n > buf.length) throw new Error('bad DER length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + (buf[start + i] as number);
    start += n;
  }
  const end = start + len;
  if (end > buf.length) throw new Error('truncated DER');
  return { tag, start, end, next: end };
}

function children(buf: Buffer, t: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let off = t.start; off < t.end;) {
    const c = readTlv(buf, off);
    out.push(c);
    off = c.next;
  }
  return out;
}

function decodeOid(buf: Buffer, t: Tlv): string {
  const bytes = buf.subarray(t.start, t.end);
  const first = bytes[0] ?? 0;
  const parts = [Math.floor(first / 40), first % 40];
  let v = 0;
  for (let i = 1; i < bytes.length; i++) {
    const b = bytes[i] as number;
    v = v * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      parts.push(v);
      v = 0;
    }
  }
  return parts.join('.');
}

/** Raw otherName values for an OID in the SAN extension. */
function sanOtherNames(der: Buffer, oid: string): string[] {
  const cert = readTlv(der, 0);
  const tbs = children(der, cert)[0];
  if (!tbs) return [];
  const extsWrapper = children(der, tbs).find((c) => c.tag === 0xa3);
  if (!extsWrapper) return [];
  const exts = children(der, extsWrapper)[0];
  if (!exts) return [];
  const out: string[] = [];
  for (const ext of children(der, exts)) {
    const parts = children(der, ext);
    const id = parts[0];
    if (!id || id.tag !== 0x06 || decodeOid(der, id) !== OID_SAN) continue;
    const octets = parts[parts.length - 1];
    if (!octets || octets.tag !== 0x04) continue;
    const names = readTlv(der, octets.start);
    for (const gn of children(der, names)) {
      if (gn.tag !== 0xa0) continue; // otherName [0]
      const [typeId, value] = children(der, gn);
      if (!typeId || !value || typeId.tag !== 0x06 || decodeOid(der, typeId) !== oid) continue;
      const inner = value.tag === 0xa0 ? readTlv(der, value.start) : value;
      out.push(der.subarray(inner.start, inner.end).toString(inner.tag === 0x0c ? 'utf8' : 'latin1'));
    }
  }
  return out;
}

export function certificateToDer(cert: Buffer | string): Buffer {
  if (typeof cert === 'string' || (cert.length > 0 && cert[0] !== 0x30)) {
    const text = typeof cert === 'string' ? cert : cert.toString('latin1');
    const m = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(text);
    if (!m) throw new DteEngineError('certificate_unreadable', 'The certificate is neither DER nor a PEM "CERTIFICATE" block');
    return Buffer.from((m[1] ?? '').replace(/\s+/g, ''), 'base64');
  }
  return cert;
}

/**
 * RUT of the certificate holder in SII form (`7880442-4`), or null when the certificate has no
 * valid SII RUT otherName.
 */
export function rutFromCertificate(cert: Buffer | string): string | null {
  const der = certificateToDer(cert);
  let values: string[];
  try {
    values = sanOtherNames(der, OID_SII_RUT);
  } catch {
    throw new DteEngineError('certificate_unreadable', 'The certificate is not valid DER');
  }
  for (const v of values) {
    const rut = tryParseRut(v.trim());
    if (rut) return formatRutSii(rut);
  }
  return null;
}

export function parseCertificate(cert: Buffer | string): X509Certificate {
  try {
    return new X509Certificate(certificateToDer(cert));
  } catch {
    throw new DteEngineError('certificate_unreadable', 'The certificate could not be parsed as X.509');
  }
}
