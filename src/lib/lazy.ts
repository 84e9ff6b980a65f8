/**
 * A value made on first use, for modules too large to load at startup (docs/performance.md,
 * "Loaded on first use"): concurrent first callers share one attempt, and a failed attempt is
 * forgotten, so the next call tries again instead of failing for the life of the process.
 */
export function onFirstUse<T>(make: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= (async () => make())().catch((e: unknown) => {
      pending = undefined;
      throw e;
    });
    return pending;
  };
}
