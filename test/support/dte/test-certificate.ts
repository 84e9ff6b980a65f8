import type { KeyObject } from 'node:crypto';
import { createSelfSignedCertificate } from '../../../src/dte/self-signed-certificate.ts';
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

let serial = 1;

export function createTestCertificate(opts: TestCertificateOptions = {}): TestCertificate {
  const made = createSelfSignedCertificate({
    rut: opts.rut ?? '12345678-5',
    commonName: opts.commonName ?? 'Titular de Prueba',
    notBefore: opts.notBefore ?? new Date(Date.UTC(2024, 0, 1)),
    notAfter: opts.notAfter ?? new Date(Date.UTC(2049, 11, 31)),
    ...(opts.privateKey ? { privateKey: opts.privateKey } : {}),
    ...(opts.keyBits ? { keyBits: opts.keyBits } : {}),
    ...(opts.withoutRut ? { withoutRut: true } : {}),
    serialHex: (serial++).toString(16).padStart(2, '0'),
  });
  return {
    ...made,
    signer: prepareSigner({ privateKey: made.privateKey, certificateDer: made.certificateDer }),
    toPfx: (password: string) => made.toPfx(password, '3des'),
  };
}
