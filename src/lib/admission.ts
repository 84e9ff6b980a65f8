import { AppError } from '../errors.ts';

/**
 * At most `concurrency` runs of an isolated check at once (a certificate in a worker thread, a
 * logo in a child process), at most `maxQueue` waiting; a burst beyond that is refused at once with
 * a retryable 503 `busy` (`busyMessage` says what is busy) instead of piling up threads or
 * processes. Waiters are admitted in arrival order.
 */
export function createAdmission(opts: { concurrency: number; maxQueue: number; busyMessage: string }) {
  let running = 0;
  const waiting: (() => void)[] = [];

  const acquire = async (): Promise<void> => {
    if (running < opts.concurrency) {
      running++;
      return;
    }
    if (waiting.length >= opts.maxQueue) throw new AppError('unavailable', 'busy', opts.busyMessage, { retryAfterSeconds: 5 });
    // The slot is handed over by release(): `running` stays counted for the waiter.
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };

  return {
    /** Runs `fn` once admitted; throws AppError 503 `busy` when the queue is full. */
    async run<T>(fn: () => Promise<T>): Promise<T> {
      await acquire();
      try {
        return await fn();
      } finally {
        release();
      }
    },
  };
}
