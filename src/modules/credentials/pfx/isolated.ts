import { Worker } from 'node:worker_threads';
import { AppError } from '../../../errors.ts';
import { createAdmission } from '../../../lib/admission.ts';
import { PfxError, type PfxInspection, type PfxProblem } from './inspect.ts';

/**
 * Runs inspectPfx in a worker thread with a deadline and memory limits, so a hostile upload can
 * neither block the event loop nor crash the process. A few run at once; a burst beyond the queue
 * gets a 503 instead of piling up threads.
 *
 * The work a file can cause is bounded in pkcs12.ts (depth, iterations), so the deadline is only a
 * safety net: reaching it means the machine is overloaded, and the answer is a retryable 503, not
 * a verdict on the file.
 */
export interface IsolationOptions {
  timeoutMs?: number;
  concurrency?: number;
  maxQueue?: number;
}

export function createPfxInspector(opts: IsolationOptions = {}) {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const admission = createAdmission({
    concurrency: opts.concurrency ?? 4,
    maxQueue: opts.maxQueue ?? 64,
    busyMessage: 'Too many certificates are being checked right now. Retry in a few seconds.',
  });

  const runOnce = (pfx: Uint8Array, password: string) =>
    new Promise<PfxInspection>((resolve, reject) => {
      const worker = new Worker(new URL('./worker.ts', import.meta.url), {
        workerData: { pfx, password },
        resourceLimits: { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
        stdout: true,
        stderr: true,
      });
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        void worker.terminate();
        fn();
      };
      const timer = setTimeout(
        () =>
          finish(() =>
            reject(
              new AppError(
                'unavailable',
                'certificate_check_timeout',
                'Checking the certificate took too long; the service is busy. Retry in a moment.',
                {
                  retryAfterSeconds: 10,
                },
              ),
            ),
          ),
        timeoutMs,
      );
      worker.once('message', (m: { ok: true; result: PfxInspection } | { ok: false; code: PfxProblem; message: string }) =>
        finish(() => (m.ok ? resolve(m.result) : reject(new PfxError(m.code, m.message)))),
      );
      // inspectPfx answers every problem of the file itself, so an uncaught error is ours (a module
      // that failed to load, a bug) — a 500, not a verdict on the file — except running out of
      // memory, which only a hostile file causes.
      const unreadable = () => new PfxError('certificate_unreadable', 'The file is not a readable .pfx (PKCS#12) certificate.');
      worker.once('error', (e: Error & { code?: string }) =>
        finish(() =>
          reject(e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? unreadable() : new Error(`certificate worker failed: ${e.message}`, { cause: e })),
        ),
      );
      // An exit without an answer: let a message already on its way arrive first.
      worker.once('exit', (code) =>
        setImmediate(() => finish(() => reject(code === 0 ? new Error('certificate worker ended without an answer') : unreadable()))),
      );
    });

  return {
    inspect: (pfx: Uint8Array, password: string): Promise<PfxInspection> => admission.run(() => runOnce(pfx, password)),
  };
}

export type PfxInspector = ReturnType<typeof createPfxInspector>;
