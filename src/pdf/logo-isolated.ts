import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { AppError } from '../errors.ts';
import { createAdmission } from '../lib/admission.ts';
import { checkLogoHeader, LogoError, type LogoProblem, type PreparedLogo } from './logo.ts';

/**
 * Decodes uploaded logos off the event loop (issue 30, D). A decode is CPU-bound (a second or two
 * for the largest logo allowed) and holds several times LOGO_MAX_DECODED_BYTES, so:
 *  - the header checks run here first (logo.ts, checkLogoHeader: microseconds, no pixel read): a
 *    file over the budget never reaches a decoder;
 *  - the decode runs in a child process of its own (logo-decoder.ts), which exits with it: the
 *    server only waits, and all the decoder allocated goes back to the system. Not a worker
 *    thread: measured, a worker thread's decode of an 8-megapixel JPEG left the server's RSS
 *    ~400 MiB higher for good (jpeg-js allocates one small typed array per 8 × 8 block, ~400 000
 *    of them, from the C allocator; freed when the thread ends, they stay in its arena), while the
 *    process costs ~100 ms to start, and logos are uploaded once per company. The child gets no
 *    environment (no keys, no database URL) and a V8 heap cap;
 *  - `concurrency` decodes at a time (1 by default: the peak a logo adds to the process is one
 *    decode's, docs/dte.md "The logo"), at most `maxQueue` waiting; beyond that a 503 `busy` with
 *    Retry-After, rather than threads piling up;
 *  - a deadline as a safety net only (the work is bounded by the budget): reaching it means the
 *    machine is overloaded, a retryable 503, not a verdict on the file.
 * Logos are uploaded once per company, so one at a time costs nobody a thing worth measuring.
 */
export interface LogoPreparerOptions {
  timeoutMs?: number;
  concurrency?: number;
  maxQueue?: number;
}

type DecoderAnswer = { ok: true; result: PreparedLogo } | { ok: false; problem: LogoProblem } | { ok: false; bug: string };

const DECODER = fileURLToPath(new URL('./logo-decoder.ts', import.meta.url));

export function createLogoPreparer(opts: LogoPreparerOptions = {}) {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const admission = createAdmission({
    concurrency: opts.concurrency ?? 1,
    maxQueue: opts.maxQueue ?? 16,
    busyMessage: 'Too many logos are being checked right now. Retry in a few seconds.',
  });

  const runOnce = (bytes: Buffer, contentType: string | undefined, format: string) =>
    new Promise<PreparedLogo>((resolve, reject) => {
      const child = fork(DECODER, [], {
        // The pixels live outside the JS heap (bounded by the header budget); the heap holds
        // jpeg-js's block objects, ~100 MiB for the largest JPEG allowed.
        execArgv: ['--max-old-space-size=256', '--max-semi-space-size=8'],
        env: {},
        serialization: 'advanced',
        stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      });
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        fn();
      };
      const timer = setTimeout(
        () =>
          finish(() =>
            reject(
              new AppError(
                'unavailable',
                'logo_check_timeout',
                'Checking the logo took too long; the service is busy. Retry in a moment.',
                {
                  retryAfterSeconds: 10,
                },
              ),
            ),
          ),
        timeoutMs,
      );
      child.once('message', (m: DecoderAnswer) =>
        finish(() => {
          if (!m.ok) return reject('bug' in m ? new Error(`logo decoder failed: ${m.bug}`) : new LogoError(m.problem));
          const { png, ...rest } = m.result;
          resolve({ ...rest, png: Buffer.from(png.buffer, png.byteOffset, png.byteLength) });
        }),
      );
      // prepareLogo answers every problem of the file itself, so a decoder that could not start
      // or answered a bug is ours (a 500, logged); one that died without an answer ran out of
      // memory, which the budget should prevent and only a hostile file could cause.
      const tooBig = () =>
        new LogoError({
          reason: 'undecodable',
          message: `The ${format.toUpperCase()} file cannot be decoded within the memory a logo may use. Save it again, smaller.`,
        });
      child.once('error', (e) => finish(() => reject(new Error(`logo decoder failed: ${e.message}`, { cause: e }))));
      // An exit without an answer: let a message already on its way arrive first.
      child.once('exit', (code) =>
        setImmediate(() => finish(() => reject(code === 0 ? new Error('logo decoder ended without an answer') : tooBig()))),
      );
      child.send({ bytes: new Uint8Array(bytes), contentType });
    });

  return {
    /**
     * Checks an uploaded logo and returns the canonical PNG to store, or throws LogoError (a 400
     * for the caller to map) or AppError 503 (`busy`, `logo_check_timeout`).
     */
    async prepare(bytes: Buffer, contentType?: string): Promise<PreparedLogo> {
      const { format } = checkLogoHeader(bytes, contentType);
      return admission.run(() => runOnce(bytes, contentType, format));
    },
  };
}

export type LogoPreparer = ReturnType<typeof createLogoPreparer>;
