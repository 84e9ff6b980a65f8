import type { Db } from '../../db/types.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { ProviderError, providerErrorToAppError, rateLimitWaitMs, type Provider, type ProviderCredentials } from '../../provider/index.ts';
import type { TenantRow } from '../tenants/index.ts';
import { accionesStore, type DueRegistration, type SiiState } from './received.acciones.store.ts';
import { statusOf, type Accion } from './received.rules.ts';
import { receivedStore } from './received.store.ts';

/**
 * Registering the tenant's answers at the SII (registro de aceptación o reclamo) through the
 * provider (`registerAcceptance`, SimpleAPI compras/aceptacionreclamo). An answer is recorded
 * `pending` first (received.acceptance.ts); each attempt takes a lease on it (never two at once),
 * calls the provider outside any transaction, and records what came back:
 *  - the SII registered it (or had it already): `registered`, with its code and words;
 *  - the SII refused it (past its eight days, a document it does not have, a conflicting event):
 *    `refused`, with its code; the document's status is recomputed without it;
 *  - no answer now (outage, timeout, the rate limit — a reason to wait, never a failure —, the
 *    credentials missing or refused): still `pending`, tried again after a backoff of 1 min doubling
 *    to 2 h (a rate limit: after its Retry-After); after MAX_REGISTRATION_ATTEMPTS, `failed`, until
 *    the tenant asks again (POST the same action).
 * The worker runs due attempts periodically (receivedPeriodics); a request runs one at once.
 */
export const MAX_REGISTRATION_ATTEMPTS = 30;
/** Longer than a provider call with its pacing and retries: a crashed attempt is taken again after it. */
const LEASE_MS = 10 * 60_000;
const CLAIM_LIMIT = 50;

export const registrationRetryDelayMs = (attempts: number): number => Math.min(60_000 * 2 ** Math.max(0, attempts - 1), 2 * 3_600_000);

export interface RegistrationDeps {
  db: Db;
  clock: Clock;
  provider: Pick<Provider, 'registerAcceptance'>;
  credentials: { getProviderCredentials(accountId: string, tenantId: string): Promise<Required<ProviderCredentials>> };
  getTenant: (accountId: string, tenantId: string) => Promise<Pick<TenantRow, 'ambiente'>>;
  log?: { warn: (obj: object, msg: string) => void } | undefined;
}

interface Attempted {
  state: SiiState;
  codigo: number | null;
  descripcion: string | null;
  registeredAt: Date | null;
  nextAt: Date | null;
  error: string | null;
}

export function createRegistration(deps: RegistrationDeps) {
  const { db, clock } = deps;

  const ask = async (due: DueRegistration): Promise<Attempted> => {
    try {
      const tenant = await deps.getTenant(due.account_id, due.tenant_id);
      const creds = await deps.credentials.getProviderCredentials(due.account_id, due.tenant_id);
      const r = await deps.provider.registerAcceptance(creds, {
        rutEmisor: due.rut_emisor,
        tipoDte: due.tipo_dte,
        folio: Number(due.folio),
        accion: due.accion as Accion,
        ambiente: tenant.ambiente,
      });
      return {
        state: r.outcome === 'registered' ? 'registered' : 'refused',
        codigo: r.codigo,
        descripcion: r.descripcion.slice(0, 500),
        registeredAt: r.outcome === 'registered' ? clock.now() : null,
        nextAt: null,
        error: null,
      };
    } catch (e) {
      const attempts = due.sii_attempts + 1;
      const err = e instanceof ProviderError ? providerErrorToAppError(e) : e instanceof AppError ? e : undefined;
      if (!err) deps.log?.warn({ tenantId: due.tenant_id, err: String(e) }, 'unexpected error registering an acceptance at the SII');
      const failed = attempts >= MAX_REGISTRATION_ATTEMPTS;
      const wait = rateLimitWaitMs(e) ?? registrationRetryDelayMs(attempts);
      return {
        state: failed ? 'failed' : 'pending',
        codigo: null,
        descripcion: null,
        registeredAt: null,
        nextAt: failed ? null : new Date(clock.now().getTime() + wait),
        error: (err ? `${err.code}: ${err.message}` : 'internal_error: unexpected error; see the service log').slice(0, 500),
      };
    }
  };

  /** One attempt on a claimed answer; records it unless the lease was lost meanwhile. */
  const attempt = async (due: DueRegistration, leaseUntil: Date): Promise<SiiState> => {
    const r = await ask(due);
    await db.transaction(async (tx) => {
      const now = clock.now();
      const n = await accionesStore.record(tx, { accountId: due.account_id, id: due.id, leaseUntil, ...r, now });
      if (n === 0 || r.state !== 'refused') return;
      // A refused answer no longer counts: the status is what the others lead to.
      const all = await accionesStore.listFor(tx, due.account_id, due.received_dte_id);
      await receivedStore.setStatus(tx, {
        accountId: due.account_id,
        id: due.received_dte_id,
        status: statusOf(all.map((a) => ({ accion: a.accion, state: a.sii_state }))),
        now,
      });
    });
    return r.state;
  };

  return {
    /** One attempt now for answer `n` of a document (a request asked); nothing when another attempt holds it. */
    async attemptNow(accountId: string, receivedDteId: string, n: number): Promise<void> {
      const now = clock.now();
      const leaseUntil = new Date(now.getTime() + LEASE_MS);
      const due = await accionesStore.claimOne(db, accountId, receivedDteId, n, now, leaseUntil);
      if (due) await attempt(due, leaseUntil);
    },

    /** Periodic: the pending registrations whose time has come. */
    async registerDue(): Promise<{ registered: number; refused: number; pending: number }> {
      const now = clock.now();
      const leaseUntil = new Date(now.getTime() + LEASE_MS);
      const due = await db.transaction((tx) => accionesStore.claimDue(tx, now, leaseUntil, CLAIM_LIMIT));
      const out = { registered: 0, refused: 0, pending: 0 };
      for (const d of due) {
        if (clock.now().getTime() > now.getTime() + LEASE_MS / 2) break; // the rest is claimed again later
        const state = await attempt(d, leaseUntil);
        if (state === 'registered') out.registered++;
        else if (state === 'refused') out.refused++;
        else out.pending++;
      }
      return out;
    },
  };
}

export type Registration = ReturnType<typeof createRegistration>;
