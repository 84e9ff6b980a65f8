import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import forge from 'node-forge';
import { OID_SII_RUT } from './certificate.ts';

/**
 * A self-signed signing certificate shaped like the ones Chilean CAs issue: an RSA key, the
 * holder's RUT in subjectAltName otherName 1.3.6.1.4.1.8321.1 (IA5String, zero-padded to 10
 * characters like real certificates: "07880442-4"), and a .pfx (PKCS#12) of both.
 *
 * The SII refuses it (no accredited CA signed it); the emulator and the tests accept it. It backs
 * `npx dte test-certificate` (a test .pfx for the emulator, docs/guides/03-credentials.md) and
 * the tests' certificates, so both are made the same way.
 */
export interface SelfSignedCertificateOptions {
  /** Holder RUT in SII form, "11111111-1". */
  rut: string;
  commonName: string;
  notBefore: Date;
  notAfter: Date;
  /** Reuse a key (generating RSA-2048 keys is the slow part). Default: a new 2048-bit key. */
  privateKey?: KeyObject;
  keyBits?: number;
  /** Omit the RUT otherName (for negative tests). */
  withoutRut?: boolean;
  /** Certificate serial number in hex; default a random 8-byte one. */
  serialHex?: string;
}

export interface SelfSignedCertificate {
  privateKey: KeyObject;
  privateKeyPem: string;
  certificateDer: Buffer;
  certificatePem: string;
  rut: string;
  notBefore: Date;
  notAfter: Date;
  /**
   * PKCS#12 with key and certificate. `aes256` (PBES2, what current exports use) by default;
   * `3des` for the older encoding.
   */
  toPfx(password: string, algorithm?: 'aes256' | '3des'): Buffer;
}

function rutSan(rut: string): forge.asn1.Asn1 {
  const { asn1 } = forge;
  const padded = rut.padStart(10, '0');
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [
      asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(OID_SII_RUT).getBytes()),
      asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [asn1.create(asn1.Class.UNIVERSAL, asn1.Type.IA5STRING, false, padded)]),
    ]),
  ]);
}

/**
 * Eight random bytes as a DER INTEGER's content: positive (first byte below 0x80) and minimal (first
 * byte not zero). A zero first byte, 1 in 256 before, made a certificate OpenSSL refuses to parse
 * ("illegal padding"), so a test .pfx was now and then unreadable.
 */
export function randomSerialHex(): string {
  const bytes = randomBytes(8);
  bytes[0] = 0x40 | ((bytes[0] as number) & 0x3f);
  return bytes.toString('hex');
}

/**
 * What forge's `cert.sign` does (sha256WithRSAEncryption over the TBSCertificate's DER), with the
 * RSA signature by Node's crypto instead of forge's JavaScript big integers: the tests make many
 * certificates, and forge's signature was most of each one's cost.
 */
function signWithNode(cert: forge.pki.Certificate, privateKey: KeyObject): void {
  const oid = forge.pki.oids.sha256WithRSAEncryption as string;
  cert.signatureOid = oid;
  cert.siginfo.algorithmOid = oid;
  // getTBSCertificate is public in forge (x509.js) but missing from its type declarations.
  const tbs = (forge.pki as unknown as { getTBSCertificate(c: forge.pki.Certificate): forge.asn1.Asn1 }).getTBSCertificate(cert);
  (cert as unknown as { tbsCertificate: forge.asn1.Asn1 }).tbsCertificate = tbs;
  const der = Buffer.from(forge.asn1.toDer(tbs).getBytes(), 'binary');
  cert.signature = sign('sha256', der, privateKey).toString('binary');
}

export function createSelfSignedCertificate(opts: SelfSignedCertificateOptions): SelfSignedCertificate {
  const privateKey = opts.privateKey ?? generateKeyPairSync('rsa', { modulusLength: opts.keyBits ?? 2048 }).privateKey;
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const fkey = forge.pki.privateKeyFromPem(privateKeyPem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(fkey.n, fkey.e);
  cert.serialNumber = opts.serialHex ?? randomSerialHex();
  cert.validity.notBefore = opts.notBefore;
  cert.validity.notAfter = opts.notAfter;
  const attrs = [
    { shortName: 'C', value: 'CL' },
    { shortName: 'O', value: 'Prueba' },
    { shortName: 'CN', value: opts.commonName },
  ];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  const exts: object[] = [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, keyEncipherment: true },
  ];
  if (!opts.withoutRut) exts.push({ id: '2.5.29.17', value: rutSan(opts.rut) });
  cert.setExtensions(exts);
  signWithNode(cert, privateKey);
  const certificateDer = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  return {
    privateKey,
    privateKeyPem,
    certificateDer,
    certificatePem: forge.pki.certificateToPem(cert),
    rut: opts.rut,
    notBefore: opts.notBefore,
    notAfter: opts.notAfter,
    toPfx(password: string, algorithm: 'aes256' | '3des' = 'aes256'): Buffer {
      const p12 = forge.pkcs12.toPkcs12Asn1(fkey, [cert], password, { algorithm, friendlyName: opts.commonName });
      return Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary');
    },
  };
}
