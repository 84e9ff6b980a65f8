import fs from 'node:fs';
import path from 'node:path';

/**
 * The embedded databases hold ciphertexts, hashes and every tenant's documents: other users of the
 * machine must not read them (docs/design.md §10). Two halves:
 * - `keepNewFilesPrivate` sets the process umask to 077, so every file PGlite creates later (WAL
 *   segments, relation files) is 0600 and every directory 0700, whatever umask the process started
 *   with. It is process-wide on purpose: this process owns an embedded database, and nothing it
 *   writes is meant for other users.
 * - `makeTreePrivate` tightens what already exists (a directory made by an older version, or under
 *   a looser umask) to 0700/0600.
 */
export function keepNewFilesPrivate(): void {
  process.umask(0o077);
}

export function makeTreePrivate(dir: string): void {
  const walk = (p: string) => {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      return; // removed meanwhile
    }
    if (st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      if ((st.mode & 0o777) !== 0o700) fs.chmodSync(p, 0o700);
      for (const name of fs.readdirSync(p)) walk(path.join(p, name));
    } else if ((st.mode & 0o077) !== 0) {
      fs.chmodSync(p, st.mode & 0o700);
    }
  };
  walk(dir);
}
