import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { copyServerData } from '../../test/support/server-data.ts';
import { DirectoryLockedError, lockDirectory } from './dir-lock.ts';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'lock-'));

it('refuses a second holder, even in the same process, with a message that says what to do', async () => {
  const dir = tmp();
  const release = await lockDirectory(dir);
  await expect(lockDirectory(dir)).rejects.toThrow(DirectoryLockedError);
  await expect(lockDirectory(dir)).rejects.toThrow(new RegExp(`in use by another process \\(pid ${process.pid}\\).*DATABASE_URL`, 's'));
  release();
  expect(fs.existsSync(path.join(dir, '.lock'))).toBe(false);
  (await lockDirectory(dir))();
});

it('ignores a pid file left behind: only a live holder locks, whatever pid the file names', async () => {
  const dir = tmp();
  // A live pid (our parent), as after a restart that reuses pids: the old check refused this.
  fs.writeFileSync(path.join(dir, '.lock'), String(process.ppid));
  const release = await lockDirectory(dir);
  expect(fs.readFileSync(path.join(dir, '.lock'), 'utf8')).toBe(String(process.pid));
  release();
});

it('is released by the operating system when its holder is killed with SIGKILL', async () => {
  const dir = tmp();
  const holder = spawn(
    process.execPath,
    [
      '-e',
      `import('${path.resolve('src/db/dir-lock.ts')}').then(async (m) => { await m.lockDirectory(${JSON.stringify(dir)}); console.log('locked'); setInterval(() => {}, 1000); })`,
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    await new Promise<void>((r) => holder.stdout.on('data', (c: Buffer) => c.toString().includes('locked') && r()));
    await expect(lockDirectory(dir)).rejects.toThrow(new RegExp(`pid ${holder.pid}`));
  } finally {
    await killAndWait(holder, 'SIGKILL');
  }
  (await lockDirectory(dir))();
});

it('stays held when its holder keeps no release function and the garbage collector runs', async () => {
  // Seen in CI: a DatabaseSync nothing referenced was collected and closed, dropping the lock.
  const dir = tmp();
  const holder = spawn(
    process.execPath,
    [
      '--expose-gc',
      '-e',
      `import('${path.resolve('src/db/dir-lock.ts')}').then(async (m) => { await m.lockDirectory(${JSON.stringify(dir)}); for (let i = 0; i < 3; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 20)); } console.log('locked'); setInterval(() => {}, 1000); })`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    await new Promise<void>((r) => holder.stdout.on('data', (c: Buffer) => c.toString().includes('locked') && r()));
    await expect(lockDirectory(dir)).rejects.toThrow(new RegExp(`pid ${holder.pid}`));
  } finally {
    await killAndWait(holder, 'SIGKILL');
  }
});

it('a second server process on the same PGlite directory stops with a clear message', async () => {
  const dir = tmp();
  // A copy of a first start's data and keys: what is tested is the lock, not the creation of a
  // directory (pglite-reopen.test.ts), which would take most of this test's time.
  await copyServerData(path.join(dir, 'data'), path.join(dir, 'keys'));
  const node = path.resolve('node_modules/.bin/node');
  const start = () =>
    spawn(node, ['src/main.ts'], {
      env: {
        ...process.env,
        BASE_URL: '',
        APP_URL: '',
        DATA_DIR: path.join(dir, 'data'),
        KEYS_DIR: path.join(dir, 'keys'),
        PORT: '0',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const first = start();
  let second: ChildProcess | undefined;
  // Whatever fails below, no server is left running (it would hold the directory and a port).
  try {
    let out1 = '';
    first.stdout!.on('data', (c: Buffer) => (out1 += c));
    first.stderr!.on('data', (c: Buffer) => (out1 += c));
    // 30 s was seen to be too short for a first start on a loaded 2-core machine (docs/performance.md, "Timeouts").
    for (let i = 0; i < 900 && !out1.includes('listening on'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(out1).toContain('listening on');
    const started = start();
    second = started;
    let out2 = '';
    started.stderr!.on('data', (c: Buffer) => (out2 += c));
    const code = await new Promise<number | null>((r) => started.on('exit', r));
    expect(code).toBe(1);
    expect(out2).toMatch(/is in use by another process \(pid \d+\)/);
  } finally {
    if (second) await killAndWait(second, 'SIGKILL');
    await killAndWait(first, 'SIGTERM');
  }
}, 120_000);

/** Signals a child and waits for its exit (at once when it has already exited). */
function killAndWait(child: ChildProcess, signal: NodeJS.Signals): Promise<unknown> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  return exited;
}

/** The name the lock used to be (an abstract socket named after the directory): any local user could bind it first. */
const oldAbstractName = (dir: string) =>
  `\0dte-pglite-${crypto.createHash('sha256').update(fs.realpathSync(dir)).digest('hex').slice(0, 40)}`;

/** Runs `script` (CommonJS, `dir` in scope) as another process, optionally as another user; resolves on its first line. */
async function squatter(dir: string, script: string, as?: { uid: number; gid: number }) {
  const child = spawn(process.execPath, ['-e', `const dir = ${JSON.stringify(dir)};\n${script}`], {
    cwd: '/',
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(as ?? {}),
  });
  let out = '';
  child.stderr.on('data', (c: Buffer) => (out += c));
  const first = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => resolve(c.toString().trim()));
    child.on('exit', (code) => reject(new Error(`squatter exited ${code}: ${out}`)));
  });
  return {
    first,
    stop: async () => {
      child.kill('SIGKILL');
      await new Promise((r) => (child.exitCode === null && child.signalCode === null ? child.on('exit', r) : r(null)));
    },
  };
}

it('is not a name in a namespace every local user shares: a socket bound under the old abstract name blocks nothing', async () => {
  // Done here by this user (switching users needs root, see the next test); any user could bind it.
  const dir = tmp();
  const s = await squatter(
    dir,
    `const net = require('node:net'); net.createServer().listen({ path: ${JSON.stringify(oldAbstractName(dir))} }, () => console.log('bound'));`,
  );
  try {
    expect(s.first).toBe('bound');
    (await lockDirectory(dir))();
  } finally {
    await s.stop();
  }
});

const isRoot = process.getuid?.() === 0;
const NOBODY = { uid: 65534, gid: 65534 };

it.runIf(isRoot && process.platform === 'linux')(
  'another local user can neither take nor block the lock, even where the directory was left open to everyone',
  async () => {
    const dir = tmp();
    fs.chmodSync(dir, 0o777); // a lax start: the attacker got in before the service made it private
    // The attacker binds the old abstract name, creates the lock file itself and holds a lock on it.
    const s = await squatter(
      dir,
      `const net = require('node:net');
       const path = require('node:path');
       const { DatabaseSync } = require('node:sqlite');
       const held = [];
       try { const d = new DatabaseSync(path.join(dir, '.lock.db')); d.exec('BEGIN EXCLUSIVE'); held.push(d); } catch (e) { console.error(e); }
       net.createServer().listen({ path: ${JSON.stringify(oldAbstractName(dir))} }, () => console.log('squatting ' + held.length));
       setInterval(() => {}, 1000);`,
      NOBODY,
    );
    try {
      expect(s.first).toBe('squatting 1');
      const release = await lockDirectory(dir);
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
      // Now the directory is private: the other user cannot even open the lock file to try.
      const probe = await squatter(
        dir,
        `try { require('node:fs').openSync(require('node:path').join(dir, '.lock.db'), 'r'); console.log('opened'); } catch (e) { console.log(e.code); }`,
        NOBODY,
      );
      await probe.stop();
      expect(probe.first).toBe('EACCES');
      await expect(lockDirectory(dir)).rejects.toThrow(DirectoryLockedError);
      release();
    } finally {
      await s.stop();
    }
  },
);
