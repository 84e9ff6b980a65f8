import type { Db } from '../db/types.ts';
import type { Envelope } from './envelope.ts';
import { addKeyToFile, dropKeysFromFile, readKeyringFile, replaceKeyring, type Keyrings, type StoreName } from './keyring-files.ts';
import { keyUsage, rewrapAll } from './rotation.ts';
import type { SecretStore } from './secret-store.ts';
import type { EncryptedColumn } from './encrypted-columns.ts';

/**
 * The `npx dte keys …` commands, run in the process that holds the keyrings (the server through
 * its admin socket, or the CLI itself). See docs/secrets.md for the rotation procedure.
 */
export interface KeysContext {
  db: Db;
  keyrings: Keyrings;
  secrets: { dataCipher: Envelope; secretsEnvelope: Envelope; store: SecretStore };
  /** Every encrypted column of the main database (the composition root lists them). */
  encryptedColumns: EncryptedColumn[];
}

const STORES: StoreName[] = ['data', 'secrets'];

export async function keyStatus(ctx: KeysContext) {
  const usage = await keyUsage({ db: ctx.db, secretStore: ctx.secrets.store, columns: ctx.encryptedColumns });
  return Object.fromEntries(
    STORES.map((s) => [
      s,
      {
        source: ctx.keyrings[s].file ? `file ${ctx.keyrings[s].file}` : s === 'data' ? 'DATA_ENCRYPTION_KEY' : 'SECRETS_ENCRYPTION_KEY',
        currentKeyId: ctx.keyrings[s].keyring.current.id,
        keyIds: [...ctx.keyrings[s].keyring.byId.keys()],
        ciphertextsByKey: usage[s],
      },
    ]),
  );
}

/**
 * Step 2 of a rotation (or steps 1 and 2 for file keyrings, with addKey): re-encrypt everything
 * under the current key. With keys from the environment the new key must already be first in the
 * setting; with key files a new key is written first in the file and loaded here.
 */
export async function rotateKeys(ctx: KeysContext, opts: { stores: StoreName[]; addKey: boolean }) {
  const added: Record<string, string> = {};
  if (opts.addKey)
    for (const s of opts.stores) {
      const file = ctx.keyrings[s].file;
      if (!file) continue;
      added[s] = addKeyToFile(file, s);
      replaceKeyring(ctx.keyrings[s].keyring, readKeyringFile(file, s));
    }
  const report = await rewrapAll({
    db: ctx.db,
    dataEnvelope: ctx.secrets.dataCipher,
    secretStore: ctx.secrets.store,
    secretsEnvelope: ctx.secrets.secretsEnvelope,
    columns: opts.stores.includes('data') ? ctx.encryptedColumns : [],
    rewrapSecrets: opts.stores.includes('secrets'),
  });
  return { added, report, status: await keyStatus(ctx) };
}

/** Step 3 for key files: removes keys no ciphertext uses any more (never the current one). */
export async function pruneKeys(ctx: KeysContext, stores: StoreName[]) {
  const status = await keyStatus(ctx);
  const removed: Record<string, string[]> = {};
  for (const s of stores) {
    const file = ctx.keyrings[s].file;
    if (!file) continue;
    const inUse = status[s]!.ciphertextsByKey;
    const drop = status[s]!.keyIds.filter((id) => id !== status[s]!.currentKeyId && !inUse[id]);
    if (drop.length === 0) continue;
    dropKeysFromFile(file, s, drop);
    replaceKeyring(ctx.keyrings[s].keyring, readKeyringFile(file, s));
    removed[s] = drop;
  }
  return { removed, status: await keyStatus(ctx) };
}
