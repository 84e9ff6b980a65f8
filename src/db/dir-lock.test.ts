import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { DirectoryLockedError, lockDirectory } from './dir-lock.ts';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'lock-'));

it('refuses a second holder with a message that says what to do', () => {
  const dir = tmp();
  const release = lockDirectory(dir);
  // Pretend another live process (our parent) holds it.
  fs.writeFileSync(path.join(dir, '.lock'), String(process.ppid));
  expect(() => lockDirectory(dir)).toThrow(DirectoryLockedError);
  expect(() => lockDirectory(dir)).toThrow(/in use by another process.*DATABASE_URL/s);
  fs.writeFileSync(path.join(dir, '.lock'), String(process.pid));
  release();
  expect(fs.existsSync(path.join(dir, '.lock'))).toBe(false);
});

it('takes over a lock left by a dead process', () => {
  const dir = tmp();
  fs.writeFileSync(path.join(dir, '.lock'), '999999999');
  const release = lockDirectory(dir);
  expect(fs.readFileSync(path.join(dir, '.lock'), 'utf8')).toBe(String(process.pid));
  release();
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
