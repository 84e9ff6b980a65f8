import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/**
 * An exclusive lock on a PGlite data directory. PGlite is an in-process PostgreSQL: two processes
 * opening the same directory corrupt it, so the second one must stop with a clear message.
 *
 * What the lock must guarantee (docs/design.md §10, docs/operations.md "The data directory lock"):
 * - released by the kernel when its owner dies, kill -9 included. A pid written in a file is not
 *   enough, because pids are reused: in a container the service is PID 1 after every restart, so
 *   "pid 1 still holds it" was always true.
 * - only the owner of the data directory can take it. The previous lock, a socket in the abstract
 *   namespace named after the directory, was free for any local user to bind first (abstract
 *   sockets have no permissions), which kept the service from starting (issue 30, F).
 * - a second holder is refused at once, in another process or in this one.
 *
 * So the lock is a POSIX advisory lock (fcntl) on `.lock.db`, a file inside the directory, which is
 * 0700 and owned by the service's user: nobody else can open the file, so nobody else can lock it;
 * the kernel drops the lock when the holder's descriptor closes, whichever way it dies. Node has no
 * fcntl of its own, but its built-in SQLite (`node:sqlite`, no native build of ours) takes exactly
 * such locks: an open `BEGIN EXCLUSIVE` on an empty database is an exclusive fcntl lock on the
 * file, a second connection (in any process) gets SQLITE_BUSY at once, and SQLite keeps track of
 * the locks of one process itself (plain fcntl locks would not refuse this process's own second
 * attempt). Fcntl locks are not inherited by child processes (PGlite's init child never holds it)
 * and work the same on macOS. Rejected: a `flock(1)` child process (an external binary, and one
 * more process that must die with us), a pid file with start-time checks (PID 1 in two containers
 * sharing a volume look alike; a fcntl lock on the shared file does see the other container).
 *
 * `.lock.db` stays when released (removing a lock file races with a process about to lock it).
 * The `.lock` file beside it only tells the message which pid holds the lock.
 */
export class DirectoryLockedError extends Error {
  constructor(dir: string, pid: number | undefined) {
    super(
      `The data directory ${dir} is in use by another process${pid ? ` (pid ${pid})` : ''}. ` +
        'Only one process may open an embedded (PGlite) database. Stop the other process, ' +
        'or set DATABASE_URL to use PostgreSQL, which many processes can share.',
    );
    this.name = 'DirectoryLockedError';
  }
}

export type ReleaseLock = () => void;

const SQLITE_BUSY = 5;

/**
 * Every lock this process holds. A DatabaseSync that nothing references is closed by the garbage
 * collector, which would drop the lock while the directory is still in use: a caller that kept
 * no release function (a script, a test's child) lost its lock at the first collection.
 */
const held = new Set<DatabaseSync>();

const readPid = (file: string): number | undefined => {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The directory private to its owner before anything in it is opened. A lock file someone else
 * owns (left from a time the directory was open to others, and possibly held open by them) is
 * replaced by one of ours: we own the directory, so we may remove it.
 */
function makePrivate(dir: string, lockFile: string): void {
  const st = fs.statSync(dir);
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
  const uid = process.getuid?.();
  try {
    const f = fs.lstatSync(lockFile);
    if (!f.isFile() || (uid !== undefined && f.uid !== uid)) fs.rmSync(lockFile, { recursive: true, force: true });
  } catch {
    /* not there yet */
  }
}

export async function lockDirectory(dir: string): Promise<ReleaseLock> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pidFile = path.join(dir, '.lock');
  const lockFile = path.join(dir, '.lock.db');
  makePrivate(dir, lockFile);
  const db = new DatabaseSync(lockFile, { timeout: 0 });
  try {
    // No journal file: nothing is ever written, the open transaction is only there for its lock.
    db.exec('PRAGMA journal_mode = MEMORY; BEGIN EXCLUSIVE');
  } catch (e) {
    db.close();
    if ((e as { errcode?: number }).errcode === SQLITE_BUSY) throw new DirectoryLockedError(dir, readPid(pidFile));
    throw e;
  }
  fs.writeFileSync(pidFile, String(process.pid), { mode: 0o600 });
  held.add(db);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    try {
      if (readPid(pidFile) === process.pid) fs.unlinkSync(pidFile);
    } catch {
      /* already gone */
    }
    held.delete(db);
    db.close(); // closes the descriptor: the kernel drops the lock
  };
}
