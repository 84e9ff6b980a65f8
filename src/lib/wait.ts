/**
 * Waiting for background work a request started (a folio request's job, an envío's upload): ask
 * `check` with a short, growing pause (20 ms doubling up to 250 ms) until it returns a value
 * that `done` accepts or `timeoutMs` has passed; the last value is returned either way, so the
 * caller can answer with what is known (201 with the result, or 202 while still pending).
 */
export interface WaitOptions {
  timeoutMs: number;
  sleep?: (ms: number) => Promise<void>;
  firstDelayMs?: number;
  maxDelayMs?: number;
}

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function waitFor<T>(
  check: () => Promise<T>,
  done: (value: T) => boolean,
  opts: WaitOptions,
): Promise<{ value: T; done: boolean }> {
  const sleep = opts.sleep ?? realSleep;
  const deadline = Date.now() + opts.timeoutMs;
  let delay = opts.firstDelayMs ?? 20;
  for (;;) {
    const value = await check();
    if (done(value)) return { value, done: true };
    const left = deadline - Date.now();
    if (left <= 0) return { value, done: false };
    await sleep(Math.min(delay, left));
    delay = Math.min(delay * 2, opts.maxDelayMs ?? 250);
  }
}
