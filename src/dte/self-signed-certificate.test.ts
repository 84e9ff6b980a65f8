import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { expect, it } from 'vitest';
import { createSelfSignedCertificate, randomSerialHex } from './self-signed-certificate.ts';

// A serial whose first byte was zero (1 in 256) made a certificate OpenSSL refuses ("illegal
// padding"): the guides' test .pfx failed CI once that way.
it('draws serial numbers that are positive, minimal DER INTEGERs', () => {
  for (let i = 0; i < 5_000; i++) {
    const hex = randomSerialHex();
    expect(hex).toMatch(/^[4-7][0-9a-f]{15}$/);
  }
});

it('makes a certificate OpenSSL parses and verifies, with the serial it was given', () => {
  const privateKey = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
  const c = createSelfSignedCertificate({
    rut: '11111111-1',
    commonName: 'Prueba',
    notBefore: new Date('2026-01-01T00:00:00Z'),
    notAfter: new Date('2027-01-01T00:00:00Z'),
    privateKey,
    serialHex: '4000000000000001',
  });
  const x509 = new X509Certificate(c.certificateDer);
  expect(x509.serialNumber).toBe('4000000000000001');
  // Self-signed: its signature verifies with its own key.
  expect(x509.verify(x509.publicKey)).toBe(true);
  expect(x509.checkPrivateKey(privateKey)).toBe(true);
});
