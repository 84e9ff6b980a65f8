/**
 * Group commit: concurrent callers' writes go to the database together, one statement (and at most
 * one commit) for the lot, instead of one round trip and one commit each.
 *
 * How a batch forms: a write that arrives while fewer than `maxInFlight` batches are running goes
 * out at once, or with `gatherTurn` at the end of the event loop's turn together with the writes of
 * that turn (a turn's latency, not a timer: an idle service adds nothing else); writes that arrive
 * while the batches are busy wait and leave together, in arrival order, at most `maxBatch` at a
 * time, as soon as one finishes.
 *
 * Invariants:
 *  - Every submitted item settles exactly once: with its own result, or with an error.
 *  - One member cannot sink the others: when a batch of several fails, each member is run again
 *    alone, so only the member that fails alone gets the error (and a failure that is not any
 *    member's, such as a lost connection, reaches each of them from its own run).
 *  - `run` gets the items in arrival order and answers one result per item, in the same order.
 */
export interface GroupCommitOptions<I, O> {
  /** Writes `items` (one statement or one transaction) and returns their results in order. */
  run(items: I[]): Promise<O[]>;
  /** Largest batch (default 32). */
  maxBatch?: number;
  /** Batches running at once (default 1); on a pool of connections, 2 lets one fill while one runs. */
  maxInFlight?: number;
  /**
   * Wait for the rest of this turn of the event loop before sending a batch that would go at once
   * (setImmediate), so that the requests read in the same turn join it. Needed for a database in
   * this thread (PGlite), whose statements never wait on I/O: without it each request runs from
   * its first statement to its last before the next one gets to its own, and no two writes are
   * ever pending together. On PostgreSQL it gave slightly larger batches for a turn's latency.
   */
  gatherTurn?: boolean;
}

export interface GroupCommit<I, O> {
  submit(item: I): Promise<O>;
  /** Items waiting for a batch and batches running, for tests and metrics. */
  readonly pending: number;
}

interface Waiting<I, O> {
  item: I;
  resolve(o: O): void;
  reject(e: unknown): void;
}

export function createGroupCommit<I, O>(opts: GroupCommitOptions<I, O>): GroupCommit<I, O> {
  const maxBatch = opts.maxBatch ?? 32;
  const maxInFlight = opts.maxInFlight ?? 1;
  const queue: Waiting<I, O>[] = [];
  let inFlight = 0;

  const runChecked = async (items: I[]): Promise<O[]> => {
    const out = await opts.run(items);
    if (out.length !== items.length) throw new Error(`group commit: ${out.length} results for ${items.length} items`);
    return out;
  };

  const settle = async (batch: Waiting<I, O>[]): Promise<void> => {
    try {
      const out = await runChecked(batch.map((w) => w.item));
      batch.forEach((w, i) => w.resolve(out[i]!));
    } catch (e) {
      if (batch.length === 1) return batch[0]!.reject(e);
      // Each member alone, one after the other: only the one that fails alone gets an error.
      for (const w of batch) {
        try {
          w.resolve((await runChecked([w.item]))[0]!);
        } catch (err) {
          w.reject(err);
        }
      }
    }
  };

  let gathering = false;
  const pumpLater = (): void => {
    if (gathering) return;
    gathering = true;
    setImmediate(() => {
      gathering = false;
      pump();
    });
  };

  const pump = (): void => {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      inFlight++;
      void settle(batch).finally(() => {
        inFlight--;
        pump();
      });
    }
  };

  return {
    submit(item: I): Promise<O> {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (opts.gatherTurn) pumpLater();
        else pump();
      });
    },
    get pending() {
      return queue.length + inFlight;
    },
  };
}
