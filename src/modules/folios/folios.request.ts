import type { Db, Sql } from '../../db/types.ts';
import type { AuditActor, AuditRecorder } from '../audit/index.ts';
import { parseCaf, toSiiRut, type Caf, type SiiKeys } from '../../dte/index.ts';
import { AppError, errors, isErrorKind } from '../../errors.ts';
import { enqueue, fenced, type JobResult, type JobRun } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId, UUID_RE } from '../../lib/tokens.ts';
import { parseTipoDte } from '../../lib/validate.ts';
import { waitFor } from '../../lib/wait.ts';
import { ProviderError, providerErrorToAppError, rateLimitWaitMs, type Provider, type ProviderCredentials } from '../../provider/index.ts';
import type { DataCipher } from '../../secrets/data-cipher.ts';
import { requireReady, type TenantRow } from '../tenants/index.ts';
import { cafKeysFor, cafProblem } from './caf-checks.ts';
import { cafKeyAad } from './folios.encrypted.ts';
import type { FolioCredentialsSource, GetTenant, TenantRef } from './folios.ports.ts';
import { requestStore, type FolioRequestRow } from './folios.request.store.ts';
import { storeCafRange } from './folios.ranges.ts';

/**
 * Requesting a CAF from the SII (docs/folios.md, "Requesting folios"). Getting one can take a
 * minute, so the request is a durable job: recorded with its job in one transaction, so it
 * survives a restart, and retried with backoff while the provider is briefly unreachable. The
 * caller waits a bounded time for it and learns either outcome; a failure is stored as an error
 * kind (never an HTTP status), so whoever reads it later gets the same error.
 */
export const FOLIO_REQUEST_QUEUE = 'folios.request';
const MAX_REQUEST_ATTEMPTS = 5;

export interface FolioRequest {
  id: string;
  tenantId: string;
  tipoDte: number;
  cantidad: number;
  status: 'pending' | 'completed' | 'failed';
  rango: { desde: number; hasta: number; fechaAutorizacion: string; vencimiento: string | null } | null;
  error: { code: string; message: string } | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

/** `completed`: the CAF arrived within the wait; `pending`: the job is still running (poll getRequest). */
export interface FolioRequestOutcome {
  state: 'completed' | 'pending';
  request: FolioRequest;
}

export interface FolioRequestsDeps {
  db: Db;
  clock: Clock;
  provider: Pick<Provider, 'requestCaf'>;
  credentials: FolioCredentialsSource;
  dataCipher: Pick<DataCipher, 'encrypt'>;
  /** Keys a CAF's FRMA must verify with (src/provider/sii-keys.ts). */
  cafKeys: SiiKeys;
  /** The same for test tenants (caf-checks.ts cafKeysFor). */
  testCafKeys?: SiiKeys | undefined;
  /** The job knows only ids, so it fetches the tenant itself. */
  getTenant: GetTenant;
  requestWaitMs: number;
  sleep?: (ms: number) => Promise<void>;
  /** The audit log's recorder (docs/audit.md): requests and uploads are recorded in their transaction. */
  audit?: AuditRecorder | undefined;
}

const toRequest = (r: FolioRequestRow): FolioRequest => ({
  id: r.id,
  tenantId: r.tenant_id,
  tipoDte: r.tipo_dte,
  cantidad: r.cantidad,
  status: r.status,
  rango:
    r.status === 'completed' && r.desde !== null && r.hasta !== null
      ? { desde: Number(r.desde), hasta: Number(r.hasta), fechaAutorizacion: r.fecha_autorizacion!, vencimiento: r.vencimiento }
      : null,
  error:
    r.status === 'failed'
      ? { code: r.error_code ?? 'folio_request_failed', message: r.error_message ?? 'The folio request failed.' }
      : null,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
  completedAt: r.completed_at?.toISOString() ?? null,
});

/** A failed request's stored error, as the error the caller gets. */
const storedError = (r: FolioRequestRow): AppError =>
  new AppError(
    isErrorKind(r.error_kind) ? r.error_kind : 'bad_gateway',
    r.error_code ?? 'folio_request_failed',
    r.error_message ?? 'The folio request failed.',
    { details: { requestId: r.id } },
  );

/** What `request` answers for a request row: a failed one throws its stored error. */
function outcomeOf(row: FolioRequestRow): FolioRequestOutcome {
  if (row.status === 'failed') throw storedError(row);
  return { state: row.status === 'completed' ? 'completed' : 'pending', request: toRequest(row) };
}

export function createFolioRequests(deps: FolioRequestsDeps) {
  const { db, clock } = deps;

  const failWith = async (accountId: string, requestId: string, e: AppError, job?: JobRun) => {
    await fenced(db, job?.fence, (sql) =>
      requestStore.failRequest(sql, accountId, requestId, { kind: e.kind, code: e.code, message: e.message }, clock.now()),
    );
  };

  /** The tenant and its credentials for the job, or the error that fails the request for good. */
  const prepare = async (accountId: string, tenantId: string): Promise<{ tenant: TenantRow; creds: Required<ProviderCredentials> }> => {
    const tenant = await deps.getTenant(accountId, tenantId);
    requireReady(tenant);
    return { tenant, creds: await deps.credentials.getProviderCredentials(accountId, tenantId) };
  };

  return {
    /**
     * Records the request and its job in one transaction, then waits up to `requestWaitMs` for a
     * worker to finish it. A request that failed within the wait throws its stored error.
     * `bindResult`, when given, runs in that transaction: the API binds the request's
     * Idempotency-Key to the new request there, so a retry after a lost response answers with this
     * request instead of asking for another CAF (src/http/plugins/idempotency.ts).
     */
    async request(
      tenant: TenantRow,
      body: { tipoDte: number; cantidad: number },
      opts: { bindResult?: ((tx: Sql, id: string) => Promise<void>) | undefined } = {},
      actor?: AuditActor,
    ): Promise<FolioRequestOutcome> {
      const tipoDte = parseTipoDte(body.tipoDte);
      requireReady(tenant);
      const { account_id: accountId, id: tenantId } = tenant;
      const id = newId();
      const now = clock.now();
      await db.transaction(async (tx) => {
        await requestStore.insertRequest(tx, { id, accountId, tenantId, tipoDte, cantidad: body.cantidad, now });
        await enqueue(
          tx,
          FOLIO_REQUEST_QUEUE,
          { requestId: id, accountId },
          { singletonKey: `folios.request:${id}`, maxAttempts: MAX_REQUEST_ATTEMPTS },
        );
        await opts.bindResult?.(tx, id);
        await deps.audit?.recordIn(tx, actor, {
          accountId,
          action: 'folio.requested',
          target: { type: 'folio_request', id },
          details: { tenantId, tipoDte, cantidad: body.cantidad },
        });
      });
      const { value: row } = await waitFor(
        async () => {
          const r = await requestStore.getRequest(db, accountId, tenantId, id);
          if (!r) throw errors.notFound('folio_request', id); // its tenant was deleted meanwhile
          return r;
        },
        (r) => r.status !== 'pending',
        { timeoutMs: deps.requestWaitMs, sleep: deps.sleep },
      );
      return outcomeOf(row);
    },

    /**
     * A request's outcome as `request` gives it, without waiting (a failed one throws its stored
     * error), by id within the account (the replay of a create whose response was lost).
     */
    async outcomeById(accountId: string, requestId: string): Promise<FolioRequestOutcome> {
      const row = UUID_RE.test(requestId) ? await requestStore.getRequest(db, accountId, null, requestId) : undefined;
      if (!row) throw errors.notFound('folio_request', requestId);
      return outcomeOf(row);
    },

    async getRequest(tenant: TenantRef, requestId: string): Promise<FolioRequest> {
      const row = UUID_RE.test(requestId) ? await requestStore.getRequest(db, tenant.account_id, tenant.id, requestId) : undefined;
      if (!row) throw errors.notFound('folio_request', requestId);
      return toRequest(row);
    },

    /** The job: ask the provider for a CAF, check it, store it (key encrypted). Idempotent per request. */
    async runRequestJob(payload: Record<string, unknown>, job: JobRun): Promise<JobResult> {
      const accountId = String(payload.accountId);
      const requestId = String(payload.requestId);
      const req = await requestStore.getRequest(db, accountId, null, requestId);
      if (!req || req.status !== 'pending') return;
      let ready: Awaited<ReturnType<typeof prepare>>;
      try {
        ready = await prepare(accountId, req.tenant_id);
      } catch (e) {
        if (e instanceof AppError) return failWith(accountId, requestId, e, job);
        throw e;
      }
      const { tenant, creds } = ready;
      let cafXml: Buffer;
      // On a retry (an earlier run may have been granted folios and lost the answer), a provider that
      // can look (the SII's forms) takes a range granted since the request and not held by the
      // tenant as that grant, instead of asking again. Never on the first run: a range granted to
      // someone else the same day (the same company under another account) is not this request's.
      const held = job.attempts > 1 ? await requestStore.heldRanges(db, accountId, req.tenant_id, req.tipo_dte) : undefined;
      job.signal?.throwIfAborted(); // another run holds the job now: no second CAF
      try {
        ({ cafXml } = await deps.provider.requestCaf(creds, {
          rutEmpresa: toSiiRut(tenant.rut_empresa),
          tipoDte: req.tipo_dte,
          cantidad: req.cantidad,
          ambiente: tenant.ambiente,
          ...(held ? { resume: { since: req.created_at, held } } : {}),
        }));
      } catch (e) {
        if (!(e instanceof ProviderError)) throw e;
        // SimpleAPI allows 1 folio request/s, 5/min and 100/h per key: a wait, never a failure.
        const waitMs = rateLimitWaitMs(e);
        if (waitMs !== undefined) return { rescheduleInMs: waitMs };
        if (e.transient && job.attempts < job.max_attempts) throw e; // the queue retries with backoff
        return failWith(accountId, requestId, providerErrorToAppError(e), job);
      }
      let caf: Caf;
      try {
        caf = parseCaf(cafXml);
      } catch {
        const invalid = new AppError('bad_gateway', 'caf_invalid', 'The billing provider returned a file that is not a valid CAF.');
        return failWith(accountId, requestId, invalid, job);
      }
      const problem = cafProblem(caf, { rutEmpresa: tenant.rut_empresa, tipoDte: req.tipo_dte }, cafKeysFor(deps, tenant));
      if (problem) {
        const hint =
          problem.code === 'caf_unknown_idk'
            ? ' (For an emulator started on its own, set EMULATOR_SII_PUBLIC_KEY to its sii-666.pub.pem.)'
            : '';
        return failWith(accountId, requestId, new AppError('bad_gateway', 'caf_untrusted', problem.message + hint), job);
      }
      const rangeId = newId();
      const privateKeyEnc = deps.dataCipher.encrypt(caf.privateKeyPem!, cafKeyAad(accountId, req.tenant_id, rangeId));
      const now = clock.now();
      await db.transaction(async (tx) => {
        await job.fence?.(tx);
        // Only the first run to finish attaches its CAF (a lease that expired mid-call can run twice).
        if (!(await requestStore.lockPendingRequest(tx, accountId, requestId))) return;
        // A CAF uploaded meanwhile (folios.upload.ts) may hold some of these folios: never two ranges for one folio.
        const r = await storeCafRange(tx, {
          rangeId,
          accountId,
          tenantId: req.tenant_id,
          ambiente: tenant.ambiente,
          caf,
          privateKeyEnc,
          requestId,
          now,
        });
        if (!r.stored) {
          const message =
            `The SII granted folios ${caf.desde}–${caf.hasta}, which overlap a CAF the tenant already has ` +
            `(${r.overlaps.map((g) => `${g.desde}–${g.hasta}`).join(', ') || `one starting at folio ${caf.desde}`}); it was not stored, so no folio is issued twice. ` +
            'The SII never grants a folio twice: check the CAFs uploaded for this tenant.';
          await requestStore.failRequest(tx, accountId, requestId, { kind: 'conflict', code: 'caf_overlap', message }, now);
          return;
        }
        await requestStore.completeRequest(tx, accountId, requestId, rangeId, now);
      });
    },
  };
}

export type FolioRequests = ReturnType<typeof createFolioRequests>;
