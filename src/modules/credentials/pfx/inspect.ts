import crypto, { X509Certificate } from 'node:crypto';
// Straight from the engine's file, not its index: this runs in the memory-limited worker thread
// (isolated.ts), which should not load the whole engine.
import { rutFromCertificate } from '../../../dte/certificate.ts';
import { decodePkcs12, Pkcs12Error } from './pkcs12.ts';

/**
 * What the credentials module needs to know about an uploaded .pfx, decided from the file alone
 * (the clock-dependent checks — expiry, the caller's RUT and date — are the service's). Runs in a
 * worker thread for untrusted uploads (isolated.ts), so nothing here may keep state.
 */
export type PfxProblem =
  | 'certificate_unreadable'
  | 'certificate_password_invalid'
  | 'certificate_key_missing'
  | 'certificate_key_mismatch'
  | 'certificate_key_unsupported';

export class PfxError extends Error {
  readonly code: PfxProblem;
  constructor(code: PfxProblem, message: string) {
    super(message);
    this.name = 'PfxError';
    this.code = code;
  }
}

export interface PfxInspection {
  /** The end-entity certificate: the one whose public key matches the private key. */
  certificateDer: Uint8Array;
  /** Other certificates in the file (the CA chain, usually). */
  chainDer: Uint8Array[];
  /** Holder name: the subject's common name (or the whole subject when it has none). */
  holderName: string;
  subject: string;
  issuer: string;
  serialNumber: string;
  fingerprint256: string;
  notBefore: string;
  notAfter: string;
  /** The holder's RUT from the SII otherName (SII form 12345678-9), or null when absent. */
  rut: string | null;
  keyType: string;
  keyBits: number | null;
}

/** `CN=…` from Node's multi-line subject string; values may contain escaped characters. */
const commonName = (subject: string): string | undefined =>
  subject
    .split('\n')
    .map((l) => /^CN=(.*)$/.exec(l)?.[1])
    .find((v) => v !== undefined)
    ?.trim();

export function inspectPfx(pfx: Uint8Array, password: string): PfxInspection {
  let decoded;
  try {
    decoded = decodePkcs12(Buffer.from(pfx), password);
  } catch (e) {
    if (e instanceof Pkcs12Error) {
      if (e.kind === 'password') throw new PfxError('certificate_password_invalid', 'The password does not open this .pfx file.');
      throw new PfxError('certificate_unreadable', `The file is not a readable .pfx (PKCS#12) certificate: ${e.message}.`);
    }
    throw new PfxError('certificate_unreadable', 'The file is not a readable .pfx (PKCS#12) certificate.');
  }
  const certs: X509Certificate[] = [];
  for (const der of decoded.certificates) {
    try {
      certs.push(new X509Certificate(der));
    } catch {
      throw new PfxError('certificate_unreadable', 'A certificate inside the .pfx file could not be read.');
    }
  }
  if (decoded.privateKeys.length === 0)
    throw new PfxError(
      'certificate_key_missing',
      'The .pfx file holds no private key. Export the certificate together with its private key.',
    );
  if (certs.length === 0) throw new PfxError('certificate_unreadable', 'The .pfx file holds no certificate.');
  const keys: crypto.KeyObject[] = [];
  for (const der of decoded.privateKeys) {
    try {
      keys.push(crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }));
    } catch {
      throw new PfxError('certificate_unreadable', 'The private key inside the .pfx file could not be read.');
    }
  }
  let leaf: X509Certificate | undefined;
  let key: crypto.KeyObject | undefined;
  for (const k of keys)
    for (const c of certs)
      if (!leaf && k.asymmetricKeyType === c.publicKey.asymmetricKeyType && c.checkPrivateKey(k)) {
        leaf = c;
        key = k;
      }
  if (!leaf || !key) throw new PfxError('certificate_key_mismatch', 'The private key in the .pfx file does not belong to its certificate.');
  // SII signatures are RSA (XML-DSig rsa-sha1); any other key type cannot sign a DTE.
  if (key.asymmetricKeyType !== 'rsa')
    throw new PfxError(
      'certificate_key_unsupported',
      `The certificate's key is ${key.asymmetricKeyType ?? 'unknown'}; SII signatures need an RSA key.`,
    );
  let rut: string | null;
  try {
    rut = rutFromCertificate(leaf.raw);
  } catch {
    rut = null;
  }
  return {
    certificateDer: new Uint8Array(leaf.raw),
    chainDer: certs.filter((c) => c !== leaf).map((c) => new Uint8Array(c.raw)),
    holderName: commonName(leaf.subject) ?? leaf.subject.replace(/\n/g, ', '),
    subject: leaf.subject,
    issuer: leaf.issuer,
    serialNumber: leaf.serialNumber,
    fingerprint256: leaf.fingerprint256,
    notBefore: new Date(leaf.validFrom).toISOString(),
    notAfter: new Date(leaf.validTo).toISOString(),
    rut,
    keyType: key.asymmetricKeyType,
    keyBits: key.asymmetricKeyDetails?.modulusLength ?? null,
  };
}

/**
 * The private key for signing, from a stored (already checked) .pfx: the key that matches the
 * stored certificate. The MAC was checked at upload and the bytes are authenticated by the
 * envelope since, so it is not recomputed here.
 */
export function privateKeyFromPfx(pfx: Buffer, password: string, certificateDer: Buffer): crypto.KeyObject {
  const cert = new X509Certificate(certificateDer);
  const find = (certificates: boolean) => {
    const { privateKeys } = decodePkcs12(pfx, password, { verifyMac: false, certificates });
    for (const der of privateKeys) {
      const k = crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
      if (k.asymmetricKeyType === cert.publicKey.asymmetricKeyType && cert.checkPrivateKey(k)) return k;
    }
    return undefined;
  };
  // Keys normally sit outside the encrypted-data part; look there too only if needed.
  const key = find(false) ?? find(true);
  if (!key) throw new PfxError('certificate_key_mismatch', 'The stored .pfx no longer holds the key of its certificate.');
  return key;
}
