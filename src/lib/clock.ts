/** Time is passed in, never read from globals, so tests can move it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can set and advance. */
export function manualClock(start: Date | string = '2026-11-21T12:00:00.000Z'): Clock & {
  set(d: Date | string): void;
  advance(ms: number): void;
} {
  let t = new Date(start).getTime();
  return {
    now: () => new Date(t),
    set: (d) => {
      t = new Date(d).getTime();
    },
    advance: (ms) => {
      t += ms;
    },
  };
}
