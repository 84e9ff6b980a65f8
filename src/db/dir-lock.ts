import fs from 'node:fs';
import path from 'node:path';

/**
 * An exclusive lock on a PGlite data directory. PGlite is an in-process PostgreSQL: two processes
 * opening the same directory corrupt it, so the second one must stop with a clear message.
 * The lock file holds the owner's pid; a lock left by a dead process is taken over.
 */
export class DirectoryLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `The data directory ${dir} is in use by another process (pid ${pid}). ` +
        'Only one process may open an embedded (PGlite) database. Stop the other process, ' +
        'or set DATABASE_URL to use PostgreSQL, which many processes can share.',
    );
    this.name = 'DirectoryLockedError';
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export function lockDirectory(dir: string): () => void {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, '.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          if (fs.readFileSync(file, 'utf8') === String(process.pid)) fs.unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(fs.readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new DirectoryLockedError(dir, pid);
      }
      if (pid === process.pid) throw new DirectoryLockedError(dir, pid);
      fs.unlinkSync(file); // stale: its owner is gone
    }
  }
  throw new Error(`Could not lock ${dir}`);
}
