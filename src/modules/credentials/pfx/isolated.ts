import { AppError } from '../../../errors.ts';
import { createAdmission } from '../../../lib/admission.ts';
import { PfxError, type PfxInspection, type PfxProblem } from './inspect.ts';
import { pfxThreads, type PfxThreads } from './threads.ts';

/**
 * Runs inspectPfx in a worker thread with a deadline and memory limits, so a hostile upload can
 * neither block the event loop nor crash the process. A thread that answered is kept for the next
 * file (threads.ts); one that failed, crashed or missed the deadline is ended. A few run at once; a
 * burst beyond the queue gets a 503 instead of piling up threads.
 *
 * The work a file can cause is bounded in pkcs12.ts (depth, iterations), so the deadline is only a
 * safety net: reaching it means the machine is overloaded, and the answer is a retryable 503, not
 * a verdict on the file.
 */
export interface IsolationOptions {
  timeoutMs?: number;
  concurrency?: number;
  maxQueue?: number;
  /** Where threads are kept between files (default: the process's pool). */
  threads?: PfxThreads;
}

export function createPfxInspector(opts: IsolationOptions = {}) {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const threads = opts.threads ?? pfxThreads;
  const admission = createAdmission({
    concurrency: opts.concurrency ?? 4,
    maxQueue: opts.maxQueue ?? 64,
    busyMessage: 'Too many certificates are being checked right now. Retry in a few seconds.',
  });

  let nextId = 0;

  const runOnce = (pfx: Uint8Array, password: string) =>
    new Promise<PfxInspection>((resolve, reject) => {
      const worker = threads.take();
      const id = ++nextId;
      let settled = false;
      // A thread that answered goes back to the idle list; one that failed, crashed or ran past the
      // deadline is ended (it may still be busy with a hostile file).
      const finish = (fn: () => void, reusable: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (reusable) threads.park(worker);
        else void worker.terminate();
        fn();
      };
      const timer = setTimeout(
        () =>
          finish(
            () =>
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
            false,
          ),
        timeoutMs,
      );
      type Answer = { id: number } & ({ ok: true; result: PfxInspection } | { ok: false; code: PfxProblem; message: string });
      const onMessage = (m: Answer) => {
        if (m.id === id) finish(() => (m.ok ? resolve(m.result) : reject(new PfxError(m.code, m.message))), true);
      };
      // inspectPfx answers every problem of the file itself, so an uncaught error is ours (a module
      // that failed to load, a bug) — a 500, not a verdict on the file — except running out of
      // memory, which only a hostile file causes.
      const unreadable = () => new PfxError('certificate_unreadable', 'The file is not a readable .pfx (PKCS#12) certificate.');
      const onError = (e: Error & { code?: string }) =>
        finish(
          () =>
            reject(
              e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? unreadable() : new Error(`certificate worker failed: ${e.message}`, { cause: e }),
            ),
          false,
        );
      // An exit without an answer: let a message already on its way arrive first.
      const onExit = (code: number) =>
        setImmediate(() =>
          finish(() => reject(code === 0 ? new Error('certificate worker ended without an answer') : unreadable()), false),
        );
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage({ id, pfx, password });
    });

  return {
    inspect: (pfx: Uint8Array, password: string): Promise<PfxInspection> => admission.run(() => runOnce(pfx, password)),
  };
}

export type PfxInspector = ReturnType<typeof createPfxInspector>;
