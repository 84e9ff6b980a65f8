import crypto from 'node:crypto';

/**
 * Envelope encryption (AES-256-GCM). Each object gets its own random data key; the data key is
 * wrapped by a key-encryption key (KEK) from a keyring. Callers only see encrypt/decrypt.
 *
 * Ciphertext layout (one Buffer, versioned so the format can change):
 *   [0]      format version (1)
 *   [1]      KEK id length n, then n bytes of KEK id (ASCII)
 *   12 B     IV for the wrapped data key, 16 B tag, 32 B wrapped data key
 *   12 B     IV for the data, 16 B tag, rest = encrypted data
 * The associated data (e.g. `tenant:<id>:pfx`) is bound to both layers: a ciphertext moved to
 * another owner, or any flipped bit, fails to decrypt (fails closed, never returns garbage).
 */
export const FORMAT_VERSION = 1;

export interface Keyring {
  /** The KEK used for new ciphertexts. */
  current: { id: string; key: Buffer };
  /** Every KEK that may still be needed to decrypt, by id (includes current). */
  byId: Map<string, Buffer>;
}

export class DecryptionError extends Error {
  constructor(reason: string) {
    super(`Could not decrypt: ${reason}`);
    this.name = 'DecryptionError';
  }
}

/** Parses `id:base64key[,id:base64key…]` (first = current). Keys must be 32 bytes. */
export function parseKeyring(spec: string, settingName = 'key'): Keyring {
  const byId = new Map<string, Buffer>();
  let current: Keyring['current'] | undefined;
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z0-9_-]{1,32}):([A-Za-z0-9+/=_-]+)$/.exec(part);
    if (!m) throw new Error(`${settingName}: each entry must be id:base64key (32 bytes), e.g. k1:…`);
    const key = Buffer.from(m[2]!, 'base64');
    if (key.length !== 32) throw new Error(`${settingName}: key '${m[1]}' must decode to 32 bytes, got ${key.length}`);
    if (byId.has(m[1]!)) throw new Error(`${settingName}: key id '${m[1]}' appears twice`);
    byId.set(m[1]!, key);
    current ??= { id: m[1]!, key };
  }
  if (!current) throw new Error(`${settingName}: no key given`);
  return { current, byId };
}

export const generateKeySpec = (id = `k${Date.now().toString(36)}`): string => `${id}:${crypto.randomBytes(32).toString('base64')}`;

const gcm = (key: Buffer, plaintext: Buffer, aad: Buffer) => {
  const iv = crypto.randomBytes(12);
  const c = crypto.createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(aad);
  const data = Buffer.concat([c.update(plaintext), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), data]);
};

const ungcm = (key: Buffer, blob: Buffer, aad: Buffer): Buffer => {
  if (blob.length < 28) throw new DecryptionError('truncated');
  const d = crypto.createDecipheriv('aes-256-gcm', key, blob.subarray(0, 12));
  d.setAAD(aad);
  d.setAuthTag(blob.subarray(12, 28));
  try {
    return Buffer.concat([d.update(blob.subarray(28)), d.final()]);
  } catch {
    throw new DecryptionError('authentication failed (tampered, wrong key or wrong owner)');
  }
};

export function createEnvelope(keyring: Keyring) {
  const encrypt = (plaintext: Buffer | string, associatedData: string): Buffer => {
    const aad = Buffer.from(associatedData, 'utf8');
    const dataKey = crypto.randomBytes(32);
    const kekId = Buffer.from(keyring.current.id, 'ascii');
    const header = Buffer.concat([Buffer.from([FORMAT_VERSION, kekId.length]), kekId]);
    // The wrapped key is bound to the header and the owner, so neither can be swapped.
    const wrapped = gcm(keyring.current.key, dataKey, Buffer.concat([header, aad]));
    const body = gcm(dataKey, Buffer.isBuffer(plaintext) ? plaintext : Buffer.from(plaintext, 'utf8'), Buffer.concat([header, aad]));
    dataKey.fill(0);
    return Buffer.concat([header, wrapped, body]);
  };
  const parse = (blob: Buffer) => {
    if (blob.length < 2 || blob[0] !== FORMAT_VERSION) throw new DecryptionError('unknown format version');
    const n = blob[1]!;
    const header = blob.subarray(0, 2 + n);
    const kekId = header.subarray(2).toString('ascii');
    const wrapped = blob.subarray(2 + n, 2 + n + 60);
    const body = blob.subarray(2 + n + 60);
    if (wrapped.length !== 60) throw new DecryptionError('truncated');
    return { header, kekId, wrapped, body };
  };
  const decrypt = (blob: Buffer, associatedData: string): Buffer => {
    const { header, kekId, wrapped, body } = parse(blob);
    const kek = keyring.byId.get(kekId);
    if (!kek) throw new DecryptionError(`key '${kekId}' is not in the keyring`);
    const aad = Buffer.concat([header, Buffer.from(associatedData, 'utf8')]);
    const dataKey = ungcm(kek, wrapped, aad);
    try {
      return ungcm(dataKey, body, aad);
    } finally {
      dataKey.fill(0);
    }
  };
  return {
    encrypt,
    decrypt,
    decryptString: (blob: Buffer, aad: string) => decrypt(blob, aad).toString('utf8'),
    /** Which KEK protects a ciphertext (rotation re-wraps those not under the current one). */
    keyIdOf: (blob: Buffer) => parse(blob).kekId,
    /** Re-encrypts under the current KEK (used by key rotation). */
    rewrap: (blob: Buffer, aad: string) => encrypt(decrypt(blob, aad), aad),
    /** A getter: key rotation can swap the keyring's current key while the process runs. */
    get currentKeyId() {
      return keyring.current.id;
    },
  };
}

export type Envelope = ReturnType<typeof createEnvelope>;
