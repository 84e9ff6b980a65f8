import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { equalBytes, fromBase64, hmacSha256, sha256 } from '../src/hmac-sha256.ts';

/** The SDK's own SHA-256 and HMAC (no node:crypto, so it runs anywhere) against Node's, on many sizes. */
describe('hmac-sha256', () => {
  it('matches node:crypto for every length around the block boundaries and for random data', () => {
    for (const n of [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 70_000]) {
      const data = crypto.randomBytes(n);
      expect(Buffer.from(sha256(data)).toString('hex'), `sha256 of ${n} bytes`).toBe(
        crypto.createHash('sha256').update(data).digest('hex'),
      );
      for (const keyLength of [0, 16, 32, 64, 65, 200]) {
        const key = crypto.randomBytes(keyLength);
        expect(Buffer.from(hmacSha256(key, data)).toString('hex'), `hmac ${keyLength}/${n}`).toBe(
          crypto.createHmac('sha256', key).update(data).digest('hex'),
        );
      }
    }
  });

  it('gives the RFC 4231 test case 2 value', () => {
    const mac = hmacSha256(new TextEncoder().encode('Jefe'), new TextEncoder().encode('what do ya want for nothing?'));
    expect(Buffer.from(mac).toString('hex')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });

  it('compares bytes and reads base64 (standard and URL-safe), refusing what is not base64', () => {
    expect(equalBytes(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(equalBytes(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(equalBytes(new Uint8Array([1]), new Uint8Array([1, 2]))).toBe(false);
    const bytes = crypto.randomBytes(40);
    expect(Buffer.from(fromBase64(bytes.toString('base64'))!).equals(bytes)).toBe(true);
    expect(Buffer.from(fromBase64(bytes.toString('base64url'))!).equals(bytes)).toBe(true);
    expect(fromBase64('not base64!')).toBeNull();
  });
});
