import path from 'node:path';
import type { Config } from '../config.ts';
import { openDatabase } from '../db/open.ts';
import { openPostgres } from '../db/postgres.ts';
import type { Db } from '../db/types.ts';
import { SECRETS_MIGRATIONS } from './secret-store.ts';

/**
 * Opens the secrets store's own database, with its own migrations:
 * - SECRETS_DATABASE_URL: that PostgreSQL database (in SECRETS_DATABASE_SCHEMA when set);
 * - else, with DATABASE_URL: the same server, in the schema SECRETS_DATABASE_SCHEMA (default
 *   `dte_secrets`) — still its own keyring, but a weaker separation, which the log says;
 * - else the embedded default: a second PGlite directory, DATA_DIR/secrets.
 */
export const DEFAULT_SECRETS_SCHEMA = 'dte_secrets';

export interface SecretsDbLocation {
  url: string | undefined;
  schema: string | undefined;
  dir: string | undefined;
  description: string;
}

export function secretsDbLocation(config: Config): SecretsDbLocation {
  if (config.secretsDatabaseUrl)
    return {
      url: config.secretsDatabaseUrl,
      schema: config.secretsDatabaseSchema,
      dir: undefined,
      description: `PostgreSQL (SECRETS_DATABASE_URL${config.secretsDatabaseSchema ? `, schema ${config.secretsDatabaseSchema}` : ''})`,
    };
  if (config.databaseUrl) {
    const schema = config.secretsDatabaseSchema ?? DEFAULT_SECRETS_SCHEMA;
    return {
      url: config.databaseUrl,
      schema,
      dir: undefined,
      description: `schema ${schema} of the main PostgreSQL database (set SECRETS_DATABASE_URL for a separate database)`,
    };
  }
  const dir = path.join(config.dataDir, 'secrets');
  return { url: undefined, schema: undefined, dir, description: `PGlite in ${dir}` };
}

export async function openSecretsDatabase(config: Config): Promise<{ db: Db; description: string }> {
  const loc = secretsDbLocation(config);
  if (loc.url && loc.schema) {
    const admin = await openPostgres(loc.url, { max: 1 });
    try {
      await admin.query(`create schema if not exists ${loc.schema}`).catch((e: { code?: string }) => {
        // Two processes starting at once: the loser sees a duplicate, which is fine.
        if (e.code !== '23505' && e.code !== '42P06') throw e;
      });
    } finally {
      await admin.close();
    }
  }
  const db = await openDatabase({
    url: loc.url,
    dir: loc.dir,
    schema: loc.schema,
    migrationsDir: SECRETS_MIGRATIONS,
    poolMax: 4,
    preparedStatements: config.databasePreparedStatements,
  });
  return { db, description: loc.description };
}
