import type { Db } from '../../db/types.ts';
import type { Clock } from '../../lib/clock.ts';
import type { SecretStore } from '../../secrets/secret-store.ts';
import { activationStore } from './activation.store.ts';
import { credentialsStore } from './credentials.store.ts';

/**
 * The other half of the credential writer's order (credential-writer.ts, docs/secrets.md
 * "Housekeeping"): removes secrets no row points to any more (a crash between the two databases, a
 * deleted tenant, an abandoned activation) once they are older than `graceMs`, and the staged
 * .pfx files of links that can no longer complete. The grace period covers writes in flight: a
 * secret is stored before the row that points to it commits.
 */
export function createSecretSweep(deps: { db: Db; clock: Clock; secretStore: SecretStore }) {
  const { db, clock, secretStore } = deps;
  return async function sweep(graceMs = 86_400_000): Promise<{ secretsDeleted: number; stagedCleared: number }> {
    const now = clock.now();
    const cutoff = new Date(now.getTime() - graceMs);
    let after: string | undefined;
    let secretsDeleted = 0;
    for (;;) {
      const batch = await secretStore.list({ prefix: 'tenant/', olderThan: cutoff, ...(after ? { after } : {}), limit: 500 });
      if (batch.length === 0) break;
      const refs = batch.map((b) => b.ref);
      const live = await credentialsStore.referencedSecretRefs(db, refs, now);
      for (const ref of refs) if (!live.has(ref) && (await secretStore.delete(ref))) secretsDeleted++;
      after = refs[refs.length - 1];
    }
    const stagedCleared = await db.transaction((tx) => activationStore.clearStaleStaging(tx, now));
    return { secretsDeleted, stagedCleared };
  };
}
