import { expect, it } from 'vitest';
import { makeCert, modernPfx, nestedDer } from '../../../../test/support/pfx.ts';
import { createPfxInspector } from './isolated.ts';
import { createPfxThreads } from './threads.ts';

const cert = makeCert({ rut: '11111111-1', keyBits: 1024 });
const good = modernPfx(cert, 'pw');

it('answers concurrent files each with its own verdict, and keeps its threads for the next ones', async () => {
  const threads = createPfxThreads();
  const inspector = createPfxInspector({ concurrency: 2, threads });
  const files = [good, nestedDer(5000), good, Buffer.from('not a pfx'), good, good];
  const results = await Promise.allSettled(files.map((f, i) => inspector.inspect(f, i === 2 ? 'wrong' : 'pw')));
  expect(results.map((r) => (r.status === 'fulfilled' ? r.value.rut : (r.reason as { code: string }).code))).toEqual([
    '11111111-1',
    'certificate_unreadable',
    'certificate_password_invalid',
    'certificate_unreadable',
    '11111111-1',
    '11111111-1',
  ]);
  // Six files, two at a time, two threads: both kept for the next files.
  expect(threads.idleCount()).toBe(2);
});

it('ends a thread that misses its deadline or stays idle, and starts a fresh one for the next file', async () => {
  const threads = createPfxThreads({ idleMs: 50 });
  const inspector = createPfxInspector({ timeoutMs: 1, threads });
  await expect(inspector.inspect(good, 'pw')).rejects.toMatchObject({ code: 'certificate_check_timeout' });
  expect(threads.idleCount()).toBe(0);
  const patient = createPfxInspector({ threads });
  await expect(patient.inspect(good, 'pw')).resolves.toMatchObject({ rut: '11111111-1' });
  expect(threads.idleCount()).toBe(1);
  await new Promise((r) => setTimeout(r, 200));
  expect(threads.idleCount()).toBe(0); // ended after a quiet while
  await expect(patient.inspect(good, 'pw')).resolves.toMatchObject({ rut: '11111111-1' });
});
