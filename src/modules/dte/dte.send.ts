import type { Db, Sql } from '../../db/types.ts';
import type { AuditActor, AuditRecorder } from '../audit/index.ts';
import { referencedFirst } from './dte.envelope-order.ts';
import { buildEnvelope, envelopeKindFor, isDteEngineError, toSiiRut } from '../../dte/index.ts';
import { AppError, errors } from '../../errors.ts';
import { enqueue, fenced, LeaseLostError, type JobLease, type JobResult, type JobRun } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId, UUID_RE } from '../../lib/tokens.ts';
import { waitFor } from '../../lib/wait.ts';
import {
  ProviderError,
  providerErrorToAppError,
  rateLimitWaitMs,
  type Provider,
  type ProviderCredentials,
  type UploadStatus,
} from '../../provider/index.ts';
import { requireReady, type TenantRow } from '../tenants/index.ts';
import { engineErrorToAppError } from './dte.errors.ts';
import { dteStore, type DteRow, type EnvioRow } from './dte.store.ts';
import { changeStatus, SENDABLE } from './dte.transitions.ts';
import { judgeEnvelope, type Verdicts } from './dte.verdicts.ts';
import { toEnvio } from './dte.views.ts';
import type { SignerCache } from '../credentials/index.ts';

/**
 * Sending (docs/dte.md, "Sending"): `send` moves the DTEs to `sending` and queues one upload job per
 * envelope in the same transaction; the upload job builds the EnvioDTE/EnvioBOLETA from the
 * stored signed bytes (spliced verbatim), signs it and uploads it; the poll job asks the provider
 * until the SII's verdict is final. Every state change goes through changeStatus (history +
 * `dte.status.changed`, in the same transaction). Jobs are durable and idempotent: a job that
 * finds its envío already past its step does nothing.
 */
export const UPLOAD_QUEUE = 'dte.upload';
export const POLL_QUEUE = 'dte.poll';
const UPLOAD_ATTEMPTS = 6;

/** Poll backoff: `initialMs` (DTE_POLL_INITIAL, 3 s), then twice as long each time, up to 5 minutes. */
export const pollDelayMs = (polls: number, initialMs = 3_000): number => Math.min(initialMs * 2 ** Math.min(polls, 16), 300_000);

export interface SendDeps {
  db: Db;
  clock: Clock;
  provider: Pick<Provider, 'upload' | 'uploadStatus' | 'documentStatus'>;
  signers: Pick<SignerCache, 'get'>;
  credentials: { getProviderCredentials(accountId: string, tenantId: string): Promise<Required<ProviderCredentials>> };
  /** The background jobs' way to the tenant (a request's tenant arrives resolved). */
  getTenant: (accountId: string, tenantId: string) => Promise<TenantRow>;
  sendWaitMs: number;
  /** First status question after an upload (docs/dte.md, "Sending"). */
  pollInitialMs?: number;
  sleep?: (ms: number) => Promise<void>;
  log?: { warn: (obj: object, msg: string) => void };
  /**
   * Called in the transaction that records a document's acceptance (accepted or accepted with
   * objections), so what it writes commits with it (the outbox): the exchange module's delivery
   * to the receptor (docs/exchange.md). A port, not an import: dte knows nothing of e-mail.
   */
  onAccepted?: (tx: Sql, doc: AcceptedDte) => Promise<void>;
  /** The audit log's recorder (docs/audit.md): each send is recorded in its transaction. */
  audit?: AuditRecorder | undefined;
}

/** What `onAccepted` is told about the accepted document. */
export interface AcceptedDte {
  accountId: string;
  tenantId: string;
  dteId: string;
  tipoDte: number;
  receptor: { correo?: string | null | undefined };
}

export function createSendService(deps: SendDeps) {
  const { db, clock } = deps;

  const failEnvio = async (envio: EnvioRow, e: AppError, fence?: JobLease['fence']) => {
    const now = clock.now();
    await db.transaction(async (tx) => {
      await fence?.(tx);
      const cur = await dteStore.getEnvioForUpdate(tx, envio.account_id, envio.id);
      if (!cur || cur.status !== 'pending') return;
      await dteStore.updateEnvio(tx, {
        id: envio.id,
        accountId: envio.account_id,
        status: 'failed',
        estado: null,
        glosa: e.message,
        errorCode: e.code,
        now,
      });
      for (const r of await dteStore.rowsOf(tx, envio.account_id, envio.dte_ids, true)) {
        if (r.status === 'sending')
          await changeStatus(tx, r, 'send_failed', { trackId: null, estado: null, glosa: `${e.code}: ${e.message}` }, now);
      }
    });
  };

  /** Each still-undecided document's verdict (dte.verdicts.ts), asking the provider only where the counts leave doubt. */
  const outcomes = (st: UploadStatus, rows: DteRow[], creds: Required<ProviderCredentials>, tenant: TenantRow) =>
    judgeEnvelope(
      st,
      rows,
      (r) =>
        deps.provider.documentStatus(creds, {
          rutEmpresa: toSiiRut(tenant.rut_empresa),
          tipoDte: r.tipo_dte,
          folio: Number(r.folio),
          rutReceptor: r.receptor.rut,
          fechaEmision: r.fecha_emision,
          montoTotal: Number(r.monto_total),
          ambiente: tenant.ambiente,
        }),
      () =>
        dteStore.sentBefore(
          db,
          tenant.account_id,
          rows.map((r) => r.id),
        ),
    );

  return {
    /** POST …/dte/send: 202 with one envío per envelope kind. `tenant`: resolved by the caller (the tenant-scope plugin). */
    async send(tenant: TenantRow, dteIds: string[], actor?: AuditActor) {
      const { account_id: accountId, id: tenantId } = tenant;
      const seen = new Map<string, number>();
      dteIds.forEach((id, i) => {
        if (seen.has(id))
          throw errors.invalid('duplicate_dte_id', `dteIds[${i}] repeats '${id}' (already at dteIds[${seen.get(id)}]).`, {
            param: `dteIds[${i}]`,
          });
        seen.set(id, i);
      });
      dteIds.forEach((id, i) => {
        if (!UUID_RE.test(id)) throw errors.notFound('dte', id, `dteIds[${i}]`);
      });
      requireReady(tenant);
      const now = clock.now();
      const envioIds = await db.transaction(async (tx) => {
        const rows = new Map((await dteStore.lockForSend(tx, accountId, tenantId, dteIds)).map((r) => [r.id, r]));
        dteIds.forEach((id, i) => {
          if (!rows.has(id)) throw errors.notFound('dte', id, `dteIds[${i}]`);
        });
        dteIds.forEach((id, i) => {
          const r = rows.get(id)!;
          if (!SENDABLE.includes(r.status))
            throw errors.conflict('dte_already_sent', `DTE '${id}' is ${r.status}: only created or send_failed DTEs can be sent.`, {
              param: `dteIds[${i}]`,
              details: { dteId: id, status: r.status },
            });
        });
        const groups = new Map<'EnvioDTE' | 'EnvioBOLETA', string[]>();
        for (const id of dteIds) {
          const kind = envelopeKindFor(rows.get(id)!.tipo_dte);
          groups.set(kind, [...(groups.get(kind) ?? []), id]);
        }
        const ids: string[] = [];
        for (const [kind, given] of groups) {
          const members = referencedFirst(
            given.map((id) => {
              const r = rows.get(id)!;
              return { id, tipoDte: r.tipo_dte, folio: Number(r.folio), referencias: r.referencias };
            }),
          ).map((d) => d.id);
          const envioId = newId();
          ids.push(envioId);
          await dteStore.insertEnvio(tx, { id: envioId, accountId, tenantId, tipoEnvio: kind, dteIds: members, now });
          for (const id of members)
            await changeStatus(tx, rows.get(id)!, 'sending', { trackId: null, estado: null, glosa: null }, now, envioId);
          await enqueue(
            tx,
            UPLOAD_QUEUE,
            { envioId, accountId },
            { singletonKey: `${UPLOAD_QUEUE}:${envioId}`, maxAttempts: UPLOAD_ATTEMPTS },
          );
          await deps.audit?.recordIn(tx, actor, {
            accountId,
            action: 'dte.sent',
            target: { type: 'envio', id: envioId },
            details: { tenantId, tipoEnvio: kind, dteIds: members },
          });
        }
        return ids;
      });
      // Most uploads take a moment: wait briefly so the answer can carry the trackId.
      const { value: envios } = await waitFor(
        () => dteStore.envios(db, accountId, envioIds),
        (rows) => rows.every((e) => e.status !== 'pending'),
        { timeoutMs: deps.sendWaitMs, sleep: deps.sleep },
      );
      const order = new Map(envioIds.map((id, i) => [id, i]));
      return { envios: envios.sort((a, b) => order.get(a.id)! - order.get(b.id)!).map(toEnvio) };
    },

    /**
     * The upload job: build and sign the envelope, upload it, record the trackId. What it records is
     * fenced by the job's lease: a run whose lease another worker took over stops before uploading
     * and never commits (the other run's upload and trackId stand).
     */
    async runUpload(payload: Record<string, unknown>, job: JobRun): Promise<JobResult> {
      const accountId = String(payload.accountId);
      const envio = await dteStore.getEnvio(db, accountId, String(payload.envioId));
      if (!envio || envio.status !== 'pending') return;
      const lastAttempt = job.attempts >= job.max_attempts;
      try {
        const tenant = await deps.getTenant(accountId, envio.tenant_id);
        const creds = await deps.credentials.getProviderCredentials(accountId, envio.tenant_id);
        // An earlier attempt's envelope is sent again byte for byte: if that attempt reached the SII
        // and only its answer was lost, the SII recognises the same file (DTEUpload STATUS 99, the
        // earlier track id: docs/sii-direct.md) instead of receiving the documents twice.
        let envelope = await dteStore.getEnvelope(db, accountId, envio.tenant_id, envio.id);
        if (!envelope) {
          const { signer } = await deps.signers.get(accountId, envio.tenant_id);
          const xmls = await dteStore.xmlsOf(db, accountId, envio.dte_ids);
          const xml = buildEnvelope({
            dtes: envio.dte_ids.map((id) => xmls.get(id)!),
            rutEmisor: tenant.rut_empresa,
            fechaResolucion: tenant.fecha_resolucion,
            numeroResolucion: tenant.numero_resolucion,
            signer,
            now: clock.now(),
          }).xml;
          await fenced(db, job.fence, (sql) => dteStore.saveEnvelope(sql, accountId, envio.id, xml, clock.now()));
          envelope = xml;
        }
        job.signal?.throwIfAborted();
        const up = await deps.provider.upload(creds, {
          rutEmpresa: toSiiRut(tenant.rut_empresa),
          envelope,
          tipo: envio.tipo_envio === 'EnvioBOLETA' ? 'boleta' : 'dte',
          ambiente: tenant.ambiente,
        });
        const now = clock.now();
        await db.transaction(async (tx) => {
          await job.fence?.(tx);
          const cur = await dteStore.getEnvioForUpdate(tx, accountId, envio.id);
          if (!cur || cur.status !== 'pending') return;
          await dteStore.updateEnvio(tx, {
            id: envio.id,
            accountId,
            status: 'sent',
            trackId: up.trackId,
            estado: up.estado,
            glosa: up.glosa,
            uploadResponse: up.raw ?? null,
            now,
          });
          for (const r of await dteStore.rowsOf(tx, accountId, envio.dte_ids, true)) {
            if (r.status === 'sending') await changeStatus(tx, r, 'sent', { trackId: up.trackId, estado: up.estado, glosa: up.glosa }, now);
          }
          await enqueue(
            tx,
            POLL_QUEUE,
            { envioId: envio.id, accountId },
            { delayMs: pollDelayMs(0, deps.pollInitialMs), singletonKey: `${POLL_QUEUE}:${envio.id}` },
          );
        });
      } catch (e) {
        if (e instanceof LeaseLostError) throw e; // another run holds the job now: record nothing
        // The provider's rate limit is a wait, never a failure: the upload is made again after it.
        const waitMs = rateLimitWaitMs(e);
        if (waitMs !== undefined) return { rescheduleInMs: waitMs };
        // Transient provider trouble (and unexpected errors) are retried by the queue; a refusal,
        // or the last attempt, fails the envío and its DTEs become send_failed (they can be sent again).
        const final = (e instanceof ProviderError && !e.transient) || e instanceof AppError || isDteEngineError(e);
        if (!final && !lastAttempt) throw e;
        const err =
          e instanceof ProviderError
            ? providerErrorToAppError(e)
            : e instanceof AppError
              ? e
              : isDteEngineError(e)
                ? (engineErrorToAppError(e) as AppError)
                : new AppError('unavailable', 'upload_failed', 'The upload failed repeatedly; send the DTEs again.');
        deps.log?.warn({ envioId: envio.id, code: err.code }, 'upload failed');
        await failEnvio(envio, err, job.fence);
      }
    },

    /** The poll job: until the SII's verdict is final; then each DTE's outcome. */
    async runPoll(payload: Record<string, unknown>, job: Partial<JobLease> = {}): Promise<JobResult> {
      const accountId = String(payload.accountId);
      const envio = await dteStore.getEnvio(db, accountId, String(payload.envioId));
      if (!envio || envio.status !== 'sent' || !envio.track_id) return;
      const later = { rescheduleInMs: pollDelayMs(envio.polls + 1, deps.pollInitialMs) };
      let st: UploadStatus;
      let tenant: TenantRow;
      let creds: Required<ProviderCredentials>;
      let found: Verdicts;
      let rows: DteRow[];
      try {
        tenant = await deps.getTenant(accountId, envio.tenant_id);
        creds = await deps.credentials.getProviderCredentials(accountId, envio.tenant_id);
        st = await deps.provider.uploadStatus(creds, {
          rutEmpresa: toSiiRut(tenant.rut_empresa),
          trackId: envio.track_id,
          tipo: envio.tipo_envio === 'EnvioBOLETA' ? 'boleta' : 'dte',
          ambiente: tenant.ambiente,
        });
        if (!st.final) {
          await fenced(db, job.fence, (sql) =>
            dteStore.updateEnvio(sql, {
              id: envio.id,
              accountId,
              status: 'sent',
              estado: st.estado,
              glosa: st.glosa,
              pollsIncrement: 1,
              now: clock.now(),
            }),
          );
          return later;
        }
        rows = await dteStore.rowsOf(db, accountId, envio.dte_ids);
        found = await outcomes(st, rows, creds, tenant);
      } catch (e) {
        // The provider or the tenant's credentials are not usable right now: ask again later (a
        // rate limit says when).
        if (e instanceof ProviderError || e instanceof AppError) {
          const code = e instanceof ProviderError ? providerErrorToAppError(e).code : e.code;
          await fenced(db, job.fence, (sql) =>
            dteStore.updateEnvio(sql, {
              id: envio.id,
              accountId,
              status: 'sent',
              estado: envio.sii_estado,
              glosa: envio.sii_glosa,
              errorCode: code,
              pollsIncrement: 1,
              now: clock.now(),
            }),
          );
          const waitMs = rateLimitWaitMs(e);
          return waitMs !== undefined ? { rescheduleInMs: waitMs } : later;
        }
        throw e;
      }
      const { undecided } = found;
      const now = clock.now();
      await db.transaction(async (tx) => {
        await job.fence?.(tx);
        const cur = await dteStore.getEnvioForUpdate(tx, accountId, envio.id);
        if (!cur || cur.status !== 'sent') return;
        await dteStore.updateEnvio(tx, {
          id: envio.id,
          accountId,
          status: undecided === 0 ? 'processed' : 'sent',
          estado: st.estado,
          glosa: undecided === 0 ? st.glosa : `${st.glosa}; ${undecided} documento(s) por confirmar con el SII`,
          statusResponse: st.raw ?? null,
          pollsIncrement: 1,
          now,
        });
        for (const r of await dteStore.rowsOf(tx, accountId, envio.dte_ids, true)) {
          const o = found.decided.get(r.id);
          if (!o || r.status !== 'sent') continue;
          await changeStatus(tx, r, o.status, { trackId: envio.track_id, estado: o.estado, glosa: o.glosa }, now);
          if (o.status === 'accepted' || o.status === 'accepted_with_objections')
            await deps.onAccepted?.(tx, { accountId, tenantId: r.tenant_id, dteId: r.id, tipoDte: r.tipo_dte, receptor: r.receptor });
        }
      });
      if (undecided > 0) return found.retryInMs !== undefined ? { rescheduleInMs: found.retryInMs } : later;
    },
  };
}

export type SendService = ReturnType<typeof createSendService>;
