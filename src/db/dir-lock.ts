import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * An exclusive lock on a PGlite data directory. PGlite is an in-process PostgreSQL: two processes
 * opening the same directory corrupt it, so the second one must stop with a clear message.
 *
 * The lock must be released by the operating system when its owner dies (kill -9 included): a pid
 * written in a file is not enough, because pids are reused — in a container the service is PID 1
 * after every restart, so "pid 1 still holds it" was always true (docs/design.md §10). On Linux the
 * lock is a listening socket in the abstract namespace, named after the directory: binding it is
 * atomic, a second binder gets EADDRINUSE, and the kernel frees the name the moment the owner's
 * last file descriptor closes. The `.lock` file beside the data only tells the message which pid
 * holds it. Elsewhere (macOS) the pid file is the lock, with the old stale-pid takeover.
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

const readPid = (file: string): number | undefined => {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
};

/** The abstract socket name of a directory: the same for every path that reaches it. */
export const lockName = (dir: string): string =>
  `\0dte-pglite-${crypto.createHash('sha256').update(fs.realpathSync(dir)).digest('hex').slice(0, 40)}`;

async function socketLock(dir: string, file: string): Promise<ReleaseLock> {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRINUSE') reject(new DirectoryLockedError(dir, readPid(file)));
      else reject(e);
    });
    server.listen({ path: lockName(dir), exclusive: true }, () => resolve());
  });
  server.unref(); // the lock never keeps the process alive
  fs.writeFileSync(file, String(process.pid), { mode: 0o600 });
  return releaser(file, () => server.close());
}

/** Releases once: removes the pid file if it is still ours, then `also`. */
function releaser(file: string, also: () => void = () => {}): ReleaseLock {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    try {
      if (readPid(file) === process.pid) fs.unlinkSync(file);
    } catch {
      /* already gone */
    }
    also();
  };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function pidFileLock(dir: string, file: string): ReleaseLock {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      return releaser(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = readPid(file);
      if (pid !== undefined && (pid === process.pid || alive(pid))) throw new DirectoryLockedError(dir, pid);
      fs.unlinkSync(file); // stale: its owner is gone
    }
  }
  throw new Error(`Could not lock ${dir}`);
}

export async function lockDirectory(dir: string): Promise<ReleaseLock> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, '.lock');
  return process.platform === 'linux' ? socketLock(dir, file) : pidFileLock(dir, file);
}
