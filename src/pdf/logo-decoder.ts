import os from 'node:os';
import { LogoError } from './logo.ts';
import { prepareLogo } from './logo-prepare.ts';

/**
 * Decodes and re-encodes one uploaded logo in a short-lived child process (logo-isolated.ts says
 * why a process and not a worker thread): the server only waits, and everything the decoders
 * allocated goes back to the system when this process exits.
 */
// Below the server in the scheduler's eyes: on a busy machine its requests come before a decode.
try {
  os.setPriority(Math.min(19, os.getPriority() + 10));
} catch {
  // not allowed here: decode at the server's priority
}
process.once('message', (m: { bytes: Uint8Array; contentType: string | undefined }) => {
  let answer;
  try {
    const prepared = prepareLogo(Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength), m.contentType);
    answer = { ok: true, result: { ...prepared, png: new Uint8Array(prepared.png) } };
  } catch (e) {
    // prepareLogo answers every problem of the file as a LogoError; anything else is ours.
    answer = e instanceof LogoError ? { ok: false, problem: e.problem } : { ok: false, bug: String(e instanceof Error ? e.stack : e) };
  }
  process.send!(answer, () => process.disconnect());
});
