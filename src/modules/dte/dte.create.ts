import type { Db, Sql } from '../../db/types.ts';
import { assertSignerValidAt, isDteEngineError, isSupportedTipoDte, issueDteAsync, signAsync, type PreparedDte } from '../../dte/index.ts';
import { AppError, errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { createGroupCommit } from '../../lib/group-commit.ts';
import { createTurnBatch } from '../../lib/turn-batch.ts';
import { newId } from '../../lib/tokens.ts';
import type { FoliosService } from '../folios/index.ts';
import { requireReady, type TenantRow } from '../tenants/index.ts';
import { engineErrorToAppError } from './dte.errors.ts';
import { prepareCreate, type CreateDte } from './dte.input.ts';
import { dteStore, type DteRow, type NewDte } from './dte.store.ts';
import { toDte, type Dte } from './dte.views.ts';
import type { SignerCache } from '../credentials/index.ts';

/**
 * Issuing one DTE (docs/design.md §7, docs/dte.md "Creating a DTE"): prepare (check the request,
 * normalise, totals: bad input never costs a folio) → reserve a folio → issue (stamp and sign, no
 * transaction open) → store: one statement that marks the folio used and inserts the row built
 * from the prepared document and the signed XML. A folio whose issue failed is released (voided: a
 * gap, never handed out again); so is one whose reservation lapsed before the insert
 * (docs/folios.md, "How folios are handed out").
 *
 * Group commit: the store statements of concurrent creates in this process go to the database
 * together (src/lib/group-commit.ts), one statement and one commit for the lot, so a busy service
 * makes one round trip per batch instead of four per document (BEGIN, mark used, insert, COMMIT).
 * Each document is still stored with its own folio or not at all; a document that fails alone
 * gets its error without failing the others (docs/performance.md, "Creating documents").
 */
export interface CreateDeps {
  db: Db;
  clock: Clock;
  folios: Pick<FoliosService, 'reserve' | 'markUsedSql' | 'release'>;
  signers: Pick<SignerCache, 'get'>;
}

interface StoreRequest {
  doc: NewDte;
  bindResult: ((tx: Sql, dteId: string) => Promise<void>) | undefined;
}

export function createDteCreate(deps: CreateDeps) {
  const { db, clock } = deps;

  /**
   * Stores a batch: one statement, in autocommit unless a member binds an Idempotency-Key, which
   * must commit with its DTE (then one transaction: the statement and the bindings). A member whose
   * reservation lapsed is answered undefined and binds nothing.
   */
  const storeBatch = async (batch: StoreRequest[]): Promise<(DteRow | undefined)[]> => {
    const write = async (sql: Sql) => {
      const rows = await dteStore.insertIssued(
        sql,
        batch.map((b) => b.doc),
        deps.folios.markUsedSql,
      );
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const b of batch) if (b.bindResult && byId.has(b.doc.id)) await b.bindResult(sql, b.doc.id);
      return batch.map((b) => byId.get(b.doc.id));
    };
    return batch.some((b) => b.bindResult) ? db.transaction(write) : write(db);
  };
  // A batch gathers the stores of the event loop's turn (on PGlite nothing else would ever wait:
  // its statements run in this thread). One at a time on PGlite (one connection); on PostgreSQL a
  // second fills while one commits.
  const stores = createGroupCommit<StoreRequest, DteRow | undefined>({
    run: storeBatch,
    maxBatch: 32,
    maxInFlight: db.kind === 'postgres' ? 2 : 1,
    gatherTurn: true,
  });

  // Each document's RSA signature is computed in libuv's thread pool, a turn's signatures together
  // and answered together, so the creates of a turn still reach the store together (turn-batch.ts).
  const sign = createTurnBatch(signAsync);

  /**
   * `tenant` is the one the caller resolved within its account (the tenant-scope plugin).
   * `bindResult`, when given, runs in the transaction that stores the DTE: the API binds the
   * request's Idempotency-Key to the new DTE there, so a retry after a lost response returns this
   * DTE instead of issuing another (src/http/plugins/idempotency.ts).
   */
  return async function create(
    tenant: TenantRow,
    body: CreateDte,
    opts: { bindResult?: ((tx: Sql, dteId: string) => Promise<void>) | undefined } = {},
  ): Promise<Dte> {
    const { account_id: accountId, id: tenantId } = tenant;
    // A tenant without activity codes cannot issue the types that carry them (facturas): the
    // 409 tenant_acteco_missing says how to set them (docs/dte.md; the service does not look them up).
    const { prepared, tenantProblem, unidadSii } = prepareCreate(body, tenant, clock.now());
    requireReady(tenant);
    if (tenantProblem) throw tenantProblem;
    await checkCancelledAmounts(db, tenant, prepared);
    const { signer } = await deps.signers.get(accountId, tenantId);
    const now = clock.now();
    try {
      assertSignerValidAt(signer, now);
    } catch (e) {
      throw errors.conflict(isDteEngineError(e) ? e.code : 'certificate_expired', `${(e as Error).message}.`, { param: 'certificate' });
    }

    const reservation = await deps.folios.reserve(accountId, tenantId, prepared.tipoDte, { datedOn: prepared.fechaEmision });
    let xml: Buffer;
    try {
      ({ xml } = await issueDteAsync(prepared, { folio: reservation.folio, caf: reservation.caf, signer, now }, sign));
    } catch (e) {
      await deps.folios.release(accountId, tenantId, prepared.tipoDte, reservation.folio);
      throw engineErrorToAppError(e);
    }
    const { stored: doc, totals } = prepared;
    const id = newId();
    const release = () => deps.folios.release(accountId, tenantId, prepared.tipoDte, reservation.folio).catch(() => {});
    let stored: DteRow | undefined;
    try {
      stored = await stores.submit({
        doc: {
          id,
          accountId,
          tenantId,
          tipoDte: prepared.tipoDte,
          folio: reservation.folio,
          fechaEmision: prepared.fechaEmision,
          receptor: doc.receptor,
          detalle: doc.detalle,
          referencias: doc.referencias,
          formaPago: doc.formaPago,
          documento: { extras: doc.extras, totales: doc.totales, unidadSii },
          montoNeto: totals.montoNeto,
          montoExento: totals.montoExento,
          iva: totals.iva,
          montoTotal: totals.montoTotal,
          xml,
          now,
        },
        bindResult: opts.bindResult,
      });
    } catch (e) {
      // The store's commit may have happened with its answer lost (a dropped connection): then the
      // DTE exists under this id, and it is the answer, never a reason to issue a second one.
      const existing = await dteStore.get(db, accountId, id, tenantId).catch(() => undefined);
      if (existing) return toDte(existing);
      // Not stored (a refused binding, such as a form submitted twice, or a failed statement): the
      // folio is voided now rather than by the sweep. A no-op had it been stored after all (the
      // void only touches a folio still reserved).
      await release();
      throw e;
    }
    // Nothing stored under this run: either the reservation lapsed (the sweep voided the folio), or
    // a batch with this document committed but its answer was lost and the run alone found the
    // folio used — then, again, the DTE exists and is the answer.
    stored ??= await dteStore.get(db, accountId, id, tenantId);
    if (!stored)
      throw new AppError(
        'unavailable',
        'folio_reservation_expired',
        'Creating this DTE took longer than the folio reservation lasts; that folio was voided. Retry the request.',
        { retryAfterSeconds: 1 },
      );
    return toDte(stored);
  };
}

/**
 * A note that cancels a document (codRef 1) carries that document's amounts (docs/decisions.md §11; the
 * SII answers REF-2-780 "Anulación presenta diff. de monto con doc. referenciado" otherwise). When
 * the cancelled document is one of this tenant's own, its stored total is the reference; a
 * document issued elsewhere (another issuer, rutOtro, or not in this service) cannot be checked here.
 */
async function checkCancelledAmounts(db: Db, tenant: TenantRow, prepared: PreparedDte): Promise<void> {
  const refs = prepared.stored.referencias;
  for (const [i, r] of refs.entries()) {
    const tipo = Number(r.tipoDocRef);
    const folio = Number(r.folioRef);
    if (r.codRef !== 1 || r.rutOtro || !isSupportedTipoDte(tipo) || !Number.isSafeInteger(folio)) continue;
    const total = await dteStore.totalOf(db, tenant.account_id, tenant.id, tipo, folio);
    if (total === undefined || Number(total) === prepared.totals.montoTotal) continue;
    throw errors.unprocessable(
      'reference_amount_mismatch',
      `referencias[${i}] cancels (codRef 1) the tenant's document ${tipo} Nº ${folio}, whose total is ${Number(total)}; a cancelling note carries the same amounts (this one totals ${prepared.totals.montoTotal}). To correct an amount use codRef 3.`,
      { param: `referencias[${i}].codRef`, details: { expected: Number(total), actual: prepared.totals.montoTotal } },
    );
  }
}
