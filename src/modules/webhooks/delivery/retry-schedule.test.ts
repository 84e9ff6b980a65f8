import { describe, expect, it } from 'vitest';
import { jittered, MAX_RETRY_AFTER_MS, nextDelayMs, parseRetryAfter } from './retry-schedule.ts';

const SCHEDULE = [0, 30_000, 300_000, 1_800_000, 7_200_000];

describe('retry schedule', () => {
  it('gives exactly schedule.length attempts: a delay after attempts 1–4, none after the 5th', () => {
    const mid = () => 0.5; // no jitter
    expect([1, 2, 3, 4, 5].map((n) => nextDelayMs(SCHEDULE, n, { random: mid }))).toEqual([30_000, 300_000, 1_800_000, 7_200_000, null]);
  });
  it('jitters each delay by at most ±20 %', () => {
    expect(jittered(100_000, () => 0)).toBe(80_000);
    expect(jittered(100_000, () => 1)).toBe(120_000);
    for (let i = 0; i < 200; i++) {
      const d = jittered(30_000);
      expect(d).toBeGreaterThanOrEqual(24_000);
      expect(d).toBeLessThanOrEqual(36_000);
    }
    expect(jittered(0)).toBe(0);
  });
  it('honours a longer Retry-After, never a shorter one, and caps it', () => {
    const mid = () => 0.5;
    expect(nextDelayMs(SCHEDULE, 1, { retryAfterMs: 120_000, random: mid })).toBe(120_000);
    expect(nextDelayMs(SCHEDULE, 1, { retryAfterMs: 1_000, random: mid })).toBe(30_000);
    expect(nextDelayMs(SCHEDULE, 1, { retryAfterMs: 10 * MAX_RETRY_AFTER_MS, random: mid })).toBe(MAX_RETRY_AFTER_MS);
    expect(nextDelayMs(SCHEDULE, 5, { retryAfterMs: 1_000 })).toBeNull();
  });
});

describe('parseRetryAfter', () => {
  const now = new Date('2026-11-21T12:00:00Z');
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now)).toBe(0);
  });
  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });
});
