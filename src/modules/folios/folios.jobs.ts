import type { JobHandler } from '../../jobs/queue.ts';
import type { Periodic } from '../../worker.ts';
import { FOLIO_REQUEST_QUEUE, type FoliosService } from './folios.service.ts';

/** The folios module's background work: CAF requests, and voiding abandoned reservations. */
export function folioJobHandlers(folios: FoliosService): Record<string, JobHandler> {
  return { [FOLIO_REQUEST_QUEUE]: (payload, job) => folios.runRequestJob(payload, job) };
}

/** The sweep runs at least twice per reservation timeout, so an abandoned folio is voided soon after. */
export function folioPeriodics(folios: FoliosService, reservationTimeoutMs: number): Periodic[] {
  const everyMs = Math.max(1000, Math.min(60_000, Math.floor(reservationTimeoutMs / 2)));
  return [{ name: 'folios.sweep-reservations', everyMs, run: async () => void (await folios.sweepReservations()) }];
}
