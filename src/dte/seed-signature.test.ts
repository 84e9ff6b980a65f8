import { describe, expect, it } from 'vitest';
import { createTestCertificate } from '../../test/support/dte/test-certificate.ts';
import { signSeed, verifySignedSeed } from './seed-signature.ts';

describe('the signed seed (autenticación automática)', () => {
  const cert = createTestCertificate({ rut: '12345678-5' });
  const other = createTestCertificate({ rut: '11111111-1' });

  it('is two lines, Reference URI="", enveloped transform, and verifies with the holder RUT', () => {
    const xml = signSeed('000000000078', cert.signer);
    expect(xml.split('\n')).toHaveLength(2);
    expect(xml).toContain('<getToken><item><Semilla>000000000078</Semilla></item><Signature xmlns="http://www.w3.org/2000/09/xmldsig#">');
    expect(xml).toContain('<Reference URI=""><Transforms><Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature">');
    expect(xml).toMatch(/<RSAKeyValue><Modulus>[^<]+<\/Modulus><Exponent>AQAB<\/Exponent><\/RSAKeyValue>.*<X509Certificate>/);
    const v = verifySignedSeed(xml);
    expect(v).toMatchObject({ ok: true, semilla: '000000000078', rutTitular: '12345678-5' });
  });

  it('also verifies pretty-printed (whitespace inside getToken is part of the digest, as signed)', () => {
    const xml = signSeed('42', cert.signer);
    // Breaking lines inside the Signature changes nothing signed.
    expect(verifySignedSeed(xml.replace('<SignatureValue>', '\n<SignatureValue>')).ok).toBe(true);
  });

  it('answers the manual ESTADO codes for broken documents', () => {
    const xml = signSeed('000000000078', cert.signer);
    expect(verifySignedSeed('<getToken')).toMatchObject({ ok: false, estado: '02' });
    expect(verifySignedSeed('<getToken><item><Semilla>1</Semilla></item></getToken>')).toMatchObject({ ok: false, estado: '04' });
    expect(verifySignedSeed(xml.replace(/<item>.*<\/item>/, '<item></item>'))).toMatchObject({ ok: false, estado: '06' });
    expect(verifySignedSeed(xml.replace('000000000078', '000000000079'))).toMatchObject({ ok: false, estado: '05' });
    expect(verifySignedSeed(xml.replace(/<X509Data>.*<\/X509Data>/, ''))).toMatchObject({ ok: false, estado: '11' });
    const otherModulus = /<Modulus>([^<]+)<\/Modulus>/.exec(signSeed('1', other.signer))![1]!;
    expect(verifySignedSeed(xml.replace(/<Modulus>[^<]+<\/Modulus>/, `<Modulus>${otherModulus}</Modulus>`))).toMatchObject({
      ok: false,
      estado: '21',
    });
  });
});
