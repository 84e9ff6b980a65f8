import type { Db, Sql } from '../../db/types.ts';
import { parseCaf, parseCafBlock, siiDate, toSiiRut, verifyCaf, type Caf, type SiiKeys } from '../../dte/index.ts';
import { AppError, errors, isErrorKind } from '../../errors.ts';
import { emitEvent } from '../../events/outbox.ts';
import { enqueue, type JobRow } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId, UUID_RE } from '../../lib/tokens.ts';
import { parseTipoDte } from '../../lib/validate.ts';
import { providerErrorToAppError } from '../../provider/errors.ts';
import { ProviderError, type Provider, type ProviderCredentials } from '../../provider/port.ts';
import type { DataCipher } from '../../secrets/data-cipher.ts';
import { requireReady, type TenantRow } from '../tenants/index.ts';
import { cafKeyAad } from './folios.encrypted.ts';
import { foliosStore, type FolioRequestRow, type FolioRangeRow } from './folios.store.ts';

/**
 * Folios (decisions §6): CAF requests as durable jobs, the inventory, the folio.low alarm, and
 * the allocation the DTE module issues with.
 *
 * Allocation invariant — a folio is handed out at most once, ever, across processes and crashes:
 *  1. `reserve` takes the next folio in one statement (atomic on its own): `next_folio + 1` under
 *     the range's row lock, plus a `folio_allocations` row whose primary key is the folio itself.
 *     Both commit together, so once a folio is out, no later statement can get it again (the
 *     counter only moves forward, and the key refuses a repeat even if the counter were rewound).
 *     The row lock lasts one statement, so concurrent creates wait for each other only that long.
 *  2. The DTE is built and signed outside any transaction (CPU work holds no lock; on PGlite a
 *     transaction holds the only connection).
 *  3. `markUsed` turns the reservation into `used` in the same transaction that inserts the DTE row
 *     with its signed XML, so a DTE row never exists without its XML and a used folio always has
 *     its DTE.
 * If the process dies between 1 and 3, the folio stays `reserved`; after
 * FOLIO_RESERVATION_TIMEOUT the sweep voids it (a gap, never a reuse). A create that fails after 1
 * (it cannot, for input errors: those are checked before) voids its folio at once.
 */
export const FOLIO_REQUEST_QUEUE = 'folios.request';
export const DEFAULT_LOW_THRESHOLD = 10;
const MAX_REQUEST_ATTEMPTS = 5;

export interface FolioCredentialsSource {
  getProviderCredentials(accountId: string, tenantId: string): Promise<Required<ProviderCredentials>>;
}

export interface FoliosDeps {
  db: Db;
  clock: Clock;
  provider: Pick<Provider, 'requestCaf'>;
  credentials: FolioCredentialsSource;
  dataCipher: DataCipher;
  /** Keys a CAF's FRMA must verify with (src/provider/sii-keys.ts). */
  cafKeys: SiiKeys;
  getTenant: (accountId: string, tenantId: string) => Promise<TenantRow>;
  requestWaitMs: number;
  reservationTimeoutMs: number;
  sleep?: (ms: number) => Promise<void>;
  log?: { warn: (obj: object, msg: string) => void };
}

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

export interface InventoryItem {
  tipoDte: number;
  total: number;
  usados: number;
  disponibles: number;
  porcentaje: number;
  siguienteFolio: number | null;
  lowThreshold: number;
  rangos: { desde: number; hasta: number; fechaAutorizacion: string; vencimiento: string | null; disponibles: number }[];
}

export interface Reservation {
  folio: number;
  rangeId: string;
  caf: Caf;
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

export function createFoliosService(deps: FoliosDeps) {
  const { db, clock } = deps;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const today = () => siiDate(clock.now());

  // Parsed CAFs (with their decrypted key) by range: decrypting and parsing per document would
  // dominate issuing. Bounded, and only in this process's memory.
  const cafCache = new Map<string, Caf>();
  const cafFor = (accountId: string, tenantId: string, rangeId: string, block: string, keyEnc: Buffer): Caf => {
    const hit = cafCache.get(rangeId);
    if (hit) return hit;
    const pem = deps.dataCipher.decryptString(keyEnc, cafKeyAad(accountId, tenantId, rangeId));
    const caf = parseCafBlock(block, pem);
    if (cafCache.size >= 256) cafCache.delete(cafCache.keys().next().value as string);
    cafCache.set(rangeId, caf);
    return caf;
  };

  /**
   * The folio.low alarm, in the caller's transaction. It fires when stock *falls* below the
   * threshold — on a folio handed out, or a threshold raised above the stock — once, then stays
   * quiet until a refill brings stock back to the threshold or above (re-armed). A refill that is
   * still below the threshold is not a fall, so it does not fire by itself.
   */
  const checkStock = async (tx: Sql, accountId: string, tenantId: string, tipoDte: number, now: Date, mayFire: boolean) => {
    const a = await foliosStore.evaluateAlarm(tx, { accountId, tenantId, tipoDte, today: siiDate(now), now, mayFire });
    if (a.fired) {
      await emitEvent(tx, {
        accountId,
        type: 'folio.low',
        data: { tenantId, tipoDte, disponibles: a.disponibles, lowThreshold: a.lowThreshold },
        now,
      });
    }
    return a.disponibles;
  };

  const failWith = async (accountId: string, requestId: string, e: AppError) => {
    await foliosStore.failRequest(db, accountId, requestId, { kind: e.kind, code: e.code, message: e.message }, clock.now());
  };

  const itemFor = (tipoDte: number, ranges: FolioRangeRow[], threshold: number): InventoryItem => {
    const rangos = ranges.map((g) => ({
      desde: g.desde,
      hasta: g.hasta,
      fechaAutorizacion: g.fecha_autorizacion,
      vencimiento: g.vencimiento,
      disponibles: g.hasta - g.next_folio + 1,
    }));
    const total = ranges.reduce((s, g) => s + (g.hasta - g.desde + 1), 0);
    const disponibles = rangos.reduce((s, g) => s + g.disponibles, 0);
    return {
      tipoDte,
      total,
      usados: total - disponibles,
      disponibles,
      porcentaje: total === 0 ? 0 : Math.round((disponibles / total) * 1000) / 10,
      siguienteFolio: ranges[0]?.next_folio ?? null,
      lowThreshold: threshold,
      rangos,
    };
  };

  const service = {
    /**
     * POST …/folios/request: records the request and its job in one transaction, then waits up to
     * FOLIO_REQUEST_WAIT for a worker to finish it: 201 with the range, 202 while still pending.
     */
    async request(
      accountId: string,
      tenantId: string,
      body: { tipoDte: number; cantidad: number },
    ): Promise<{ status: 201 | 202; body: FolioRequest }> {
      const tenant = await deps.getTenant(accountId, tenantId);
      const tipoDte = parseTipoDte(body.tipoDte);
      requireReady(tenant);
      const id = newId();
      const now = clock.now();
      await db.transaction(async (tx) => {
        await foliosStore.insertRequest(tx, { id, accountId, tenantId, tipoDte, cantidad: body.cantidad, now });
        await enqueue(
          tx,
          FOLIO_REQUEST_QUEUE,
          { requestId: id, accountId },
          { singletonKey: `folios.request:${id}`, maxAttempts: MAX_REQUEST_ATTEMPTS },
        );
      });
      const deadline = Date.now() + deps.requestWaitMs;
      let delay = 20;
      for (;;) {
        const row = (await foliosStore.getRequest(db, accountId, tenantId, id))!;
        if (row.status === 'failed') {
          throw new AppError(
            isErrorKind(row.error_kind) ? row.error_kind : 'bad_gateway',
            row.error_code ?? 'folio_request_failed',
            row.error_message ?? 'The folio request failed.',
            {
              details: { requestId: id },
            },
          );
        }
        if (row.status === 'completed') return { status: 201, body: toRequest(row) };
        const left = deadline - Date.now();
        if (left <= 0) return { status: 202, body: toRequest(row) };
        await sleep(Math.min(delay, left));
        delay = Math.min(delay * 2, 250);
      }
    },

    async getRequest(accountId: string, tenantId: string, requestId: string): Promise<FolioRequest> {
      await deps.getTenant(accountId, tenantId);
      const row = UUID_RE.test(requestId) ? await foliosStore.getRequest(db, accountId, tenantId, requestId) : undefined;
      if (!row) throw errors.notFound('folio_request', requestId);
      return toRequest(row);
    },

    /** The job: ask the provider for a CAF, check it, store it (key encrypted). Idempotent per request. */
    async runRequestJob(payload: Record<string, unknown>, job: Pick<JobRow, 'attempts' | 'max_attempts'>): Promise<void> {
      const accountId = String(payload.accountId);
      const requestId = String(payload.requestId);
      const req = await foliosStore.getRequest(db, accountId, null, requestId);
      if (!req || req.status !== 'pending') return;
      const lastAttempt = job.attempts >= job.max_attempts;
      let tenant: TenantRow;
      let creds: Required<ProviderCredentials>;
      try {
        tenant = await deps.getTenant(accountId, req.tenant_id);
        requireReady(tenant);
        creds = await deps.credentials.getProviderCredentials(accountId, req.tenant_id);
      } catch (e) {
        if (e instanceof AppError) return failWith(accountId, requestId, e);
        throw e;
      }
      let cafXml: Buffer;
      try {
        ({ cafXml } = await deps.provider.requestCaf(creds, {
          rutEmpresa: toSiiRut(tenant.rut_empresa),
          tipoDte: req.tipo_dte,
          cantidad: req.cantidad,
          ambiente: tenant.ambiente,
        }));
      } catch (e) {
        if (!(e instanceof ProviderError)) throw e;
        if (e.transient && !lastAttempt) throw e; // the queue retries with backoff
        return failWith(accountId, requestId, providerErrorToAppError(e));
      }
      let caf: Caf;
      try {
        caf = parseCaf(cafXml);
      } catch {
        return failWith(
          accountId,
          requestId,
          new AppError('bad_gateway', 'caf_invalid', 'The billing provider returned a file that is not a valid CAF.'),
        );
      }
      const check = verifyCaf(caf, deps.cafKeys);
      const problem =
        caf.rutEmisor !== toSiiRut(tenant.rut_empresa)
          ? `The CAF is for ${caf.rutEmisor}, not for the tenant ${toSiiRut(tenant.rut_empresa)}.`
          : caf.tipoDte !== req.tipo_dte
            ? `The CAF is for document type ${caf.tipoDte}, not ${req.tipo_dte}.`
            : !check.valid
              ? `The CAF does not verify: ${check.errors.map((x) => x.message).join('; ')}.${check.errors.some((x) => x.code === 'unknown_idk') ? ' (For an emulator started on its own, set EMULATOR_SII_PUBLIC_KEY to its sii-666.pub.pem.)' : ''}`
              : null;
      if (problem) return failWith(accountId, requestId, new AppError('bad_gateway', 'caf_untrusted', problem));
      const rangeId = newId();
      const privateKeyEnc = deps.dataCipher.encrypt(caf.privateKeyPem!, cafKeyAad(accountId, req.tenant_id, rangeId));
      const now = clock.now();
      await db.transaction(async (tx) => {
        // Only the first run to finish attaches its CAF (a lease that expired mid-call can run twice).
        if (!(await foliosStore.lockPendingRequest(tx, accountId, requestId))) return;
        await foliosStore.insertRange(tx, {
          id: rangeId,
          accountId,
          tenantId: req.tenant_id,
          tipoDte: caf.tipoDte,
          desde: caf.desde,
          hasta: caf.hasta,
          fechaAutorizacion: caf.fechaAutorizacion,
          vencimiento: caf.vencimiento,
          idk: caf.idk,
          cafBlock: caf.cafXml,
          privateKeyEnc,
          requestId,
          ambiente: tenant.ambiente,
          now,
        });
        await foliosStore.completeRequest(tx, accountId, requestId, rangeId, now);
        await foliosStore.ensureSettings(tx, accountId, req.tenant_id, caf.tipoDte, now);
        await checkStock(tx, accountId, req.tenant_id, caf.tipoDte, now, false);
      });
    },

    async inventory(accountId: string, tenantId: string): Promise<{ data: InventoryItem[] }> {
      await deps.getTenant(accountId, tenantId);
      const [ranges, settings] = await Promise.all([
        foliosStore.usableRanges(db, accountId, tenantId, today()),
        foliosStore.settings(db, accountId, tenantId),
      ]);
      const thresholds = new Map(settings.map((s) => [s.tipo_dte, s.low_threshold]));
      const tipos = [...new Set([...ranges.map((g) => g.tipo_dte), ...thresholds.keys()])].sort((a, b) => a - b);
      return {
        data: tipos.map((t) =>
          itemFor(
            t,
            ranges.filter((g) => g.tipo_dte === t),
            thresholds.get(t) ?? DEFAULT_LOW_THRESHOLD,
          ),
        ),
      };
    },

    /** PATCH …/folios/{tipoDte}: the threshold; the alarm is evaluated against current stock at once. */
    async setThreshold(accountId: string, tenantId: string, tipoParam: string, lowThreshold: number): Promise<InventoryItem> {
      const tipoDte = parseTipoDte(tipoParam);
      await deps.getTenant(accountId, tenantId);
      const now = clock.now();
      await db.transaction(async (tx) => {
        await foliosStore.setThreshold(tx, accountId, tenantId, tipoDte, lowThreshold, now);
        await checkStock(tx, accountId, tenantId, tipoDte, now, true);
      });
      const ranges = await foliosStore.usableRanges(db, accountId, tenantId, today(), tipoDte);
      return itemFor(tipoDte, ranges, lowThreshold);
    },

    /** Step 1 of the allocation invariant (see the top of this file). */
    async reserve(accountId: string, tenantId: string, tipoDte: number): Promise<Reservation> {
      const now = clock.now();
      const today = siiDate(now);
      let a: Awaited<ReturnType<typeof foliosStore.takeNext>>;
      for (let skipped = 0; ; skipped++) {
        if (skipped >= 1000) throw new Error('folio allocation: too many folios already handed out in a row');
        a = await foliosStore.takeNext(db, { accountId, tenantId, tipoDte, today, now });
        if (!a || a.reserved) break;
        // A folio handed out before (a rewound counter): skipped, never handed out again.
        deps.log?.warn({ tenantId, tipoDte, folio: a.folio }, 'folio already handed out before; skipped');
      }
      // The alarm changes state rarely; only then a second, transactional step (the conditional
      // update makes it fire once even when several allocations see the crossing together). If the
      // process dies in between, the next allocation still sees the crossing and fires.
      if (
        a &&
        a.lowArmed !== null &&
        a.lowThreshold !== null &&
        (a.lowArmed ? a.disponibles < a.lowThreshold : a.disponibles >= a.lowThreshold)
      ) {
        await db.transaction((tx) => checkStock(tx, accountId, tenantId, tipoDte, now, true));
      }
      if (!a)
        throw errors.conflict(
          'folios_exhausted',
          `No folios of type ${tipoDte} are left (or the remaining CAFs expired). Request more with POST /api/v1/tenants/${tenantId}/folios/request.`,
          { param: 'tipoDte' },
        );
      try {
        return { folio: a.folio, rangeId: a.rangeId, caf: cafFor(accountId, tenantId, a.rangeId, a.cafBlock, a.privateKeyEnc) };
      } catch (e) {
        await service.release(accountId, tenantId, tipoDte, a.folio);
        throw e;
      }
    },

    /** Step 3: in the DTE's transaction. False if the reservation was voided meanwhile. */
    markUsed: (tx: Sql, a: { accountId: string; tenantId: string; tipoDte: number; folio: number; dteId: string }) =>
      foliosStore.markUsed(tx, a),

    /** A create that failed after reserving: the folio is voided (a gap), never handed out again. */
    async release(accountId: string, tenantId: string, tipoDte: number, folio: number): Promise<void> {
      await foliosStore.voidAllocation(db, { accountId, tenantId, tipoDte, folio });
    },

    /** Periodic: void the reservations of creates that never finished. */
    async sweepReservations(): Promise<number> {
      return foliosStore.voidStale(db, new Date(clock.now().getTime() - deps.reservationTimeoutMs));
    },
  };
  return service;
}

export type FoliosService = ReturnType<typeof createFoliosService>;
