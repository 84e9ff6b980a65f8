import type { JobHandler } from '../../jobs/queue.ts';
import type { Periodic } from '../../worker.ts';
import type { FolioAnnulment } from './folios.annul.ts';
import { FOLIO_REQUEST_QUEUE } from './folios.request.ts';
import type { FoliosService } from './folios.service.ts';

/** The folios module's background work: CAF requests, voiding abandoned reservations, annulling voided folios. */
export function folioJobHandlers(folios: Pick<FoliosService, 'runRequestJob'>): Record<string, JobHandler> {
  return { [FOLIO_REQUEST_QUEUE]: (payload, job) => folios.runRequestJob(payload, job) };
}

/** The sweep runs at least twice per reservation timeout, so an abandoned folio is voided soon after. */
export function folioPeriodics(
  folios: Pick<FoliosService, 'sweepReservations'>,
  annulment: FolioAnnulment,
  reservationTimeoutMs: number,
): Periodic[] {
  const everyMs = Math.max(1000, Math.min(60_000, Math.floor(reservationTimeoutMs / 2)));
  return [
    { name: 'folios.sweep-reservations', everyMs, run: async () => void (await folios.sweepReservations()) },
    // Annulled soon after voiding, so the SII's records explain every gap (folios.annul.ts).
    { name: 'folios.annul-voided', everyMs: 60_000, run: async () => void (await annulment.annulVoided()) },
  ];
}
