import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';

/**
 * The container case: the service runs as PID 1 and is killed with SIGKILL; the next start is
 * PID 1 again. A pid-file lock always saw "pid 1 holds it" and refused every restart; the lock
 * the kernel releases lets it start (src/db/dir-lock.ts). Needs `unshare --pid` (root).
 */
const canUnshare = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status === 0;

it.runIf(canUnshare)(
  'restarts as PID 1 after the previous PID 1 was killed with SIGKILL',
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-pid1-'));
    const node = path.resolve('node_modules/.bin/node');
    const start = () => {
      const child = spawn(
        'unshare',
        [
          '--pid',
          '--fork',
          '--kill-child',
          '--mount-proc',
          node,
          '-e',
          "console.log('pid', process.pid); await import('./src/main.ts').then((m) => m.main())",
        ],
        {
          env: { ...process.env, BASE_URL: '', APP_URL: '', DATA_DIR: dir, KEYS_DIR: path.join(dir, 'keys'), PORT: '0', LOG_LEVEL: 'warn' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout!.on('data', (c: Buffer) => (out += c));
      child.stderr!.on('data', (c: Buffer) => (out += c));
      return { child, output: () => out };
    };
    const until = async (p: { child: ChildProcess; output: () => string }, text: string) => {
      for (let i = 0; i < 300 && !p.output().includes(text) && p.child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 100));
      return p.output();
    };
    try {
      const first = start();
      expect(await until(first, 'listening on')).toContain('pid 1\n');
      first.child.kill('SIGKILL'); // unshare --kill-child takes the PID 1 inside with it
      await new Promise((r) => first.child.on('exit', r));
      expect(fs.readFileSync(path.join(dir, 'main', '.lock'), 'utf8')).toBe('1'); // what the dead PID 1 left

      const second = start();
      const out = await until(second, 'listening on');
      second.child.kill('SIGKILL'); // (unshare forwards SIGTERM and waits; only the start matters here)
      await new Promise((r) => second.child.on('exit', r));
      expect(out).toContain('pid 1\n');
      expect(out).not.toContain('in use by another process');
      expect(out).toContain('listening on');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
  120_000,
);
