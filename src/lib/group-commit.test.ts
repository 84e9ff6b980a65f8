import { describe, expect, it } from 'vitest';
import { createGroupCommit } from './group-commit.ts';

/** A run whose batches the test releases by hand, recording what each batch held. */
function gated<I, O>(answer: (items: I[]) => O[] | Promise<O[]>) {
  const batches: I[][] = [];
  const gates: (() => void)[] = [];
  const run = async (items: I[]): Promise<O[]> => {
    batches.push([...items]);
    await new Promise<void>((open) => gates.push(open));
    return answer(items);
  };
  const openNext = async () => {
    while (gates.length === 0) await new Promise((r) => setImmediate(r));
    gates.shift()!();
    await new Promise((r) => setImmediate(r));
  };
  return { run, batches, openNext };
}

describe('group commit', () => {
  it('sends the first write alone at once, and groups those that arrive meanwhile, in arrival order', async () => {
    const g = gated((items: number[]) => items.map((i) => i * 10));
    const gc = createGroupCommit({ run: g.run });
    const first = gc.submit(1);
    const rest = [2, 3, 4, 5].map((i) => gc.submit(i));
    expect(g.batches).toEqual([[1]]);
    await g.openNext();
    expect(await first).toBe(10);
    expect(g.batches).toEqual([[1], [2, 3, 4, 5]]);
    await g.openNext();
    expect(await Promise.all(rest)).toEqual([20, 30, 40, 50]);
    expect(gc.pending).toBe(0);
  });

  it('keeps batches within maxBatch and runs at most maxInFlight at once', async () => {
    const g = gated((items: number[]) => items);
    const gc = createGroupCommit({ run: g.run, maxBatch: 3, maxInFlight: 2 });
    const all = Array.from({ length: 10 }, (_, i) => gc.submit(i));
    expect(g.batches).toEqual([[0], [1]]);
    await g.openNext();
    expect(g.batches).toEqual([[0], [1], [2, 3, 4]]);
    for (let i = 0; i < 4; i++) await g.openNext();
    expect(await Promise.all(all)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(g.batches.map((b) => b.length)).toEqual([1, 1, 3, 3, 2]);
  });

  it('a member that fails does not sink the others: the batch is run again member by member', async () => {
    const runs: number[][] = [];
    let release!: () => void;
    const firstDone = new Promise<void>((r) => (release = r));
    const gc = createGroupCommit<number, string>({
      run: async (items) => {
        runs.push(items);
        if (runs.length === 1) await firstDone;
        if (items.includes(13)) throw new Error(`unlucky ${items.join(',')}`);
        return items.map((i) => `ok ${i}`);
      },
    });
    const a = gc.submit(1);
    const batch = [12, 13, 14].map((i) => gc.submit(i).catch((e: Error) => e.message));
    release();
    expect(await a).toBe('ok 1');
    expect(await Promise.all(batch)).toEqual(['ok 12', 'unlucky 13', 'ok 14']);
    expect(runs).toEqual([[1], [12, 13, 14], [12], [13], [14]]);
  });

  it('settles every item exactly once, even when a whole batch fails for a reason of none of them', async () => {
    let down = true;
    const gc = createGroupCommit<number, number>({
      run: async (items) => {
        await new Promise((r) => setImmediate(r));
        if (down) throw new Error('connection lost');
        return items;
      },
      maxBatch: 4,
    });
    const settled = await Promise.allSettled(Array.from({ length: 9 }, (_, i) => gc.submit(i)));
    expect(settled.map((s) => s.status)).toEqual(Array(9).fill('rejected'));
    down = false;
    expect(await Promise.all(Array.from({ length: 9 }, (_, i) => gc.submit(i)))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(gc.pending).toBe(0);
  });

  it('refuses a run that answers the wrong number of results (each member then runs alone)', async () => {
    const gc = createGroupCommit<number, number>({
      run: async (items) => (items.length > 1 ? items.slice(1) : items),
    });
    const first = gc.submit(0);
    const more = [1, 2].map((i) => gc.submit(i));
    expect(await first).toBe(0);
    expect(await Promise.all(more)).toEqual([1, 2]);
  });

  it('loses no request under many concurrent submitters', async () => {
    const seen: number[] = [];
    const gc = createGroupCommit<number, number>({
      run: async (items) => {
        await new Promise((r) => setTimeout(r, Math.random() * 3));
        seen.push(...items);
        return items.map((i) => -i);
      },
      maxBatch: 7,
      maxInFlight: 2,
    });
    const out = await Promise.all(Array.from({ length: 500 }, (_, i) => gc.submit(i)));
    expect(out).toEqual(Array.from({ length: 500 }, (_, i) => -i));
    expect([...seen].sort((x, y) => x - y)).toEqual(Array.from({ length: 500 }, (_, i) => i));
  });

  it('with gatherTurn, writes submitted in the same turn of the event loop leave together, the first included', async () => {
    const batches: number[][] = [];
    const gc = createGroupCommit<number, number>({
      run: async (items) => {
        batches.push(items);
        return items;
      },
      gatherTurn: true,
    });
    const first = [1, 2, 3].map((i) => gc.submit(i));
    expect(batches).toEqual([]); // nothing sent until the turn ends
    expect(await Promise.all(first)).toEqual([1, 2, 3]);
    await gc.submit(4);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });
});
