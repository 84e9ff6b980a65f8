import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import crypto from 'node:crypto';
import { siiKeyFromCertificate, type SiiKeys } from '../dte/index.ts';

/**
 * The keys a CAF's FRMA may verify with, by IDK: the SII's own (sii-certs/README.md), plus the
 * emulator's when the emulator is the provider (in-process), or when its public key file is
 * configured (EMULATOR_SII_PUBLIC_KEY, for `PROVIDER=simpleapi` pointed at a standalone emulator).
 */
const CERT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sii-certs');

let official: SiiKeys | undefined;

export function officialSiiKeys(): SiiKeys {
  official ??= Object.freeze({
    '100': siiKeyFromCertificate(fs.readFileSync(path.join(CERT_DIR, '100.cer'))),
    '300': siiKeyFromCertificate(fs.readFileSync(path.join(CERT_DIR, '300.cer'))),
  });
  return official;
}

export function cafTrust(extra: { idk: number; publicKey: crypto.KeyObject | string }[] = []): SiiKeys {
  const keys: Record<string, crypto.KeyObject> = { ...officialSiiKeys() };
  for (const k of extra) keys[String(k.idk)] = typeof k.publicKey === 'string' ? crypto.createPublicKey(k.publicKey) : k.publicKey;
  return Object.freeze(keys);
}
