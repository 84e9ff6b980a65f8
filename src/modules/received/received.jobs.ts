import type { Periodic } from '../../worker.ts';
import type { ReceivedService } from './received.service.ts';

/**
 * Background work of received documents: the registrations at the SII of the tenants' answers
 * that are due (received.registration.ts). Every 30 s: an attempt that got no answer waits at least
 * a minute, and the provider's pacing keeps each key within its rate limits.
 */
export function receivedPeriodics(received: Pick<ReceivedService, 'registerDueAcceptances'>): Periodic[] {
  return [
    {
      name: 'received.register-acceptances',
      everyMs: 30_000,
      runAtStart: true,
      run: async () => void (await received.registerDueAcceptances()),
    },
  ];
}
