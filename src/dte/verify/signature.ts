import { createPublicKey, verify as rsaVerify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { Element } from '@xmldom/xmldom';
import { canonicalize, childElements } from '../c14n.ts';
import { parseCertificate } from '../certificate.ts';
import { NS_XSI } from '../envelope.ts';
import { ALG_C14N, ALG_ENVELOPED, ALG_RSA_SHA1, ALG_SHA1, NS_DSIG, sha1Base64 } from '../xmldsig.ts';
import { issue } from './types.ts';
import type { VerificationIssue } from './types.ts';

/**
 * XML-DSig checks shared by both levels (the DTE's Documento, the envelope's SetDTE): only the
 * profile the SII uses (inclusive C14N 1.0, rsa-sha1, one Reference). Keys come from the
 * X509Certificate; a KeyValue that differs is tried last and reported as a warning.
 */
export function dsigChild(e: Element, name: string): Element | undefined {
  return childElements(e, name).find((c) => c.namespaceURI === NS_DSIG);
}

export interface SignatureParts {
  signedInfo: Element;
  referenceUri: string;
  digestValue: string;
  signatureValue: Buffer;
  certKey: KeyObject | null;
  certDer: Buffer | null;
  keyValueKey: KeyObject | null;
}

export function readSignature(sig: Element): SignatureParts | string {
  const si = dsigChild(sig, 'SignedInfo');
  if (!si) return 'Signature has no SignedInfo';
  const c14nAlg = dsigChild(si, 'CanonicalizationMethod')?.getAttribute('Algorithm');
  if (c14nAlg !== ALG_C14N) return `CanonicalizationMethod must be inclusive C14N 1.0, found ${String(c14nAlg)}`;
  const sigAlg = dsigChild(si, 'SignatureMethod')?.getAttribute('Algorithm');
  if (sigAlg !== ALG_RSA_SHA1) return `SignatureMethod must be rsa-sha1, found ${String(sigAlg)}`;
  const refs = childElements(si, 'Reference');
  if (refs.length !== 1 || !refs[0]) return 'SignedInfo must have exactly one Reference';
  const ref = refs[0];
  const transforms = dsigChild(ref, 'Transforms');
  for (const t of transforms ? childElements(transforms, 'Transform') : []) {
    const alg = t.getAttribute('Algorithm');
    if (alg !== ALG_C14N && alg !== ALG_ENVELOPED) return `Unsupported Transform ${String(alg)}`;
  }
  if (dsigChild(ref, 'DigestMethod')?.getAttribute('Algorithm') !== ALG_SHA1) return 'DigestMethod must be sha1';
  const digestValue = (dsigChild(ref, 'DigestValue')?.textContent ?? '').replace(/\s+/g, '');
  const signatureValue = Buffer.from((dsigChild(sig, 'SignatureValue')?.textContent ?? '').replace(/\s+/g, ''), 'base64');
  const keyInfo = dsigChild(sig, 'KeyInfo');
  let certKey: KeyObject | null = null;
  let certDer: Buffer | null = null;
  let keyValueKey: KeyObject | null = null;
  if (keyInfo) {
    const certText = keyInfo.getElementsByTagNameNS(NS_DSIG, 'X509Certificate').item(0)?.textContent;
    if (certText) {
      try {
        certDer = Buffer.from(certText.replace(/\s+/g, ''), 'base64');
        certKey = parseCertificate(certDer).publicKey;
      } catch {
        certKey = null;
      }
    }
    const mod = keyInfo.getElementsByTagNameNS(NS_DSIG, 'Modulus').item(0)?.textContent;
    const exp = keyInfo.getElementsByTagNameNS(NS_DSIG, 'Exponent').item(0)?.textContent;
    if (mod && exp) {
      try {
        const url = (t: string) => Buffer.from(t.replace(/\s+/g, ''), 'base64').toString('base64url');
        keyValueKey = createPublicKey({ key: { kty: 'RSA', n: url(mod), e: url(exp) }, format: 'jwk' });
      } catch {
        keyValueKey = null;
      }
    }
  }
  return { signedInfo: si, referenceUri: refs[0].getAttribute('URI') ?? '', digestValue, signatureValue, certKey, certDer, keyValueKey };
}

/** The same RSA public key (modulus and exponent). */
export function sameKey(a: KeyObject, b: KeyObject): boolean {
  const x = a.export({ format: 'jwk' });
  const y = b.export({ format: 'jwk' });
  return x.n === y.n && x.e === y.e;
}

/**
 * Checks digest and SignatureValue. `digestContexts` are tried in order (the first is the strict
 * one); the index of the one that matched is returned.
 */
export function checkSignature(
  parts: SignatureParts,
  referenced: Element,
  digestContexts: readonly (ReadonlyMap<string, string> | undefined)[],
  warnings: VerificationIssue[],
  code: string,
): { ok: true; contextIndex: number } | { ok: false; message: string } {
  let contextIndex = -1;
  for (let i = 0; i < digestContexts.length; i++) {
    const extra = digestContexts[i];
    const c = canonicalize(referenced, extra ? { extraInherited: extra } : {});
    if (sha1Base64(c) === parts.digestValue) {
      contextIndex = i;
      break;
    }
  }
  if (contextIndex < 0)
    return { ok: false, message: 'The digest of the signed element does not match DigestValue (the content was altered)' };
  const keys: { key: KeyObject; via: 'certificate' | 'keyvalue' }[] = [];
  if (parts.certKey) keys.push({ key: parts.certKey, via: 'certificate' });
  if (parts.keyValueKey && !(parts.certKey && sameKey(parts.certKey, parts.keyValueKey)))
    keys.push({ key: parts.keyValueKey, via: 'keyvalue' });
  if (keys.length === 0) return { ok: false, message: 'The signature carries no usable X509Certificate or KeyValue' };
  // SignedInfo is canonicalised in its own document context; also try with xmlns:xsi inherited,
  // as when the element was signed inside an envelope root that declares it.
  for (const { key, via } of keys) {
    for (const extra of [undefined, new Map([['xsi', NS_XSI]])]) {
      const si = canonicalize(parts.signedInfo, extra ? { extraInherited: extra } : {});
      let ok = false;
      try {
        ok = rsaVerify('sha1', Buffer.from(si, 'utf8'), key, parts.signatureValue);
      } catch {
        ok = false; // malformed key or signature
      }
      if (!ok) continue;
      if (via === 'keyvalue') {
        // The SII's own 2003 example is like this: signed with the KeyValue key, which is not the
        // certificate's. Accepted, but the signer is then not proven to be the certificate holder.
        warnings.push(
          issue(
            code,
            parts.certKey ? 'keyvalue_not_certificate' : 'certificate_missing',
            'The signature verifies with KeyValue, not with the X509Certificate key',
          ),
        );
      }
      return { ok: true, contextIndex };
    }
  }
  return { ok: false, message: 'SignatureValue does not verify with the certificate key' };
}
