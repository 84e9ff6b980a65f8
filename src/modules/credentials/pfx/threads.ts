import { Worker } from 'node:worker_threads';

/**
 * Worker threads for .pfx inspection, kept between files: starting one loads the parser's modules,
 * which costs more than most inspections (docs/performance.md, "Sixth round"). A thread that
 * answered is parked (unref'd, so it never holds a process open) for `idleMs`, then ended, so an idle
 * service holds none. One pool per process by default (`pfxThreads`), shared by every inspector the
 * process builds (the tests build one per app).
 */
export interface PfxThreads {
  /** A parked thread, or a new one. The caller returns it with `park` or ends it. */
  take(): Worker;
  park(worker: Worker): void;
  /** Threads waiting for the next file. */
  idleCount(): number;
}

export function createPfxThreads(opts: { idleMs?: number; maxIdle?: number } = {}): PfxThreads {
  const idleMs = opts.idleMs ?? 30_000;
  const maxIdle = opts.maxIdle ?? 4;
  const idle: Worker[] = [];
  const timers = new Map<Worker, NodeJS.Timeout>();
  const unpark = (worker: Worker) => {
    const i = idle.indexOf(worker);
    if (i >= 0) idle.splice(i, 1);
    clearTimeout(timers.get(worker));
    timers.delete(worker);
  };
  return {
    take() {
      const parked = idle.pop();
      if (parked) {
        unpark(parked);
        parked.ref();
        return parked;
      }
      const worker = new Worker(new URL('./worker.ts', import.meta.url), {
        resourceLimits: { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
        stdout: true,
        stderr: true,
      });
      worker.once('exit', () => unpark(worker));
      return worker;
    },
    park(worker) {
      if (idle.length >= maxIdle) {
        void worker.terminate();
        return;
      }
      worker.unref();
      idle.push(worker);
      const timer = setTimeout(() => {
        unpark(worker);
        void worker.terminate();
      }, idleMs);
      timer.unref();
      timers.set(worker, timer);
    },
    idleCount: () => idle.length,
  };
}

export const pfxThreads = createPfxThreads();
