import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cafVencimiento, isCafExpired, issueCaf, parseCaf, siiKeyFromCertificate, verifyCaf } from './caf.ts';
import { OFFICIAL_CAF, SII_CERTS_DIR } from '../../test/support/dte/sii-fixtures.ts';
import { createTestCaf, createTestSii } from '../../test/support/dte/test-caf.ts';

const officialFile = readFileSync(OFFICIAL_CAF);
const siiKeys = {
  '100': siiKeyFromCertificate(readFileSync(path.join(SII_CERTS_DIR, '100.cer'))),
  '300': siiKeyFromCertificate(readFileSync(path.join(SII_CERTS_DIR, '300.cer'))),
};

describe('parseCaf', () => {
  it('reads the official test CAF', () => {
    const caf = parseCaf(officialFile);
    expect(caf).toMatchObject({
      rutEmisor: '97975000-5',
      razonSocial: 'RUT DE PRUEBA',
      tipoDte: 33,
      desde: 1,
      hasta: 200,
      fechaAutorizacion: '2003-09-04',
      idk: 100,
      vencimiento: '2004-03-02',
      publicKey: { exponent: 'Aw==' },
    });
    expect(caf.privateKeyPem).toContain('BEGIN RSA PRIVATE KEY');
    expect(caf.cafXml.startsWith('<CAF version="1.0">\n<DA>')).toBe(true);
    expect(caf.embeddedCaf).not.toMatch(/>\s+</);
    expect(caf.embeddedCaf.startsWith('<CAF version="1.0"><DA><RE>97975000-5</RE>')).toBe(true);
  });

  it('accepts a file without XML declaration, with CRLF and single-quoted attributes, and accents in ISO-8859-1', () => {
    const sii = createTestSii();
    const { xml } = createTestCaf({ sii, razonSocial: 'Ñandú Comunicaciones Ltda.' });
    const mangled = Buffer.from(
      xml
        .toString('latin1')
        .replace(/^<\?xml[^>]*>\n/, '')
        .replace(/\n/g, '\r\n')
        .replace('algoritmo="SHA1withRSA"', "algoritmo='SHA1withRSA'"),
      'latin1',
    );
    const caf = parseCaf(mangled);
    expect(caf.razonSocial).toBe('Ñandú Comunicaciones Ltda.');
    expect(caf.embeddedCaf).toContain('<FRMA algoritmo="SHA1withRSA">');
    expect(verifyCaf(caf, sii.siiKeys).valid).toBe(true);
  });

  it('rejects files that are not CAFs', () => {
    expect(() => parseCaf(Buffer.from('<x/>'))).toThrow(expect.objectContaining({ code: 'caf_invalid' }));
    expect(() => parseCaf(Buffer.from(officialFile.toString('latin1').replace(/<RSASK>[\s\S]*<\/RSASK>/, '')))).toThrow(/RSASK/);
  });
});

describe('verifyCaf', () => {
  it('the official test CAF verifies with 100.cer and its keypair matches', () => {
    const r = verifyCaf(parseCaf(officialFile), siiKeys);
    expect(r).toMatchObject({ valid: true, signatureValid: true, keyPairValid: true, errors: [] });
  });

  it('does not verify with the production key', () => {
    const r = verifyCaf(parseCaf(officialFile), { '100': siiKeys['300'] });
    expect(r.signatureValid).toBe(false);
    expect(r.errors[0]?.code).toBe('frma_invalid');
  });

  it('detects a tampered DA', () => {
    const tampered = Buffer.from(officialFile.toString('latin1').replace('<H>200</H>', '<H>900</H>'), 'latin1');
    const r = verifyCaf(parseCaf(tampered), siiKeys);
    expect(r.valid).toBe(false);
    expect(r.errors.map((e) => e.code)).toEqual(['frma_invalid']);
  });

  it('detects an RSASK that does not match RSAPK', () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 512, publicExponent: 3 })
      .privateKey.export({ type: 'pkcs1', format: 'pem' })
      .toString();
    const swapped = Buffer.from(officialFile.toString('latin1').replace(/<RSASK>[\s\S]*<\/RSASK>/, `<RSASK>${other}</RSASK>`), 'latin1');
    const r = verifyCaf(parseCaf(swapped), siiKeys);
    expect(r).toMatchObject({ valid: false, signatureValid: true, keyPairValid: false });
    expect(r.errors.map((e) => e.code)).toEqual(['key_mismatch']);
  });

  it('reports an unknown IDK', () => {
    const r = verifyCaf(parseCaf(officialFile), { '300': siiKeys['300'] });
    expect(r.errors.map((e) => e.code)).toEqual(['unknown_idk']);
  });
});

describe('issueCaf', () => {
  it('issues a CAF like the SII: 512-bit key, exponent 3, FRMA by the given SII key', () => {
    const sii = createTestSii();
    const { xml, caf } = issueCaf({
      rutEmisor: '76.192.083-9',
      razonSocial: 'Una razón social bastante larga que supera los cuarenta caracteres',
      tipoDte: 39,
      desde: 101,
      hasta: 200,
      fechaAutorizacion: '2026-01-05',
      idk: 666,
      siiPrivateKey: sii.privateKey,
    });
    expect(xml.toString('latin1')).toMatch(/^<\?xml version="1.0"\?>\n<AUTORIZACION>\n<CAF version="1.0">/);
    expect(caf.publicKey.exponent).toBe('Aw==');
    expect(Buffer.from(caf.publicKey.modulus, 'base64')).toHaveLength(64);
    expect(caf.razonSocial).toHaveLength(40);
    expect(caf).toMatchObject({ rutEmisor: '76192083-9', tipoDte: 39, desde: 101, hasta: 200, idk: 666, vencimiento: null });
    expect(verifyCaf(caf, sii.siiKeys)).toMatchObject({ valid: true, keyPairValid: true });
    expect(verifyCaf(caf, createTestSii().siiKeys).valid).toBe(false);
  });
});

describe('expiry', () => {
  it('is FA + 180 days for 33, 43, 46, 56, 61 and none otherwise', () => {
    expect(cafVencimiento(33, '2026-01-05')).toBe('2026-07-04');
    expect(cafVencimiento(61, '2025-12-31')).toBe('2026-06-29');
    expect(cafVencimiento(39, '2026-01-05')).toBeNull();
    expect(cafVencimiento(34, '2026-01-05')).toBeNull();
    expect(cafVencimiento(52, '2026-01-05')).toBeNull();
    expect(isCafExpired({ vencimiento: '2026-07-04' }, '2026-07-03')).toBe(false);
    expect(isCafExpired({ vencimiento: '2026-07-04' }, '2026-07-04')).toBe(true);
  });
});
