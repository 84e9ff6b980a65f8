import crypto from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { dropCopies } from './pg-template.ts';

/**
 * Vitest global setup for PostgreSQL (with TEST_DATABASE_URL): names this run, whose test
 * databases (copies of the migrated templates, pg-template.ts) carry the name, and drops at the
 * end whatever copies of the run are left; at the start it drops copies a killed run left a day
 * or more ago.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const run = crypto.randomBytes(4).toString('hex');
  project.provide('pgRun', run);
  const base = process.env.TEST_DATABASE_URL;
  if (!base) return undefined;
  await dropCopies(base, 'stale');
  return async () => {
    await dropCopies(base, { run });
  };
}
