/**
 * Work that goes out together and comes back together: the calls made in one turn of the event
 * loop are started at the end of that turn, all at once, and every caller is answered in one later
 * turn, once all of them finished (each with its own result or error).
 *
 * Why: DTE creation signs each document in libuv's thread pool (src/dte/xmldsig.ts `signAsync`).
 * Signatures answered one by one, as the pool finishes them, would send the creates on to the
 * database one by one too, and the group commit that stores them (group-commit.ts) would then make
 * a statement per document instead of one per batch: on PGlite a statement's fixed cost is most of
 * a store's (docs/performance.md, "Fifth round: PGlite creation"). Answered together, the creates
 * of a turn reach the store in the same turn, as they did when signing ran on this thread.
 */
export function createTurnBatch<I, O>(start: (item: I) => Promise<O>): (item: I) => Promise<O> {
  let gathering: { item: I; resolve(o: O): void; reject(e: unknown): void }[] | undefined;
  const flush = () => {
    const batch = gathering!;
    gathering = undefined;
    void Promise.allSettled(batch.map((w) => start(w.item))).then((results) =>
      results.forEach((r, i) => (r.status === 'fulfilled' ? batch[i]!.resolve(r.value) : batch[i]!.reject(r.reason))),
    );
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      if (!gathering) {
        gathering = [];
        setImmediate(flush);
      }
      gathering.push({ item, resolve, reject });
    });
}
