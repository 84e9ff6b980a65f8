import { describe, expect, it } from 'vitest';
import { onFirstUse } from './lazy.ts';

describe('onFirstUse', () => {
  it('makes the value once for concurrent and later callers', async () => {
    let made = 0;
    const get = onFirstUse(async () => {
      made++;
      await new Promise((r) => setTimeout(r, 5));
      return { n: made };
    });
    const [a, b] = await Promise.all([get(), get()]);
    expect(a).toBe(b);
    expect(await get()).toBe(a);
    expect(made).toBe(1);
  });

  it('forgets a failed attempt (thrown or rejected), so the next call tries again', async () => {
    let calls = 0;
    const get = onFirstUse(async () => {
      calls++;
      if (calls === 1) throw new Error('first fails');
      return 'ok';
    });
    const [a, b] = await Promise.allSettled([get(), get()]);
    expect(a.status).toBe('rejected');
    expect(b.status).toBe('rejected');
    expect(calls).toBe(1);
    expect(await get()).toBe('ok');
    expect(calls).toBe(2);

    let syncCalls = 0;
    const sync = onFirstUse<string>(() => {
      syncCalls++;
      if (syncCalls === 1) throw new Error('synchronous throw');
      return Promise.resolve('ok');
    });
    await expect(sync()).rejects.toThrow('synchronous throw');
    expect(await sync()).toBe('ok');
  });
});
