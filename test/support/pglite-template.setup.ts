import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/db/migrate.ts';
import { MAIN_MIGRATIONS } from '../../src/db/open.ts';
import { createPglite } from '../../src/db/pglite.ts';
import { SECRETS_MIGRATIONS } from '../../src/secrets/secret-store.ts';

/**
 * Vitest global setup: one migrated PGlite database per migration set (the service's and the
 * secrets store's), dumped once per run; test databases are copies of it (test/support/db.ts).
 * Creating an empty PGlite database (its initdb) and migrating it is most of what opening one
 * costs, and every test app opens two.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    /** Tar files of the migrated templates, by migrations folder. */
    pgliteTemplates: Record<string, string>;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dte-pglite-template-'));
  const templates: Record<string, string> = {};
  for (const [name, migrations] of [
    ['main', MAIN_MIGRATIONS],
    ['secrets', SECRETS_MIGRATIONS],
  ] as const) {
    const { pg, db } = await createPglite(undefined);
    try {
      await migrate(db, migrations);
      // Only `postgres` is used: without template0 and template1 the dump is 25 MB instead of 40,
      // and unpacking a copy costs ~0.5 s less CPU (docs/performance.md, "Seventh round").
      // (One statement per call: DROP DATABASE refuses to run inside the block a multi-statement call makes.)
      await pg.exec(`update pg_database set datistemplate = false where datname in ('template0', 'template1')`);
      for (const name of ['template0', 'template1']) await pg.exec(`drop database ${name}`);
      await pg.exec('checkpoint');
      const file = path.join(dir, `${name}.tar`);
      writeFileSync(file, Buffer.from(await (await pg.dumpDataDir('none')).arrayBuffer()));
      templates[migrations] = file;
    } finally {
      await pg.close();
    }
  }
  project.provide('pgliteTemplates', templates);
  return () => rmSync(dir, { recursive: true, force: true });
}
