import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGLITE_NODE_FLAGS } from '../../src/db/pglite.ts';

/**
 * A real program as a process of its own (the service, the emulator, the CLI), keeping its output
 * for failure messages (processes.ts builds on it; server-data.ts uses it for the first start).
 */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Proc {
  proc: ChildProcess;
  pid: number;
  log(): string;
  /** SIGKILL: no cleanup, no graceful shutdown. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  exited: Promise<number | null>;
}

export function launch(args: string[], env: Record<string, string>, opts: { cwd?: string } = {}): Proc {
  // The service as `npm start` runs it: with the Node flags that keep PGlite's memory down
  // (SERVICE_NODE_FLAGS replaces them, e.g. 'none' to measure without: bench/README in docs/performance.md).
  const given = process.env.SERVICE_NODE_FLAGS;
  const flags = given === undefined ? [...PGLITE_NODE_FLAGS] : given === 'none' ? [] : given.split(' ').filter(Boolean);
  const nodeArgs = args[0] === 'src/main.ts' ? [...flags, ...args] : args;
  const proc = spawn(process.execPath, nodeArgs, {
    cwd: opts.cwd ?? ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      // Vitest sets BASE_URL for Vite; the service would take it as its own address.
      BASE_URL: '',
      APP_URL: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const alive = () => proc.exitCode === null && proc.signalCode === null;
  return {
    proc,
    pid: proc.pid!,
    log: () => out,
    exited,
    async kill() {
      if (alive()) proc.kill('SIGKILL');
      await exited;
    },
    async stop(graceMs = 10_000) {
      if (alive()) proc.kill('SIGTERM');
      const t = setTimeout(() => alive() && proc.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(t);
    },
  };
}

/** Waits until `fn` answers, failing early when the process exits and with its output on timeout. */
export async function until<T>(what: string, proc: Proc, fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.proc.exitCode !== null || proc.proc.signalCode !== null) throw new Error(`${what}: the process exited early:\n${proc.log()}`);
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not ready after ${timeoutMs} ms:\n${proc.log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
