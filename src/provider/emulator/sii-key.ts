import crypto, { type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The emulator's stand-in for the SII's CAF-signing key. IDK 666 marks its CAFs as not the SII's
 * (LibreDTE's convention), so they can never be mistaken for real folios.
 *
 * The keypair is generated once and kept in the data directory (`sii-666.key.pem`, mode 0600),
 * with its public half beside it (`sii-666.pub.pem`) for verifiers and `check-sii-xml --caf-key`.
 * Creation is race-free across processes: the key is written to a temporary file and linked into
 * place, which fails if another process got there first; the loser reads the winner's key.
 */
export const EMULATOR_IDK = 666;
export const PRIVATE_KEY_FILE = `sii-${EMULATOR_IDK}.key.pem`;
export const PUBLIC_KEY_FILE = `sii-${EMULATOR_IDK}.pub.pem`;

export interface EmulatorSiiKey {
  idk: number;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicKeyPem: string;
  /** Where the public key PEM is, when the key lives in a directory. */
  publicKeyPath: string | null;
}

const fromPrivatePem = (pem: string, publicKeyPath: string | null): EmulatorSiiKey => {
  const privateKey = crypto.createPrivateKey(pem);
  const publicKey = crypto.createPublicKey(privateKey);
  return {
    idk: EMULATOR_IDK,
    privateKey,
    publicKey,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    publicKeyPath,
  };
};

const generatePem = (): string =>
  crypto.generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** A key kept only in memory (tests, or an emulator run without a data directory). */
export function ephemeralSiiKey(): EmulatorSiiKey {
  return fromPrivatePem(generatePem(), null);
}

export function loadOrCreateSiiKey(dir: string): EmulatorSiiKey {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, PRIVATE_KEY_FILE);
  const pubFile = path.join(dir, PUBLIC_KEY_FILE);
  if (!fs.existsSync(file)) {
    const tmp = path.join(dir, `.${PRIVATE_KEY_FILE}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`);
    fs.writeFileSync(tmp, generatePem(), { mode: 0o600 });
    try {
      fs.linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  const key = fromPrivatePem(fs.readFileSync(file, 'utf8'), pubFile);
  // Derived from the private key, so rewriting it is always safe (atomic rename).
  if (!fs.existsSync(pubFile) || fs.readFileSync(pubFile, 'utf8') !== key.publicKeyPem) {
    const tmp = `${pubFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, key.publicKeyPem);
    fs.renameSync(tmp, pubFile);
  }
  return key;
}
