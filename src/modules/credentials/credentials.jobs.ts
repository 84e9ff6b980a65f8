import type { Db } from '../../db/types.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Periodic } from '../../worker.ts';
import { scanExpiringCertificates } from './certificate-expiring.ts';
import type { CredentialsService } from './credentials.service.ts';

/** The credentials module's background work, collected by src/worker.ts. */
export function credentialsPeriodics(deps: { credentials: Pick<CredentialsService, 'sweep'>; db: Db; clock: Clock }): Periodic[] {
  return [
    // Secrets no row points to (a crash between the two stores, abandoned activations): hourly (sweep.ts).
    { name: 'credentials.sweep', everyMs: 3_600_000, run: async () => void (await deps.credentials.sweep()) },
    // Certificates that crossed into the 30-day window since the last scan; also at start, so a
    // process restarted more often than hourly still announces them.
    {
      name: 'credentials.certificate-expiring',
      everyMs: 3_600_000,
      runAtStart: true,
      run: async () => void (await scanExpiringCertificates(deps.db, deps.clock)),
    },
  ];
}
