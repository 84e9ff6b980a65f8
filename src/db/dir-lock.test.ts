import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
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
  await new Promise<void>((r) => holder.stdout.on('data', (c: Buffer) => c.toString().includes('locked') && r()));
  await expect(lockDirectory(dir)).rejects.toThrow(new RegExp(`pid ${holder.pid}`));
  holder.kill('SIGKILL');
  await new Promise((r) => holder.on('exit', r));
  (await lockDirectory(dir))();
});

it('a second server process on the same PGlite directory stops with a clear message', async () => {
  const dir = tmp();
  const node = path.resolve('node_modules/.bin/node');
  const start = () =>
    spawn(node, ['src/main.ts'], {
      env: { ...process.env, BASE_URL: '', APP_URL: '', DATA_DIR: dir, KEYS_DIR: path.join(dir, 'keys'), PORT: '0', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const first = start();
  let out1 = '';
  first.stdout.on('data', (c: Buffer) => (out1 += c));
  first.stderr.on('data', (c: Buffer) => (out1 += c));
  for (let i = 0; i < 300 && !out1.includes('listening on'); i++) await new Promise((r) => setTimeout(r, 100));
  expect(out1).toContain('listening on');
  const second = start();
  let out2 = '';
  second.stderr.on('data', (c: Buffer) => (out2 += c));
  const code = await new Promise<number | null>((r) => second.on('exit', r));
  first.kill('SIGTERM');
  await new Promise((r) => first.on('exit', r));
  expect(code).toBe(1);
  expect(out2).toMatch(/is in use by another process \(pid \d+\)/);
}, 60_000);
