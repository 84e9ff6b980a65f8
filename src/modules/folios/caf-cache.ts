import { parseCafBlock, type Caf } from '../../dte/index.ts';
import type { DataCipher } from '../../secrets/data-cipher.ts';
import { cafKeyAad } from './folios.encrypted.ts';

/**
 * Parsed CAFs, with their decrypted private key, by range. Decrypting and parsing the CAF for every
 * document would dominate issuing. Bounded (oldest entry out first), and only in this process's
 * memory: a range's CAF never changes, so an entry is never stale.
 */
export function createCafCache(cipher: Pick<DataCipher, 'decryptString'>, max = 256) {
  const cache = new Map<string, Caf>();
  return {
    get(range: { accountId: string; tenantId: string; rangeId: string; cafBlock: string; privateKeyEnc: Buffer }): Caf {
      const hit = cache.get(range.rangeId);
      if (hit) return hit;
      const pem = cipher.decryptString(range.privateKeyEnc, cafKeyAad(range.accountId, range.tenantId, range.rangeId));
      const caf = parseCafBlock(range.cafBlock, pem);
      if (cache.size >= max) cache.delete(cache.keys().next().value as string);
      cache.set(range.rangeId, caf);
      return caf;
    },
    get size() {
      return cache.size;
    },
  };
}

export type CafCache = ReturnType<typeof createCafCache>;
