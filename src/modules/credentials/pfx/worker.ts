import { parentPort, workerData } from 'node:worker_threads';
import { inspectPfx, PfxError } from './inspect.ts';

/**
 * Inspects one untrusted .pfx in a worker thread: whatever the file does (deep nesting, huge
 * iteration counts, memory), the main thread only waits, with a deadline (isolated.ts).
 */
const { pfx, password } = workerData as { pfx: Uint8Array; password: string };
try {
  parentPort!.postMessage({ ok: true, result: inspectPfx(pfx, password) });
} catch (e) {
  parentPort!.postMessage(
    e instanceof PfxError
      ? { ok: false, code: e.code, message: e.message }
      : { ok: false, code: 'certificate_unreadable', message: 'The file is not a readable .pfx (PKCS#12) certificate.' },
  );
}
