/**
 * `node <PGLITE_NODE_FLAGS> src/db/pglite-init.ts DIR [MIGRATIONS_DIR]`: creates an embedded
 * database in DIR (PGlite's initdb) and applies the migrations, then exits. Run by openPglite in a
 * child process, which holds DIR's lock meanwhile (src/db/pglite.ts).
 */
import { migrate } from './migrate.ts';
import { createPglite } from './pglite.ts';
import { keepNewFilesPrivate, makeTreePrivate } from './private-files.ts';

const [dir, migrationsDir] = process.argv.slice(2);
if (!dir) {
  console.error('usage: pglite-init.ts DIR [MIGRATIONS_DIR]');
  process.exit(2);
}
keepNewFilesPrivate();
const { db } = await createPglite(dir);
try {
  if (migrationsDir) await migrate(db, migrationsDir);
} finally {
  await db.close();
}
makeTreePrivate(dir);
