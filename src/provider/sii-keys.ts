import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import crypto from 'node:crypto';
import { siiKeyFromCertificate, type SiiKeys } from '../dte/index.ts';
import { SII_CAF_IDK } from './sii-idk.ts';

/**
 * The keys a CAF's FRMA may verify with, by IDK: the SII's own (sii-certs/README.md), plus the
 * emulator's when the emulator is the provider (in-process), or when its public key file is
 * configured (EMULATOR_SII_PUBLIC_KEY, for `PROVIDER=simpleapi` pointed at a standalone emulator),
 * plus any the operator adds with SII_CAF_KEYS (config.ts). The SII's two can never be replaced.
 */
const CERT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sii-certs');

export { SII_CAF_IDK, siiAmbienteOfIdk } from './sii-idk.ts';

let official: SiiKeys | undefined;

export function officialSiiKeys(): SiiKeys {
  official ??= Object.freeze({
    [String(SII_CAF_IDK.certificacion)]: siiKeyFromCertificate(fs.readFileSync(path.join(CERT_DIR, '100.cer'))),
    [String(SII_CAF_IDK.produccion)]: siiKeyFromCertificate(fs.readFileSync(path.join(CERT_DIR, '300.cer'))),
  });
  return official;
}

/** The official keys plus `extra`; an extra key may not take the place of a key already in the set. */
export function cafTrust(extra: { idk: number; publicKey: crypto.KeyObject | string }[] = []): SiiKeys {
  const keys: Record<string, crypto.KeyObject> = { ...officialSiiKeys() };
  for (const k of extra) {
    if (keys[String(k.idk)]) throw new Error(`Two CAF keys for IDK ${k.idk}: each IDK names one key`);
    keys[String(k.idk)] = typeof k.publicKey === 'string' ? crypto.createPublicKey(k.publicKey) : k.publicKey;
  }
  return Object.freeze(keys);
}
