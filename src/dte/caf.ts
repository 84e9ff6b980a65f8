import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { DteEngineError } from './errors.ts';
import { addDays, checkSiiDate } from './dates.ts';
import type { Element } from '@xmldom/xmldom';
import { decodeEntities, decodeXml, flattenXml } from './xml-decode.ts';
import { canonicalize, parseXml } from './c14n.ts';
import { cleanText } from './text-policy.ts';
import { el } from './xml-escape.ts';
import { toSiiRut } from './rut.ts';
import { MAX_LENGTH } from './limits.ts';
import { parseCertificate } from './certificate.ts';
import type { SiiKeys } from './types.ts';
import { cafExpires, typesWhere } from './catalogue.ts';

/**
 * CAF (Código de Autorización de Folios): the SII's grant of a folio range with a 512-bit RSA
 * keypair (exponent 3) that stamps the TED. `FRMA` = RSA-SHA1 by the SII key #IDK over the
 * flattened `<DA>…</DA>` in ISO-8859-1.
 */
export interface Caf {
  rutEmisor: string;
  razonSocial: string;
  tipoDte: number;
  desde: number;
  hasta: number;
  fechaAutorizacion: string;
  idk: number;
  /** FA + 180 days for types 33, 43, 46, 56, 61 (the CAF is usable while the local date is before it); null otherwise. */
  vencimiento: string | null;
  publicKey: { modulus: string; exponent: string };
  publicKeyObject: KeyObject;
  /** RSASK, PKCS#1 PEM, when the file carries it (CAFs embedded in a TED do not). */
  privateKeyPem: string | null;
  privateKey: KeyObject | null;
  /** FRMA base64 as found. */
  frma: string;
  /** The `<CAF …>…</CAF>` block exactly as in the file. */
  cafXml: string;
  /**
   * The block as embedded in the TED: whitespace between tags removed and in canonical form
   * (double-quoted attributes, C14N escaping). Text and attribute values are untouched, so the
   * DA bytes the SII signed are preserved; the flattened form is what every verifier signs over.
   */
  embeddedCaf: string;
  /** Flattened `<DA>…</DA>` in ISO-8859-1: the bytes FRMA signs. */
  daBytes: Buffer;
}

/** The types whose CAFs expire (docs/folios.md, "CAF expiry"): a fact of the catalogue. */
export const CAF_EXPIRING_TYPES: readonly number[] = typesWhere((t) => t.cafExpires);
export const CAF_VALIDITY_DAYS = 180;

export function cafVencimiento(tipoDte: number, fechaAutorizacion: string): string | null {
  return cafExpires(tipoDte) ? addDays(fechaAutorizacion, CAF_VALIDITY_DAYS) : null;
}

/** Whether the CAF is still usable on this local (Chile) date. */
export function isCafExpired(caf: Pick<Caf, 'vencimiento'>, localDate: string): boolean {
  return caf.vencimiento !== null && localDate >= caf.vencimiento;
}

function tagText(block: string, name: string): string | undefined {
  const m = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`).exec(block);
  return m ? decodeEntities((m[1] ?? '').trim()) : undefined;
}

function need(block: string, name: string): string {
  const v = tagText(block, name);
  if (v === undefined || v === '') {
    throw new DteEngineError('caf_invalid', `The CAF has no <${name}>: it is not an SII folio authorization file`, 'caf');
  }
  return v;
}

function rsaPublicKey(modulusB64: string, exponentB64: string): KeyObject {
  const toUrl = (b64: string) => Buffer.from(b64.replace(/\s+/g, ''), 'base64').toString('base64url');
  try {
    return createPublicKey({ key: { kty: 'RSA', n: toUrl(modulusB64), e: toUrl(exponentB64) }, format: 'jwk' });
  } catch {
    throw new DteEngineError('caf_invalid', 'The CAF public key (RSAPK) is not a valid RSA key', 'caf');
  }
}

/** Parses a `<CAF>` block (from a CAF file or from inside a TED) into its fields. */
export function parseCafBlock(cafXml: string, privateKeyPem: string | null = null): Caf {
  const da = /<DA>[\s\S]*?<\/DA>/.exec(cafXml)?.[0];
  if (!da) throw new DteEngineError('caf_invalid', 'The CAF has no <DA> block', 'caf');
  const rutEmisor = toSiiRut(need(da, 'RE'), 'caf.RE');
  const tipoDte = Number(need(da, 'TD'));
  const desde = Number(need(da, 'D'));
  const hasta = Number(need(da, 'H'));
  const fechaAutorizacion = checkSiiDate(need(da, 'FA'), 'caf.FA');
  const idk = Number(need(da, 'IDK'));
  if (!Number.isInteger(tipoDte) || !Number.isSafeInteger(desde) || !Number.isSafeInteger(hasta) || desde < 1 || hasta < desde) {
    throw new DteEngineError('caf_invalid', 'The CAF has an invalid type or folio range', 'caf');
  }
  const rsapk = /<RSAPK>[\s\S]*?<\/RSAPK>/.exec(da)?.[0];
  if (!rsapk) throw new DteEngineError('caf_invalid', 'The CAF has no RSAPK (DSA CAFs are not supported)', 'caf');
  const modulus = need(rsapk, 'M');
  const exponent = need(rsapk, 'E');
  const publicKeyObject = rsaPublicKey(modulus, exponent);
  let privateKey: KeyObject | null = null;
  if (privateKeyPem) {
    try {
      privateKey = createPrivateKey(privateKeyPem);
    } catch {
      throw new DteEngineError('caf_invalid', 'The CAF private key (RSASK) could not be read', 'caf');
    }
  }
  const flat = flattenXml(cafXml);
  let embeddedCaf: string;
  try {
    const root = parseXml(flat).documentElement;
    if (!root) throw new Error('empty');
    embeddedCaf = canonicalize(root, { ignoreAncestors: true });
  } catch {
    throw new DteEngineError('caf_invalid', 'The CAF block is not well-formed XML', 'caf');
  }
  return {
    rutEmisor,
    razonSocial: need(da, 'RS'),
    tipoDte,
    desde,
    hasta,
    fechaAutorizacion,
    idk,
    vencimiento: cafVencimiento(tipoDte, fechaAutorizacion),
    publicKey: { modulus: modulus.replace(/\s+/g, ''), exponent: exponent.replace(/\s+/g, '') },
    publicKeyObject,
    privateKeyPem,
    privateKey,
    frma: need(cafXml, 'FRMA').replace(/\s+/g, ''),
    cafXml,
    embeddedCaf,
    daBytes: Buffer.from(flattenXml(da), 'latin1'),
  };
}

/**
 * Parses a CAF file as the SII delivers it (ISO-8859-1, often without or with a wrong encoding
 * declaration; see xml-decode.ts). Requires RSASK: a CAF without its private key cannot stamp.
 */
export function parseCaf(file: Buffer | string): Caf {
  const text = typeof file === 'string' ? file : decodeXml(file);
  const block = /<CAF(?:\s[^>]*)?>[\s\S]*?<\/CAF>/.exec(text)?.[0];
  if (!block) throw new DteEngineError('caf_invalid', 'The file has no <CAF> block: it is not an SII folio authorization file', 'caf');
  const rsask = tagText(text, 'RSASK');
  if (!rsask) throw new DteEngineError('caf_private_key_missing', 'The CAF file has no private key (RSASK)', 'caf');
  const caf = parseCafBlock(block, rsask);
  // DA text like RS must be Latin-1 to be signable (it is what the SII signed).
  return caf;
}

/**
 * A CAF file someone hands us (an upload), read strictly: it must be one well-formed XML document
 * whose root is `<AUTORIZACION>`, as the SII's download is, before parseCaf reads its fields.
 * Codes: `caf_not_xml` (not XML at all: a PDF, a zip, an empty file), `caf_malformed` (XML that is
 * not well-formed, or declares a DOCTYPE, which no CAF has), `caf_not_autorizacion` (XML of another
 * kind), then parseCaf's (`caf_invalid`, `caf_private_key_missing`).
 */
export function parseCafFile(file: Buffer): Caf {
  const text = decodeXml(file);
  if (!/^\s*</.test(text) || text.includes('\u0000')) {
    throw new DteEngineError('caf_not_xml', 'The file is not XML', 'file');
  }
  if (/<!DOCTYPE/i.test(text)) throw new DteEngineError('caf_malformed', 'The file declares a DOCTYPE, which no CAF has', 'file');
  let root: Element | null;
  try {
    root = parseXml(text).documentElement;
  } catch (e) {
    throw new DteEngineError('caf_malformed', (e as Error).message, 'file');
  }
  if (!root) throw new DteEngineError('caf_malformed', 'The XML has no root element', 'file');
  const rootName = root.localName ?? root.nodeName;
  if (rootName !== 'AUTORIZACION') {
    throw new DteEngineError('caf_not_autorizacion', `The XML's root element is <${rootName.slice(0, 40)}>, not <AUTORIZACION>`, 'file');
  }
  return parseCaf(text);
}

export interface CafVerification {
  valid: boolean;
  /** FRMA verifies with the SII key of the CAF's IDK. */
  signatureValid: boolean;
  /** RSASK matches RSAPK (null when the CAF has no private key). */
  keyPairValid: boolean | null;
  errors: { code: 'unknown_idk' | 'frma_invalid' | 'key_mismatch'; message: string }[];
}

/** Verifies FRMA with `siiKeys[IDK]` and that RSASK belongs to RSAPK. */
export function verifyCaf(caf: Caf, siiKeys: SiiKeys): CafVerification {
  const errors: CafVerification['errors'] = [];
  const key = siiKeys[String(caf.idk)];
  let signatureValid = false;
  if (!key) {
    errors.push({ code: 'unknown_idk', message: `No SII public key is known for IDK ${caf.idk}` });
  } else {
    try {
      signatureValid = verify('sha1', caf.daBytes, key, Buffer.from(caf.frma, 'base64'));
    } catch {
      signatureValid = false;
    }
    if (!signatureValid)
      errors.push({ code: 'frma_invalid', message: `The CAF signature (FRMA) does not verify with the SII key ${caf.idk}` });
  }
  let keyPairValid: boolean | null = null;
  if (caf.privateKey) {
    const a = createPublicKey(caf.privateKey).export({ format: 'jwk' });
    const b = caf.publicKeyObject.export({ format: 'jwk' });
    keyPairValid = a.n === b.n && a.e === b.e;
    if (!keyPairValid) errors.push({ code: 'key_mismatch', message: 'The CAF private key (RSASK) does not match its public key (RSAPK)' });
  }
  return { valid: errors.length === 0, signatureValid, keyPairValid, errors };
}

export interface IssueCafInput {
  rutEmisor: string;
  razonSocial: string;
  tipoDte: number;
  desde: number;
  hasta: number;
  fechaAutorizacion: string;
  idk: number;
  siiPrivateKey: KeyObject;
}

/**
 * Issues a CAF the way the SII does: a fresh 512-bit RSA folio keypair with exponent 3, DA signed
 * by the given SII key. For the emulator (IDK 666 marks CAFs that are not the SII's) and tests.
 * Returns the file bytes (ISO-8859-1, SII layout) and the parsed CAF.
 */
export function issueCaf(input: IssueCafInput): { xml: Buffer; caf: Caf } {
  const rut = toSiiRut(input.rutEmisor, 'rutEmisor');
  // The SII cuts RS at 40 characters.
  const rs = cleanText(input.razonSocial, { param: 'razonSocial', maxLength: MAX_LENGTH.cafRs, required: true, truncate: true });
  checkSiiDate(input.fechaAutorizacion, 'fechaAutorizacion');
  if (!Number.isSafeInteger(input.desde) || !Number.isSafeInteger(input.hasta) || input.desde < 1 || input.hasta < input.desde) {
    throw new DteEngineError('invalid_range', 'desde/hasta must be positive integers with desde <= hasta', 'desde');
  }
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 512, publicExponent: 3 });
  const jwk = publicKey.export({ format: 'jwk' });
  const m = Buffer.from(jwk.n ?? '', 'base64url').toString('base64');
  const e = Buffer.from(jwk.e ?? '', 'base64url').toString('base64');
  const da =
    '<DA>\n' +
    `${el('RE', rut)}\n${el('RS', rs)}\n${el('TD', input.tipoDte)}\n` +
    `<RNG>${el('D', input.desde)}${el('H', input.hasta)}</RNG>\n` +
    `${el('FA', input.fechaAutorizacion)}\n` +
    `<RSAPK>${el('M', m)}${el('E', e)}</RSAPK>\n` +
    `${el('IDK', input.idk)}\n` +
    '</DA>';
  const frma = sign('sha1', Buffer.from(flattenXml(da), 'latin1'), input.siiPrivateKey).toString('base64');
  const rsask = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const rsapubk = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const text =
    '<?xml version="1.0"?>\n<AUTORIZACION>\n<CAF version="1.0">\n' +
    `${da}\n<FRMA algoritmo="SHA1withRSA">${frma}</FRMA>\n</CAF>\n` +
    `<RSASK>${rsask}</RSASK>\n\n<RSAPUBK>${rsapubk}</RSAPUBK>\n</AUTORIZACION>\n`;
  const xml = Buffer.from(text, 'latin1');
  return { xml, caf: parseCaf(xml) };
}

/** The SII public key from one of its CAF-signing certificates (100.cer, 300.cer), DER or PEM. */
export function siiKeyFromCertificate(cert: Buffer | string): KeyObject {
  return parseCertificate(cert).publicKey;
}
