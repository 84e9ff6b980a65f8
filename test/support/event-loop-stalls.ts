/**
 * Watches the test process's event loop and reports its longest stall two ways: in wall time, and
 * in the CPU time the loop's own thread spent between two ticks. Work done on the event loop (a logo
 * decoded on it, say) shows in both; a loop that was ready but waited for a core on a loaded machine
 * (three test workers, their servers and browsers on two cores) shows only in wall time. Tests of
 * "this work does not block the loop" bound the second, which a loaded machine cannot push up and a
 * regression can (docs/performance.md, "Seventh round").
 */
export interface Stalls {
  /** Longest wall time between two ticks, ms. */
  wallMs: number;
  /** Longest CPU time (user + system) of the loop's thread between two ticks, ms. */
  busyMs: number;
}

export function watchEventLoop(everyMs = 5): { stop(): Stalls } {
  const cpu = () => {
    const u = process.threadCpuUsage();
    return (u.user + u.system) / 1000;
  };
  let lastWall = performance.now();
  let lastCpu = cpu();
  const worst: Stalls = { wallMs: 0, busyMs: 0 };
  const tick = () => {
    const wall = performance.now();
    const used = cpu();
    worst.wallMs = Math.max(worst.wallMs, wall - lastWall);
    worst.busyMs = Math.max(worst.busyMs, used - lastCpu);
    lastWall = wall;
    lastCpu = used;
  };
  const timer = setInterval(tick, everyMs);
  return {
    stop() {
      tick();
      clearInterval(timer);
      return { ...worst };
    },
  };
}
