import type { Db } from '../../db/types.ts';
import { parseCafBlock } from '../../dte/index.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { ProviderError, providerErrorToAppError, type Provider } from '../../provider/index.ts';
import { annulStore, type VoidedFolio } from './folios.annul.store.ts';
import type { FolioCredentialsSource } from './folios.ports.ts';
import { SYSTEM_ACTOR, type AuditRecorder } from '../audit/index.ts';

/**
 * Annulment of voided folios at the SII ("anulación de folios").
 *
 * A folio whose create never finished is voided, never reused (folios.allocation.ts). To the SII that
 * folio is authorized but never issued; annulling it tells the SII the gap is intended. This runs
 * periodically in the worker: claim due voided folios (a lease, so workers never overlap), group
 * them into runs of consecutive folios of one CAF, call the provider once per run, and record the
 * answer. A refusal or an outage is retried with backoff, up to MAX_ANNUL_ATTEMPTS; after that the
 * folios keep their last error for an operator (the folio is still never reused either way).
 */
export const MAX_ANNUL_ATTEMPTS = 8;
const CLAIM_LIMIT = 500;
/** Longer than any provider call with its retries: a crashed worker's claim is retried after it. */
const LEASE_MS = 10 * 60_000;

/** Backoff after a failed attempt: 5 min, 10, 20 … capped at 12 h. */
export const annulRetryDelayMs = (attempts: number): number => Math.min(5 * 60_000 * 2 ** Math.max(0, attempts - 1), 12 * 3_600_000);

export interface FolioRun {
  accountId: string;
  tenantId: string;
  tipoDte: number;
  rangeId: string;
  desde: number;
  hasta: number;
  attempts: number;
  ambiente: 'certificacion' | 'produccion';
}

/** Consecutive folios of the same tenant, type and CAF become one run (one provider call). */
export function contiguousRuns(folios: readonly VoidedFolio[]): FolioRun[] {
  const sorted = [...folios].sort((a, b) =>
    a.tenantId === b.tenantId ? (a.tipoDte === b.tipoDte ? a.folio - b.folio : a.tipoDte - b.tipoDte) : a.tenantId < b.tenantId ? -1 : 1,
  );
  const runs: FolioRun[] = [];
  for (const f of sorted) {
    const last = runs.at(-1);
    if (last && last.tenantId === f.tenantId && last.tipoDte === f.tipoDte && last.rangeId === f.rangeId && last.hasta + 1 === f.folio) {
      last.hasta = f.folio;
      last.attempts = Math.max(last.attempts, f.attempts);
    } else {
      runs.push({
        accountId: f.accountId,
        tenantId: f.tenantId,
        tipoDte: f.tipoDte,
        rangeId: f.rangeId,
        desde: f.folio,
        hasta: f.folio,
        attempts: f.attempts,
        ambiente: f.ambiente,
      });
    }
  }
  return runs;
}

export interface FolioAnnulmentDeps {
  db: Db;
  clock: Clock;
  provider: Pick<Provider, 'annulFolios'>;
  credentials: FolioCredentialsSource;
  log?: { warn: (obj: object, msg: string) => void };
  /** The audit log's recorder (docs/audit.md): each annulled run is recorded as the system's. */
  audit?: AuditRecorder | undefined;
}

export function createFolioAnnulment(deps: FolioAnnulmentDeps) {
  const { db, clock } = deps;

  /** One run: the provider's answer, or why it could not be asked (never throws). */
  const annulRun = async (run: FolioRun): Promise<string | null> => {
    try {
      // The issuer and environment of the CAF itself, not the tenant's current settings: a tenant
      // that moved from certificación to producción must not annul production folios.
      const range = await annulStore.getRangeKey(db, run.accountId, run.rangeId);
      if (!range) return 'annulment_failed: the folio range no longer exists';
      const creds = await deps.credentials.getProviderCredentials(run.accountId, run.tenantId);
      const r = await deps.provider.annulFolios(creds, {
        rutEmpresa: parseCafBlock(range.caf_block).rutEmisor,
        tipoDte: run.tipoDte,
        desde: run.desde,
        hasta: run.hasta,
        ambiente: run.ambiente,
      });
      return r.ok ? null : `annulment_refused: ${r.glosa || 'the SII refused the annulment'}`.slice(0, 500);
    } catch (e) {
      // Credentials removed, provider down, key expired…: kept as an error and tried again later.
      const err = e instanceof ProviderError ? providerErrorToAppError(e) : e instanceof AppError ? e : undefined;
      if (err) return `${err.code}: ${err.message}`.slice(0, 500);
      // Our bug, not the provider's: logged in full, stored without details, counted as an attempt.
      deps.log?.warn({ tenantId: run.tenantId, err: String(e) }, 'unexpected error annulling voided folios');
      return 'internal_error: unexpected error; see the service log';
    }
  };

  return {
    /** Periodic: annul what is due; returns how many runs were annulled and how many failed. */
    async annulVoided(): Promise<{ annulled: number; failed: number }> {
      const now = clock.now();
      const leaseUntil = new Date(now.getTime() + LEASE_MS);
      const claimed = await db.transaction((tx) =>
        annulStore.claimVoidedToAnnul(tx, { now, leaseUntil, maxAttempts: MAX_ANNUL_ATTEMPTS, limit: CLAIM_LIMIT }),
      );
      let annulled = 0;
      let failed = 0;
      for (const run of contiguousRuns(claimed)) {
        // Runs go one after another: stop while the claim is still safely ours. What is left is
        // claimed again once the lease runs out, by this worker or another.
        if (clock.now().getTime() > now.getTime() + LEASE_MS / 2) break;
        const error = await annulRun(run);
        const at = clock.now();
        const nextAt = error ? new Date(at.getTime() + annulRetryDelayMs(run.attempts + 1)) : null;
        const recorded = await db.transaction(async (tx) => {
          const n = await annulStore.recordAnnulment(tx, { ...run, leaseUntil, now: at, error, nextAt });
          if (n > 0 && !error)
            await deps.audit?.recordIn(tx, SYSTEM_ACTOR, {
              accountId: run.accountId,
              action: 'folio.annulled',
              target: { type: 'folio_range', id: run.rangeId },
              details: { tenantId: run.tenantId, tipoDte: run.tipoDte, desde: run.desde, hasta: run.hasta },
            });
          return n;
        });
        if (recorded === 0) continue; // lease lost
        if (error) {
          failed++;
          deps.log?.warn(
            { tenantId: run.tenantId, tipoDte: run.tipoDte, desde: run.desde, hasta: run.hasta, error },
            'voided folios could not be annulled; will retry',
          );
        } else annulled++;
      }
      return { annulled, failed };
    },
  };
}

export type FolioAnnulment = ReturnType<typeof createFolioAnnulment>;
