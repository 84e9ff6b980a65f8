import crypto from 'node:crypto';
import forge from 'node-forge';
import { describe, expect, it } from 'vitest';
import { hugeIterationPfx, legacyPfx, makeCert, modernPfx, nestedDer, noKeyPfx } from '../../../../test/support/pfx.ts';
import { inspectPfx, privateKeyFromPfx } from './inspect.ts';
import { decodePkcs12, pkcs12Kdf } from './pkcs12.ts';

// forge's independent implementation, missing from @types/node-forge.
const forgePbe = (
  forge as unknown as {
    pbe: {
      generatePkcs12Key(
        password: string,
        salt: forge.util.ByteStringBuffer,
        id: number,
        iter: number,
        n: number,
        md: forge.md.MessageDigest,
      ): forge.util.ByteStringBuffer;
    };
  }
).pbe;

const SHA1 = { name: 'sha1', u: 20, v: 64 };
const SHA256 = { name: 'sha256', u: 32, v: 64 };

describe('PKCS#12 key derivation (RFC 7292 B.2)', () => {
  it.each([
    [SHA1, 'sha1', 'secret', 1, 24, 2048],
    [SHA1, 'sha1', 'contraseña-ñ', 2, 8, 7],
    [SHA256, 'sha256', '', 3, 32, 1],
    [SHA256, 'sha256', 'x'.repeat(70), 1, 70, 3],
  ])('agrees with node-forge (%#)', (hash, forgeMd, password, id, n, iterations) => {
    const salt = crypto.randomBytes(8);
    const mine = pkcs12Kdf(hash, Buffer.from(`${password}\0`, 'utf16le').swap16(), salt, id, iterations, n);
    const md = forgeMd === 'sha1' ? forge.md.sha1.create() : forge.md.sha256.create();
    const theirs = forgePbe.generatePkcs12Key(password, forge.util.createBuffer(salt.toString('binary')), id, iterations, n, md);
    expect(mine.toString('hex')).toBe(Buffer.from(theirs.getBytes(), 'binary').toString('hex'));
  });
});

describe('PKCS#12 reader', () => {
  const cert = makeCert({ rut: '12345678-5', commonName: 'José Ñandú' });

  it('reads modern, legacy and forge-made files to the same certificate and key', () => {
    for (const pfx of [modernPfx(cert, 'pw'), legacyPfx(cert, 'pw'), cert.toPfx('pw')]) {
      const d = decodePkcs12(pfx, 'pw');
      expect(d.macVerified).toBe(true);
      expect(d.certificates.map((c) => c.toString('hex'))).toContain(cert.certificateDer.toString('hex'));
      const info = inspectPfx(pfx, 'pw');
      expect(info).toMatchObject({ rut: '12345678-5', holderName: 'José Ñandú', keyType: 'rsa', keyBits: 2048 });
      const key = privateKeyFromPfx(pfx, 'pw', cert.certificateDer);
      expect(key.export({ type: 'pkcs8', format: 'der' }).equals(cert.privateKey.export({ type: 'pkcs8', format: 'der' }))).toBe(true);
    }
  });

  it('tells a wrong password from a damaged file', () => {
    const pfx = modernPfx(cert, 'pw');
    expect(() => decodePkcs12(pfx, 'nope')).toThrow(expect.objectContaining({ kind: 'password' }));
    const noMac = modernPfx(cert, 'pw', ['-nomac']);
    expect(decodePkcs12(noMac, 'pw').macVerified).toBe(false);
    expect(() => decodePkcs12(noMac, 'nope')).toThrow(expect.objectContaining({ kind: 'password' }));
    const damaged = Buffer.from(pfx);
    damaged[Math.floor(damaged.length / 2)]! ^= 0xff;
    expect(() => decodePkcs12(damaged, 'pw')).toThrow(expect.objectContaining({ kind: expect.stringMatching(/password|unreadable/) }));
  });

  it('accepts an empty password', () => {
    expect(decodePkcs12(modernPfx(cert, ''), '').privateKeys).toHaveLength(1);
  });

  it('bounds hostile input: depth, iteration counts, garbage', () => {
    expect(() => decodePkcs12(nestedDer(5000), 'x')).toThrow(expect.objectContaining({ kind: 'unreadable' }));
    expect(() => decodePkcs12(hugeIterationPfx(modernPfx(cert, 'pw')), 'pw')).toThrow(expect.objectContaining({ kind: 'unsupported' }));
    expect(() => decodePkcs12(crypto.randomBytes(1000), 'x')).toThrow(expect.objectContaining({ kind: 'unreadable' }));
    expect(() => decodePkcs12(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x03]), 'x')).toThrow(expect.objectContaining({ kind: 'unreadable' }));
  });

  it('bounds the key-derivation work of a whole file', () => {
    // MAC, certificates and key at 2048 iterations each: 6144 in total.
    const pfx = modernPfx(cert, 'pw');
    expect(decodePkcs12(pfx, 'pw', { iterationBudget: 6144 }).privateKeys).toHaveLength(1);
    expect(() => decodePkcs12(pfx, 'pw', { iterationBudget: 6000 })).toThrow(expect.objectContaining({ kind: 'unsupported' }));
  });

  it('a worker that misses its deadline is a retryable 503, not a verdict on the file', async () => {
    const { createPfxInspector } = await import('./isolated.ts');
    await expect(createPfxInspector({ timeoutMs: 1 }).inspect(modernPfx(cert, 'pw'), 'pw')).rejects.toMatchObject({
      kind: 'unavailable', // 503 (src/http/plugins/errors.ts)
      code: 'certificate_check_timeout',
    });
  });

  it('finds no key in a certificate-only file', () => {
    expect(decodePkcs12(noKeyPfx(cert, 'pw'), 'pw').privateKeys).toHaveLength(0);
    expect(() => inspectPfx(noKeyPfx(cert, 'pw'), 'pw')).toThrow(expect.objectContaining({ code: 'certificate_key_missing' }));
  });
});
