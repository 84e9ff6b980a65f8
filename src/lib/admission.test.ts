import { describe, expect, it } from 'vitest';
import { createAdmission } from './admission.ts';

describe('createAdmission', () => {
  it('runs at most `concurrency` at once, admits waiters in order, and refuses beyond the queue with 503 busy', async () => {
    const a = createAdmission({ concurrency: 1, maxQueue: 1, busyMessage: 'Busy now.' });
    const order: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const first = a.run(async () => {
      order.push('first');
      await gate;
    });
    const second = a.run(async () => {
      order.push('second');
    });
    await expect(a.run(async () => order.push('third'))).rejects.toMatchObject({ code: 'busy', message: 'Busy now.' });
    expect(order).toEqual(['first']);
    open();
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second']);
    // A failing run gives its slot back.
    await expect(a.run(async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(a.run(async () => 'ok')).resolves.toBe('ok');
  });
});
