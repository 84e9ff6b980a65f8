import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.ts';
import { openDatabase } from './db/open.ts';
import type { Db } from './db/types.ts';
import { loadKeyrings, type Keyrings } from './secrets/keyring-files.ts';
import { openSecretsDatabase } from './secrets/open.ts';

/**
 * Opens what the context needs besides the clock: the main database, its keyrings, and the
 * separate secrets store. The main database goes first: with PGlite its directory lock makes this
 * process the only one that may also create the embedded key files.
 */
export interface Stores {
  db: Db;
  secretsDb: Db;
  keyrings: Keyrings;
  secretsDescription: string;
  close(): Promise<void>;
}

export async function openStores(config: Config, log: (message: string) => void = () => {}): Promise<Stores> {
  // A data directory this process creates is private from the start (docs/design.md §10); an
  // existing one is left as its owner set it, but the database directories inside are tightened.
  if (!config.databaseUrl) fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const db = await openDatabase({
    url: config.databaseUrl,
    dir: path.join(config.dataDir, 'main'),
    preparedStatements: config.databasePreparedStatements,
  });
  try {
    const keyrings = loadKeyrings(config, log);
    const secrets = await openSecretsDatabase(config);
    return {
      db,
      secretsDb: secrets.db,
      keyrings,
      secretsDescription: secrets.description,
      async close() {
        await secrets.db.close().catch(() => {});
        await db.close();
      },
    };
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
}
