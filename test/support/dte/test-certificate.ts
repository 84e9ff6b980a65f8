import { generateKeyPairSync } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import forge from 'node-forge';
import { OID_SII_RUT } from '../../../src/dte/certificate.ts';
import { prepareSigner } from '../../../src/dte/xmldsig.ts';
import type { PreparedSigner } from '../../../src/dte/xmldsig.ts';

/**
 * Test-only: a self-signed signing certificate like the ones Chilean CAs issue, with the holder's
 * RUT in subjectAltName otherName 1.3.6.1.4.1.8321.1 (IA5String), an RSA key, and optionally a
 * .pfx (PKCS#12) of both. For tests of any module that needs a tenant certificate.
 */
export interface TestCertificateOptions {
  /** Holder RUT in SII form; written zero-padded to 10 chars like real certificates ("07880442-4"). */
  rut?: string;
  commonName?: string;
  notBefore?: Date;
  notAfter?: Date;
  keyBits?: number;
  /** Reuse a key (generating RSA-2048 keys is the slow part of a test). */
  privateKey?: KeyObject;
  /** Omit the RUT otherName (for negative tests). */
  withoutRut?: boolean;
}

export interface TestCertificate {
  privateKey: KeyObject;
  privateKeyPem: string;
  certificateDer: Buffer;
  certificatePem: string;
  rut: string;
  notBefore: Date;
  notAfter: Date;
  signer: PreparedSigner;
  /** PKCS#12 with key and certificate, 3DES (readable by node-forge and OpenSSL 3). */
  toPfx(password: string): Buffer;
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

let serial = 1;

export function createTestCertificate(opts: TestCertificateOptions = {}): TestCertificate {
  const rut = opts.rut ?? '12345678-5';
  const privateKey = opts.privateKey ?? generateKeyPairSync('rsa', { modulusLength: opts.keyBits ?? 2048 }).privateKey;
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const fkey = forge.pki.privateKeyFromPem(privateKeyPem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(fkey.n, fkey.e);
  cert.serialNumber = (serial++).toString(16).padStart(2, '0');
  const notBefore = opts.notBefore ?? new Date(Date.UTC(2024, 0, 1));
  const notAfter = opts.notAfter ?? new Date(Date.UTC(2049, 11, 31));
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = notAfter;
  const attrs = [
    { shortName: 'C', value: 'CL' },
    { shortName: 'O', value: 'Prueba' },
    { shortName: 'CN', value: opts.commonName ?? 'Titular de Prueba' },
  ];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  const exts: object[] = [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, keyEncipherment: true },
  ];
  if (!opts.withoutRut) exts.push({ id: '2.5.29.17', value: rutSan(rut) });
  cert.setExtensions(exts);
  cert.sign(fkey, forge.md.sha256.create());
  const derBytes = forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes();
  const certificateDer = Buffer.from(derBytes, 'binary');
  const certificatePem = forge.pki.certificateToPem(cert);
  return {
    privateKey,
    privateKeyPem,
    certificateDer,
    certificatePem,
    rut,
    notBefore,
    notAfter,
    signer: prepareSigner({ privateKey, certificateDer }),
    toPfx(password: string): Buffer {
      const p12 = forge.pkcs12.toPkcs12Asn1(fkey, [cert], password, { algorithm: '3des' });
      return Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary');
    },
  };
}
