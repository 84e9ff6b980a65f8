import { parentPort } from 'node:worker_threads';
import { inspectPfx, PfxError } from './inspect.ts';

/**
 * Inspects untrusted .pfx files in a worker thread, one message at a time: whatever a file does
 * (deep nesting, huge iteration counts, memory), the main thread only waits, with a deadline
 * (isolated.ts). The thread is kept for the next file while it behaves: starting one costs more than
 * most inspections (docs/performance.md, "Sixth round").
 */
interface Request {
  id: number;
  pfx: Uint8Array;
  password: string;
}

parentPort!.on('message', ({ id, pfx, password }: Request) => {
  try {
    parentPort!.postMessage({ id, ok: true, result: inspectPfx(pfx, password) });
  } catch (e) {
    parentPort!.postMessage(
      e instanceof PfxError
        ? { id, ok: false, code: e.code, message: e.message }
        : { id, ok: false, code: 'certificate_unreadable', message: 'The file is not a readable .pfx (PKCS#12) certificate.' },
    );
  }
});
