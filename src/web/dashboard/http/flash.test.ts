import { describe, expect, it } from 'vitest';
import { manualClock } from '../../../lib/clock.ts';
import { createOneTimeFlash } from './flash.ts';

describe('one-time flash', () => {
  it('gives a value once, to its session and slot only', () => {
    const flash = createOneTimeFlash({ clock: manualClock() });
    flash.put('session-a', 'api-key', { key: 'sk_live_x' });
    expect(flash.take('session-b', 'api-key')).toBeUndefined();
    expect(flash.take('session-a', 'link:1')).toBeUndefined();
    expect(flash.take('session-a', 'api-key')).toEqual({ key: 'sk_live_x' });
    expect(flash.take('session-a', 'api-key')).toBeUndefined();
    expect(flash.size()).toBe(0);
  });

  it('drops a value not taken in time', () => {
    const clock = manualClock();
    const flash = createOneTimeFlash({ clock, ttlMs: 1000 });
    flash.put('s', 'x', 1);
    clock.advance(1000);
    expect(flash.take('s', 'x')).toBeUndefined();
    flash.put('s', 'y', 2);
    clock.advance(1001);
    flash.put('s', 'z', 3); // a write sweeps what expired
    expect(flash.size()).toBe(1);
    expect(flash.take('s', 'z')).toBe(3);
  });

  it('keeps at most maxEntries, dropping the oldest', () => {
    const flash = createOneTimeFlash({ clock: manualClock(), maxEntries: 2 });
    flash.put('s1', 'x', 1);
    flash.put('s2', 'x', 2);
    flash.put('s3', 'x', 3);
    expect(flash.size()).toBe(2);
    expect(flash.take('s1', 'x')).toBeUndefined();
    expect(flash.take('s3', 'x')).toBe(3);
  });

  it('a second put in the same slot replaces the first', () => {
    const flash = createOneTimeFlash({ clock: manualClock() });
    flash.put('s', 'x', 1);
    flash.put('s', 'x', 2);
    expect(flash.size()).toBe(1);
    expect(flash.take('s', 'x')).toBe(2);
  });
});
