import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rutFromCertificate } from './certificate.ts';
import { prepareSigner } from './xmldsig.ts';
import { OFFICIAL_ENVIO } from '../../test/support/dte/sii-fixtures.ts';
import { createTestCertificate } from '../../test/support/dte/test-certificate.ts';
import forge from 'node-forge';

describe('certificate RUT (SAN otherName 1.3.6.1.4.1.8321.1)', () => {
  it("reads the SII example's certificate (zero-padded IA5String, ignores the issuer's RUT)", () => {
    const ex = readFileSync(OFFICIAL_ENVIO, 'latin1');
    const b64 = (/<X509Certificate>([\s\S]*?)<\/X509Certificate>/.exec(ex)?.[1] ?? '').replace(/\s+/g, '');
    expect(rutFromCertificate(Buffer.from(b64, 'base64'))).toBe('7880442-4');
    expect(rutFromCertificate(`-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`)).toBe('7880442-4');
  });

  it('reads test certificates, DER and PEM, and returns null without the extension', () => {
    const c = createTestCertificate({ rut: '7880442-4', keyBits: 1024 });
    expect(rutFromCertificate(c.certificateDer)).toBe('7880442-4');
    expect(rutFromCertificate(c.certificatePem)).toBe('7880442-4');
    expect(rutFromCertificate(createTestCertificate({ withoutRut: true, privateKey: c.privateKey }).certificateDer)).toBeNull();
    expect(() => rutFromCertificate(Buffer.from([0x30, 0x82, 0x01]))).toThrow(expect.objectContaining({ code: 'certificate_unreadable' }));
  });

  it('prepares a signer from PEM inputs and exposes holder and validity', () => {
    const c = createTestCertificate({ keyBits: 1024 });
    const s = prepareSigner({ privateKey: c.privateKeyPem, certificatePem: c.certificatePem });
    expect(s.rutTitular).toBe('12345678-5');
    expect(s.notAfter.toISOString()).toBe('2049-12-31T00:00:00.000Z');
    expect(s.keyInfoXml).toMatch(
      /^<KeyInfo>\n<KeyValue>\n<RSAKeyValue>\n<Modulus>[^<]+<\/Modulus>\n<Exponent>AQAB<\/Exponent>\n<\/RSAKeyValue>\n<\/KeyValue>\n<X509Data>\n<X509Certificate>/,
    );
  });

  it('exports a .pfx that node-forge reads back with the password', () => {
    const c = createTestCertificate({ keyBits: 1024 });
    const pfx = c.toPfx('secreto');
    const p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(pfx.toString('binary')), 'secreto');
    const certBag = forge.pki.oids.certBag ?? '1.2.840.113549.1.12.10.1.3';
    const bags = p12.getBags({ bagType: certBag });
    expect(bags[certBag]?.length).toBe(1);
  });
});
