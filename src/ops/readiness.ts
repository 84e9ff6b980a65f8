import fs from 'node:fs';
import { AppError } from '../errors.ts';
import type { Sql } from '../db/types.ts';

/**
 * Readiness (GET /readyz, docs/operations.md): each database answers within a short timeout and has
 * every migration file of its folder recorded in `schema_migrations`. Liveness (/healthz) never
 * comes here: a slow database must not get a live process restarted.
 *
 * The expected migrations are the files on disk, read once at start: a process whose code is newer
 * than its database (a deploy whose migrations did not run) is not ready.
 */
export interface ReadinessCheck {
  /** Names the database in the error's details: `database` or `secrets_database`. */
  name: string;
  db: Sql;
  migrationsDir: string;
}

export const READINESS_TIMEOUT_MS = 2_000;

const RETRY_AFTER_SECONDS = 5;

export function createReadiness(checks: readonly ReadinessCheck[], opts: { timeoutMs?: number } = {}) {
  const timeoutMs = opts.timeoutMs ?? READINESS_TIMEOUT_MS;
  const expected = checks.map((c) => ({
    ...c,
    files: fs
      .readdirSync(c.migrationsDir)
      .filter((f) => f.endsWith('.sql'))
      .sort(),
  }));

  const withTimeout = async <T>(p: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        p,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('readiness check timed out')), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    /** Resolves when ready; otherwise an AppError (503, Retry-After) saying which database and why. */
    async check(): Promise<AppError | null> {
      for (const c of expected) {
        let applied: Set<string>;
        try {
          const r = await withTimeout(c.db.query<{ name: string }>('select name from schema_migrations'));
          applied = new Set(r.rows.map((row) => row.name));
        } catch {
          // The driver's text stays out of the answer (it can name hosts and users).
          return new AppError('unavailable', 'database_unavailable', `The ${c.name.replace('_', ' ')} is not reachable right now.`, {
            retryAfterSeconds: RETRY_AFTER_SECONDS,
            details: { check: c.name },
          });
        }
        const missing = c.files.filter((f) => !applied.has(f));
        if (missing.length > 0)
          return new AppError(
            'unavailable',
            'migrations_pending',
            `The ${c.name.replace('_', ' ')} lacks ${missing.length} migration(s); they run when the service starts.`,
            { retryAfterSeconds: RETRY_AFTER_SECONDS, details: { check: c.name, pending: missing.slice(0, 20) } },
          );
      }
      return null;
    },
  };
}

export type Readiness = ReturnType<typeof createReadiness>;
