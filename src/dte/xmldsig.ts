import { createPrivateKey, createPublicKey, hash, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { DteEngineError } from './errors.ts';
import { certificateToDer, parseCertificate, rutFromCertificate } from './certificate.ts';
import type { SignerInput } from './types.ts';
import { breakLines } from './xml-lines.ts';

/**
 * XML-DSig in the SII's restricted profile (xmldsignature_v10.xsd): inclusive C14N 1.0, rsa-sha1,
 * one Reference with one C14N Transform, sha1 digest, KeyInfo = KeyValue/RSAKeyValue then
 * X509Data/X509Certificate, default namespace on <Signature>.
 *
 * How we sign without parsing: every element we emit is already in canonical form (double-quoted
 * attributes in canonical order, start/end tag pairs, C14N text escaping, no CR, no comments).
 * So the canonical form of the referenced element is our own string, plus the namespace
 * declarations it inherits in its signing context, which we know because we wrote the context:
 *  - a DTE is signed standalone: `<DTE xmlns="http://www.sii.cl/SiiDte">` → the Documento digest
 *    input is `<Documento xmlns="http://www.sii.cl/SiiDte" ID="…">…`;
 *  - SignedInfo inherits the default namespace of <Signature> (and, in an envelope, `xmlns:xsi`
 *    from the root, which is why we also declare it on the envelope's SignedInfo: its C14N is
 *    then the same in context and standalone, for verifiers of either kind).
 * Digests are over the UTF-8 bytes of the canonical text (C14N output is always UTF-8), even
 * though the document itself is written in ISO-8859-1.
 */
export const NS_DSIG = 'http://www.w3.org/2000/09/xmldsig#';
export const ALG_C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
export const ALG_RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
export const ALG_SHA1 = 'http://www.w3.org/2000/09/xmldsig#sha1';
export const ALG_ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';

export interface PreparedSigner {
  readonly prepared: true;
  readonly privateKey: KeyObject;
  readonly certificateDer: Buffer;
  /** Canonical `<KeyInfo>…</KeyInfo>`, computed once per signer. */
  readonly keyInfoXml: string;
  /** Holder's RUT from the certificate (SAN otherName 1.3.6.1.4.1.8321.1), SII form, or null. */
  readonly rutTitular: string | null;
  readonly notBefore: Date;
  readonly notAfter: Date;
}

const cache = new WeakMap<object, PreparedSigner>();

export function wrapBase64(b64: string, width = 64): string {
  if (b64.length <= width) return b64;
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += width) lines.push(b64.slice(i, i + width));
  return lines.join('\n');
}

function b64urlToB64(s: string): string {
  const b = s.replace(/-/g, '+').replace(/_/g, '/');
  return b + '='.repeat((4 - (b.length % 4)) % 4);
}

/**
 * Validates the credential once (RSA key, certificate parses, key matches certificate) and
 * precomputes KeyInfo. Build functions accept raw input too and cache the preparation per object.
 */
export function prepareSigner(input: SignerInput | PreparedSigner): PreparedSigner {
  if ('prepared' in input && input.prepared === true) return input;
  const cached = cache.get(input);
  if (cached) return cached;
  const raw = input as SignerInput;
  let privateKey: KeyObject;
  try {
    privateKey = typeof raw.privateKey === 'string' ? createPrivateKey(raw.privateKey) : raw.privateKey;
  } catch {
    throw new DteEngineError('signer_key_invalid', 'The signing private key could not be read (expected an RSA key)');
  }
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'rsa') {
    throw new DteEngineError('signer_key_invalid', 'The signing key must be an RSA private key (the SII profile is rsa-sha1)');
  }
  const certSource = raw.certificateDer ?? raw.certificatePem;
  if (!certSource)
    throw new DteEngineError('certificate_unreadable', 'A certificate (certificateDer or certificatePem) is required to sign');
  const certificateDer = certificateToDer(certSource);
  const x509 = parseCertificate(certificateDer);
  const pub = createPublicKey(privateKey).export({ format: 'jwk' });
  const certPub = x509.publicKey.export({ format: 'jwk' });
  if (pub.n !== certPub.n || pub.e !== certPub.e) {
    throw new DteEngineError('certificate_key_mismatch', 'The private key does not belong to the certificate');
  }
  const keyInfoXml = breakLines(
    '<KeyInfo><KeyValue><RSAKeyValue>' +
      `<Modulus>${wrapBase64(b64urlToB64(pub.n ?? ''))}</Modulus>` +
      `<Exponent>${b64urlToB64(pub.e ?? '')}</Exponent>` +
      '</RSAKeyValue></KeyValue>' +
      `<X509Data><X509Certificate>${wrapBase64(certificateDer.toString('base64'))}</X509Certificate></X509Data>` +
      '</KeyInfo>',
  );
  const prepared: PreparedSigner = {
    prepared: true,
    privateKey,
    certificateDer,
    keyInfoXml,
    rutTitular: rutFromCertificate(certificateDer),
    notBefore: new Date(x509.validFrom),
    notAfter: new Date(x509.validTo),
  };
  cache.set(input, prepared);
  return prepared;
}

/** Refuses to sign with a certificate outside its validity period (the SII rejects such signatures). */
export function assertSignerValidAt(signer: PreparedSigner, now: Date): void {
  if (now.getTime() > signer.notAfter.getTime()) {
    throw new DteEngineError(
      'certificate_expired',
      `The signing certificate expired on ${signer.notAfter.toISOString()}: upload a current certificate`,
    );
  }
  if (now.getTime() < signer.notBefore.getTime()) {
    throw new DteEngineError('certificate_not_yet_valid', `The signing certificate is valid only from ${signer.notBefore.toISOString()}`);
  }
}

export function sha1Base64(canonicalText: string): string {
  return hash('sha1', canonicalText, 'base64'); // one-shot: strings are hashed as UTF-8
}

export interface SignatureContext {
  /**
   * Namespace declarations SignedInfo has in canonical form in its context, after the default
   * dsig namespace, e.g. ` xmlns:xsi="…"` inside an envelope; '' for a standalone DTE.
   */
  signedInfoInheritedNs: string;
  /** Declarations to write on the emitted <SignedInfo> (the same, or '' to rely on inheritance). */
  signedInfoEmittedNs: string;
}

export const STANDALONE_CONTEXT: SignatureContext = { signedInfoInheritedNs: '', signedInfoEmittedNs: '' };

// The fixed parts of SignedInfo, joined (and cut into lines, xml-lines.ts) once rather than on every signature.
const SIGNED_INFO_METHODS = breakLines(
  `<CanonicalizationMethod Algorithm="${ALG_C14N}"></CanonicalizationMethod>` +
    `<SignatureMethod Algorithm="${ALG_RSA_SHA1}"></SignatureMethod>`,
);
const REFERENCE_METHODS = breakLines(
  `<Transforms><Transform Algorithm="${ALG_C14N}"></Transform></Transforms><DigestMethod Algorithm="${ALG_SHA1}"></DigestMethod>`,
);

/** A signature up to its value: the bytes to sign, and the element once their value is known. */
export interface PendingSignature {
  readonly privateKey: KeyObject;
  /** The canonical SignedInfo, UTF-8: what rsa-sha1 signs. */
  readonly signedInfo: Buffer;
  /** The `<Signature>` element around `signatureValue` (base64). */
  element(signatureValue: string): string;
}

/**
 * The `<Signature>` element for a reference whose canonical form is `canonicalReferenced`, before
 * its value is computed (`buildSignature` signs at once; `signAsync` lets the caller sign off the
 * main thread). One element per line (xml-lines.ts), the same in the digested SignedInfo and in the
 * emitted one (so emitted == canonical modulo the apex declarations); base64 values wrapped at 64
 * columns with LF, as in the SII's example.
 */
export function pendingSignature(
  referenceId: string,
  canonicalReferenced: string,
  signerInput: SignerInput | PreparedSigner,
  ctx: SignatureContext = STANDALONE_CONTEXT,
): PendingSignature {
  const signer = prepareSigner(signerInput);
  const digest = sha1Base64(canonicalReferenced);
  const inner = `\n${SIGNED_INFO_METHODS}\n<Reference URI="#${referenceId}">\n${REFERENCE_METHODS}\n<DigestValue>${digest}</DigestValue>\n</Reference>\n`;
  const canonicalSignedInfo = `<SignedInfo xmlns="${NS_DSIG}"${ctx.signedInfoInheritedNs}>${inner}</SignedInfo>`;
  return {
    privateKey: signer.privateKey,
    signedInfo: Buffer.from(canonicalSignedInfo, 'utf8'),
    element: (signatureValue) =>
      `<Signature xmlns="${NS_DSIG}">\n<SignedInfo${ctx.signedInfoEmittedNs}>${inner}</SignedInfo>\n` +
      `<SignatureValue>${wrapBase64(signatureValue)}</SignatureValue>\n${signer.keyInfoXml}\n</Signature>`,
  };
}

/** The signature's value, computed on this thread. */
export function signNow(p: PendingSignature): string {
  return sign('sha1', p.signedInfo, p.privateKey).toString('base64');
}

/**
 * The signature's value, computed in libuv's thread pool (node:crypto's `sign` with a callback):
 * an RSA-2048 signature costs ~0.3–0.9 ms of CPU, the largest single step of a document's
 * creation, which then leaves the thread that serves requests (and, on PGlite, runs the database)
 * free meanwhile (docs/performance.md, "Fifth round: PGlite creation").
 */
export function signAsync(p: PendingSignature): Promise<string> {
  return new Promise((resolve, reject) => {
    sign('sha1', p.signedInfo, p.privateKey, (err, value) => (err ? reject(err) : resolve(value.toString('base64'))));
  });
}

/** The `<Signature>` element, signed on this thread (pendingSignature + signNow). */
export function buildSignature(
  referenceId: string,
  canonicalReferenced: string,
  signerInput: SignerInput | PreparedSigner,
  ctx: SignatureContext = STANDALONE_CONTEXT,
): string {
  const p = pendingSignature(referenceId, canonicalReferenced, signerInput, ctx);
  return p.element(signNow(p));
}
