/**
 * `node <PGLITE_NODE_FLAGS> src/db/pglite-init.ts DIR [MIGRATIONS_DIR]`: creates an embedded
 * database in DIR (PGlite's initdb) and applies the migrations, then exits. Run by openPglite in a
 * child process, which holds the lock meanwhile and moves DIR into place when this succeeded
 * (src/db/pglite.ts). Exits when the parent goes away.
 */
import { migrate } from './migrate.ts';
import { createPglite } from './pglite.ts';
import { keepNewFilesPrivate, makeTreePrivate } from './private-files.ts';

const [dir, migrationsDir] = process.argv.slice(2);
if (!dir) {
  console.error('usage: pglite-init.ts DIR [MIGRATIONS_DIR]');
  process.exit(2);
}
// Never outlive the process that holds the directory's lock (src/db/pglite.ts).
process.on('disconnect', () => process.exit(1));
keepNewFilesPrivate();
const { db } = await createPglite(dir);
try {
  if (migrationsDir) await migrate(db, migrationsDir);
} finally {
  await db.close();
}
makeTreePrivate(dir);
// Done: the IPC channel would keep this process alive.
process.exit(0);
