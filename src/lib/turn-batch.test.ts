import { expect, it } from 'vitest';
import { createTurnBatch } from './turn-batch.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('starts the calls of a turn together and answers them together, each with its own result or error', async () => {
  const started: number[] = [];
  const run = createTurnBatch(async (n: number) => {
    started.push(n);
    await sleep(n === 1 ? 30 : 1); // the first finishes last
    if (n === 3) throw new Error('three');
    return n * 10;
  });
  const answered: string[] = [];
  const calls = [1, 2, 3].map((n) =>
    run(n).then(
      (v) => answered.push(`${n}:${v}`),
      (e: Error) => answered.push(`${n}:${e.message}`),
    ),
  );
  expect(started).toEqual([]); // nothing starts before the turn ends
  await sleep(10);
  expect(started).toEqual([1, 2, 3]);
  expect(answered).toEqual([]); // 2 and 3 are done, but wait for 1
  await Promise.all(calls);
  expect(answered).toEqual(['1:10', '2:20', '3:three']);
  // A later turn is a batch of its own.
  expect(await run(4)).toBe(40);
  expect(started).toEqual([1, 2, 3, 4]);
});
