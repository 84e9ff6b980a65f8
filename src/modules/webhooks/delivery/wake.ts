import type { Db } from '../../../db/types.ts';
import { OUTBOX_CHANNEL, onOutboxWritten } from '../../../events/outbox.ts';

/**
 * Wake-ups for the delivery workers of one database (docs/webhooks.md "How delivery works").
 *
 * - PostgreSQL: one LISTEN connection per Db and process, shared by its workers. Every transaction
 *   that writes an outbox row or a delivery NOTIFYs OUTBOX_CHANNEL, which PostgreSQL delivers at
 *   commit to every listening process, this one included. While that connection is down (`live`
 *   false) notifications can be missed, so workers poll fast; when it is back they run a round at
 *   once to pick up what was missed.
 * - PGlite: one process owns the database; the writer's in-process signal is the wake-up. It can
 *   fire before the writer commits, but the worker's first statement then waits behind that
 *   transaction on PGlite's one connection, so it reads after the commit.
 *
 * Either way a wake-up is a hint: the worker's backstop poll finds anything a lost one leaves.
 */
export interface WakeSubscription {
  /** True while every committed write is expected to wake this process. */
  readonly live: boolean;
  close(): void;
}

interface Hub {
  live: boolean;
  subscribers: Set<() => void>;
}

const hubs = new WeakMap<Db, Hub>();

function listenerFor(db: Db & { listen: NonNullable<Db['listen']> }, name: string): Hub {
  let hub = hubs.get(db);
  if (hub) return hub;
  const h: Hub = { live: false, subscribers: new Set() };
  hub = h;
  hubs.set(db, h);
  const wakeAll = () => {
    for (const s of h.subscribers) s();
  };
  db.listen({
    channels: [OUTBOX_CHANNEL],
    name,
    onMessage: () => wakeAll(),
    // Down: the workers switch to polling fast. Back (or up for the first time): what was committed
    // meanwhile was never announced, so they look at once.
    onState: (listening) => {
      h.live = listening;
      wakeAll();
    },
  });
  return h;
}

/** `onWake` runs on every wake-up, and when the listener goes down or comes back (check `live`). */
export function subscribeWakeUps(db: Db, name: string, onWake: () => void): WakeSubscription {
  if (!db.listen) {
    const off = onOutboxWritten(onWake);
    return { live: true, close: off };
  }
  const hub = listenerFor(db as Db & { listen: NonNullable<Db['listen']> }, name);
  hub.subscribers.add(onWake);
  return {
    get live() {
      return hub.live;
    },
    close: () => void hub.subscribers.delete(onWake),
  };
}
