import type { Db } from '../../db/types.ts';
import { siiDate, type Caf } from '../../dte/index.ts';
import { errors, type AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { CafCache } from './caf-cache.ts';
import { createGroupCommit, type GroupCommit } from '../../lib/group-commit.ts';
import { allocationStore, type TakenFolios } from './folios.allocation.store.ts';
import { checkStock } from './folios.inventory.ts';
import { inventoryStore } from './folios.inventory.store.ts';

/**
 * Folio allocation, what the DTE module issues with (docs/folios.md, "How folios are handed out").
 *
 * Invariant — a folio is handed out at most once, ever, across processes and crashes:
 *  1. `reserve` takes the next folio in one statement (atomic on its own): `next_folio + n` under
 *     the range's row lock, plus a `folio_allocations` row per folio whose primary key is the folio
 *     itself. Both commit together, so once a folio is out, no later statement can get it again
 *     (the counter only moves forward, and the key refuses a repeat even if the counter were
 *     rewound). The row lock lasts one statement, so concurrent creates wait for each other only
 *     that long. Concurrent reserves of one type in a process share that statement (n of them; a
 *     group commit): each still gets its own folio, recorded as reserved before it is handed out.
 *  2. The DTE is built and signed outside any transaction (CPU work holds no lock; on PGlite a
 *     transaction holds the only connection).
 *  3. `markUsedSql` turns the reservation into `used` in the very statement that inserts the DTE row
 *     with its signed XML (one statement, atomic on its own; concurrent creates of a process share
 *     it, see dte.create.ts), so a DTE row never exists without its XML and a used folio always
 *     has its DTE.
 * If the process dies between 1 and 3, the folio stays `reserved`; after
 * FOLIO_RESERVATION_TIMEOUT the sweep voids it (a gap, never a reuse; folios.annul.ts then tells
 * the SII). A create that fails after 1 (it cannot, for input errors: those are checked before)
 * voids its folio at once with `release`.
 */
export interface Reservation {
  folio: number;
  rangeId: string;
  caf: Caf;
}

export interface FolioAllocationDeps {
  db: Db;
  clock: Clock;
  cafs: CafCache;
  reservationTimeoutMs: number;
  log?: { warn: (obj: object, msg: string) => void };
}

/** A rewound counter could line up many folios handed out before; past this, something is wrong. */
const MAX_SKIPPED = 1000;

/** Largest group of concurrent reserves of one type answered by one statement. */
const MAX_RESERVE_BATCH = 64;

/**
 * Whether this allocation may have moved the folio.low alarm (armed and now below the threshold,
 * or disarmed and back at or above it). Rare, so only then a second, transactional step runs.
 */
const alarmMayChange = (a: TakenFolios): boolean =>
  a.lowArmed !== null && a.lowThreshold !== null && (a.lowArmed ? a.disponibles < a.lowThreshold : a.disponibles >= a.lowThreshold);

interface ReserveRequest {
  accountId: string;
  tenantId: string;
  tipoDte: number;
  datedOn: string | undefined;
}

/** Each request's folio, or why it got none (a refusal of that request, not of the batch). */
type ReserveOutcome = { ok: Reservation } | { error: unknown };

export function createFolioAllocation(deps: FolioAllocationDeps) {
  const { db, clock } = deps;

  /** A create that failed after reserving: the folio is voided (a gap), never handed out again. */
  const release = async (accountId: string, tenantId: string, tipoDte: number, folio: number): Promise<void> => {
    await allocationStore.voidAllocation(db, { accountId, tenantId, tipoDte, folio });
  };

  /**
   * Folios for a group of requests of one tenant, type and date (the first waited for the range's
   * lock anyway; the others would have queued behind it): one statement per range they draw from,
   * usually one for the whole group. Requests get ascending folios in arrival order.
   */
  const reserveGroup = async (group: ReserveRequest[]): Promise<ReserveOutcome[]> => {
    const { accountId, tenantId, tipoDte, datedOn } = group[0]!;
    const now = clock.now();
    const today = siiDate(now);
    const got: { folio: number; taken: TakenFolios }[] = [];
    let last: TakenFolios | undefined;
    let skipped = 0;
    // Once a folio is taken it is this group's to hand out: nothing after that may throw (the group
    // commit would run every member again alone, and the folios taken here would be left reserved,
    // to be voided by the sweep: gaps). A failure after the first folio refuses only the requests
    // that have none yet; one before it is the whole group's, and the group commit retries alone.
    let failure: { error: unknown } | undefined;
    try {
      while (got.length < group.length) {
        const t = await allocationStore.takeNext(db, {
          accountId,
          tenantId,
          tipoDte,
          today,
          now,
          datedOn,
          count: group.length - got.length,
        });
        if (!t) break;
        last = t;
        for (const folio of t.folios) got.push({ folio, taken: t });
        // A folio handed out before (a rewound counter): skipped, never handed out again.
        for (const folio of t.skipped) deps.log?.warn({ tenantId, tipoDte, folio }, 'folio already handed out before; skipped');
        skipped += t.skipped.length;
        if (skipped >= MAX_SKIPPED) throw new Error('folio allocation: too many folios already handed out in a row');
      }
    } catch (e) {
      if (got.length === 0) throw e;
      failure = { error: e };
    }
    // The conditional update in checkStock makes the alarm fire once even when several
    // allocations see the crossing together. If the process dies before it — or it fails — the
    // next allocation still sees the crossing and fires.
    if (last && alarmMayChange(last)) {
      try {
        await db.transaction((tx) => checkStock(tx, { accountId, tenantId, tipoDte, now, mayFire: true }));
      } catch (e) {
        deps.log?.warn({ tenantId, tipoDte, err: (e as Error).message }, 'folio.low check failed; the next allocation checks again');
      }
    }
    const outcomes: ReserveOutcome[] = [];
    for (const { folio, taken } of got) {
      try {
        outcomes.push({ ok: { folio, rangeId: taken.rangeId, caf: deps.cafs.get({ accountId, tenantId, ...taken }) } });
      } catch (e) {
        // The CAF would not decrypt or parse: this folio cannot be stamped, so it is voided now
        // (or by the sweep, if even that fails).
        await release(accountId, tenantId, tipoDte, folio).catch(() => {});
        outcomes.push({ error: e });
      }
    }
    if (outcomes.length < group.length) {
      let refusal: () => unknown;
      if (failure) refusal = () => failure.error;
      else {
        try {
          refusal = await noFolioError(accountId, tenantId, tipoDte, today, datedOn);
        } catch (e) {
          refusal = () => e;
        }
      }
      while (outcomes.length < group.length) outcomes.push({ error: refusal() });
    }
    return outcomes;
  };

  /** Why no folio was left for a request: one error object per request that gets none. */
  const noFolioError = async (
    accountId: string,
    tenantId: string,
    tipoDte: number,
    today: string,
    datedOn: string | undefined,
  ): Promise<() => AppError> => {
    if (datedOn) {
      const later = await inventoryStore.usableRanges(db, accountId, tenantId, today, tipoDte);
      if (later.length > 0) {
        const earliest = later.map((g) => g.fecha_autorizacion).sort()[0]!;
        return () =>
          errors.unprocessable(
            'date_before_caf',
            `fechaEmision ${datedOn} is before the authorisation of every CAF of type ${tipoDte} with folios left (the earliest is ${earliest}); the SII rejects a document dated before its CAF. Date it on or after that day.`,
            { param: 'fechaEmision', details: { earliestAuthorization: earliest } },
          );
      }
    }
    return () =>
      errors.conflict(
        'folios_exhausted',
        `No folios of type ${tipoDte} are left (or the remaining CAFs expired). Request more with POST /api/v1/tenants/${tenantId}/folios/request.`,
        { param: 'tipoDte' },
      );
  };

  // One group commit per tenant, type and date, dropped when idle: concurrent reserves of a type
  // share a statement (they would queue on the range's row lock one by one otherwise).
  const groups = new Map<string, GroupCommit<ReserveRequest, ReserveOutcome>>();

  return {
    /**
     * Step 1 of the invariant: the next folio of the type, with the CAF that stamps it. With
     * `datedOn` (the document's fechaEmision), only from a CAF authorised on or before that day:
     * the SII rejects a document dated before its CAF (HED-3-305), so none is spent on one.
     */
    async reserve(accountId: string, tenantId: string, tipoDte: number, opts: { datedOn?: string } = {}): Promise<Reservation> {
      const key = `${accountId}/${tenantId}/${tipoDte}/${opts.datedOn ?? ''}`;
      let group = groups.get(key);
      if (!group) {
        group = createGroupCommit({ run: reserveGroup, maxBatch: MAX_RESERVE_BATCH, maxInFlight: 1, gatherTurn: true });
        groups.set(key, group);
      }
      const g = group;
      try {
        const outcome = await g.submit({ accountId, tenantId, tipoDte, datedOn: opts.datedOn });
        if ('error' in outcome) throw outcome.error;
        return outcome.ok;
      } finally {
        setImmediate(() => {
          if (g.pending === 0 && groups.get(key) === g) groups.delete(key);
        });
      }
    },

    /**
     * Step 3, as part of the statement that stores the DTEs (see allocationStore.markUsedSql): the
     * DTE module runs it, so a DTE is stored exactly when its folio becomes used.
     */
    markUsedSql: allocationStore.markUsedSql,

    release,

    /** Periodic: void the reservations of creates that never finished. */
    async sweepReservations(): Promise<number> {
      return allocationStore.voidStale(db, new Date(clock.now().getTime() - deps.reservationTimeoutMs));
    },
  };
}

export type FolioAllocation = ReturnType<typeof createFolioAllocation>;
