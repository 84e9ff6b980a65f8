import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { generateKeySpec, parseKeyring, type Keyring } from './envelope.ts';

/**
 * Where the two keyrings come from. Each store has its own key-encryption keys:
 * - `data`    (DATA_ENCRYPTION_KEY) protects ciphertexts in the main database (.pfx files, CAF keys);
 * - `secrets` (SECRETS_ENCRYPTION_KEY) protects the separate secrets store (.pfx passwords,
 *   billing-provider API keys).
 * A setting wins. Otherwise (the embedded default only: config.ts refuses missing keys when a
 * DATABASE_URL is set) each keyring lives in a file under KEYS_DIR, created on first start with
 * mode 0600 in a 0700 directory, apart from the data so a copy of the data alone is useless.
 * File format: one `id:base64key` per line, first line = current key.
 */
export type StoreName = 'data' | 'secrets';

export interface KeyringSource {
  keyring: Keyring;
  /** The key file, when the keyring is not set in the environment. */
  file: string | undefined;
}

export type Keyrings = Record<StoreName, KeyringSource>;

const SETTING: Record<StoreName, 'DATA_ENCRYPTION_KEY' | 'SECRETS_ENCRYPTION_KEY'> = {
  data: 'DATA_ENCRYPTION_KEY',
  secrets: 'SECRETS_ENCRYPTION_KEY',
};

export const keyFilePath = (keysDir: string, store: StoreName): string => path.join(keysDir, `${store}-encryption.keys`);

export function readKeyringFile(file: string, _store?: StoreName): Keyring {
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  return parseKeyring(lines.join(','), file);
}

const writeAtomic = (file: string, content: string) => {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content, { mode: 0o600, flag: 'wx' });
  fs.renameSync(tmp, file);
};

const HEADER = (store: StoreName) =>
  `# Key-encryption keys of the ${store} store (first line = current). Keep this file secret and backed up\n` +
  `# apart from the data: without it the encrypted ${store === 'data' ? 'certificates' : 'passwords and API keys'} cannot be read.\n`;

/** Loads both keyrings, creating the key files of the embedded default when missing. */
export function loadKeyrings(config: Config, log: (message: string) => void = () => {}): Keyrings {
  const one = (store: StoreName): KeyringSource => {
    const spec = store === 'data' ? config.dataEncryptionKeys : config.secretsEncryptionKeys;
    if (spec) return { keyring: parseKeyring(spec, SETTING[store]), file: undefined };
    const file = keyFilePath(config.keysDir, store);
    if (!fs.existsSync(file)) {
      fs.mkdirSync(config.keysDir, { recursive: true, mode: 0o700 });
      fs.writeFileSync(file, `${HEADER(store)}${generateKeySpec('k1')}\n`, { mode: 0o600, flag: 'wx' });
      log(`Created the ${store} encryption key in ${file} (mode 0600). Back it up apart from the data, or set ${SETTING[store]}.`);
    } else {
      const mode = fs.statSync(file).mode & 0o077;
      if (mode !== 0) log(`Warning: ${file} is readable by other users; run: chmod 600 ${file}`);
    }
    return { keyring: readKeyringFile(file, store), file };
  };
  const rel = path.relative(config.dataDir, config.keysDir);
  if (!rel.startsWith('..') && !path.isAbsolute(rel) && !config.dataEncryptionKeys)
    log(`Warning: KEYS_DIR (${config.keysDir}) is inside DATA_DIR; a copy of the data would include its keys.`);
  return { data: one('data'), secrets: one('secrets') };
}

/**
 * Rotation, step 1 for file keyrings: a new key becomes the first line; older keys stay so that
 * existing ciphertexts can still be read until they are re-wrapped. Returns the new key's id.
 */
export function addKeyToFile(file: string, store: StoreName): string {
  const current = readKeyringFile(file, store);
  let n = current.byId.size + 1;
  while (current.byId.has(`k${n}`)) n++;
  const id = `k${n}`;
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'));
  writeAtomic(file, `${HEADER(store)}${generateKeySpec(id)}\n${lines.join('\n')}\n`);
  return id;
}

/** Removes keys that no ciphertext uses any more (rotation, last step, for file keyrings). */
export function dropKeysFromFile(file: string, store: StoreName, drop: string[]): void {
  const keep = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'))
    .filter((l) => !drop.includes(l.trim().split(':')[0]!));
  if (keep.length === 0) throw new Error('refusing to remove every key');
  writeAtomic(file, `${HEADER(store)}${keep.join('\n')}\n`);
  readKeyringFile(file, store);
}

/** Swaps a running keyring's contents in place (envelopes hold a reference to it). */
export function replaceKeyring(target: Keyring, fresh: Keyring): void {
  target.current = fresh.current;
  target.byId = fresh.byId;
}
