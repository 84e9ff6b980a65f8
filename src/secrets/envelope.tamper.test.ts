import { describe, expect, it } from 'vitest';
import { createEnvelope, DecryptionError, generateKeySpec, parseKeyring } from './envelope.ts';
import { ownerAad } from './data-cipher.ts';

// The owner string of a stored .pfx (as the credentials module builds it).
const pfxAad = (accountId: string, tenantId: string, id: string) => ownerAad({ accountId, tenantId, kind: 'pfx', id });

/**
 * Tampering with a stored envelope fails closed: every flipped bit in any part, a truncation, or
 * a ciphertext moved to another tenant raises DecryptionError and never returns data.
 * Layout: [version][n][kek id n bytes][iv 12][tag 16][wrapped key 32][iv 12][tag 16][data…]
 */
describe('envelope tampering', () => {
  const env = createEnvelope(parseKeyring(generateKeySpec('k1')));
  const a = pfxAad('acc-1', 'tenant-a', 'cert-1');
  const pfx = Buffer.from('0123456789abcdef'.repeat(64));
  const blob = env.encrypt(pfx, a);
  const h = 2 + 2; // header: version, length, "k1"
  const parts: [string, number][] = [
    ['version byte', 0],
    ['key id', 2],
    ['IV of the wrapped key', h],
    ['tag of the wrapped key', h + 12],
    ['wrapped data key', h + 28],
    ['IV of the data', h + 60],
    ['tag of the data', h + 72],
    ['data (first byte)', h + 88],
    ['data (last byte)', blob.length - 1],
  ];

  it('round-trips', () => {
    expect(env.decrypt(blob, a).equals(pfx)).toBe(true);
  });

  it.each(parts)('a flipped bit in the %s fails closed', (_part, offset) => {
    for (const bit of [0, 7]) {
      const bad = Buffer.from(blob);
      bad[offset]! ^= 1 << bit;
      expect(() => env.decrypt(bad, a)).toThrow(DecryptionError);
    }
  });

  it('truncations fail closed', () => {
    for (const n of [0, 1, 3, h + 30, h + 60, h + 87, blob.length - 1])
      expect(() => env.decrypt(blob.subarray(0, n), a)).toThrow(DecryptionError);
  });

  it("another tenant's ciphertext does not open under this tenant (swap between tenants)", () => {
    const b = pfxAad('acc-1', 'tenant-b', 'cert-2');
    const other = env.encrypt(Buffer.from('tenant b pfx'), b);
    expect(() => env.decrypt(other, a)).toThrow(DecryptionError);
    expect(() => env.decrypt(blob, b)).toThrow(DecryptionError);
    // Same tenant, another certificate id, or another account: refused too.
    expect(() => env.decrypt(blob, pfxAad('acc-1', 'tenant-a', 'cert-9'))).toThrow(DecryptionError);
    expect(() => env.decrypt(blob, pfxAad('acc-2', 'tenant-a', 'cert-1'))).toThrow(DecryptionError);
  });

  it('swapping the wrapped data key between two envelopes fails closed', () => {
    const second = env.encrypt(pfx, a);
    const mixed = Buffer.concat([blob.subarray(0, h + 60), second.subarray(h + 60)]);
    expect(() => env.decrypt(mixed, a)).toThrow(DecryptionError);
  });

  it('a key missing from the keyring fails closed', () => {
    const stranger = createEnvelope(parseKeyring(generateKeySpec('k9')));
    expect(() => stranger.decrypt(blob, a)).toThrow(/not in the keyring/);
  });
});
