import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, type Proc } from './processes.ts';

/**
 * The real service as a separate worker process (`node src/main.ts --role worker`), for tests that
 * kill it with SIGKILL at chosen moments (processes.ts `launch`, with a scratch data directory).
 */
export type WorkerProcess = Proc;

export function spawnWorker(env: Record<string, string>): WorkerProcess {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-worker-'));
  const p = launch(['src/main.ts', '--role', 'worker'], {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATA_DIR: path.join(dir, 'data'),
    KEYS_DIR: path.join(dir, 'keys'),
    ...env,
  });
  void p.exited.then(() => fs.rmSync(dir, { recursive: true, force: true }));
  return p;
}
