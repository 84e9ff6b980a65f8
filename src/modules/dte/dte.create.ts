import type { Db, Sql } from '../../db/types.ts';
import { assertSignerValidAt, isDteEngineError, issueDte, strategyFor } from '../../dte/index.ts';
import { AppError, errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/tokens.ts';
import { parseTipoDte } from '../../lib/validate.ts';
import { isProviderError } from '../../provider/errors.ts';
import type { Provider, ProviderCredentials } from '../../provider/port.ts';
import type { FoliosService } from '../folios/index.ts';
import { requireReady, type TenantRow, type TenantsService } from '../tenants/index.ts';
import { engineErrorToAppError } from './dte.errors.ts';
import { prepareCreate, type CreateDte } from './dte.input.ts';
import { dteStore } from './dte.store.ts';
import { toDte, type Dte } from './dte.views.ts';
import type { SignerCache } from './signer-cache.ts';

/**
 * Issuing one DTE (docs/design.md §7, docs/dte.md "Creating a DTE"): prepare (check the request,
 * normalise, totals: bad input never costs a folio) → reserve a folio → issue (stamp and sign, no
 * transaction open) → one transaction that marks the folio used and inserts the row built from
 * the prepared document and the signed XML. A folio whose issue failed is released (voided: a
 * gap, never handed out again); so is one whose reservation lapsed before the insert
 * (docs/folios.md, "How folios are handed out").
 */
export interface CreateDeps {
  db: Db;
  clock: Clock;
  folios: Pick<FoliosService, 'reserve' | 'markUsed' | 'release'>;
  signers: Pick<SignerCache, 'get'>;
  tenants: Pick<TenantsService, 'setActeco'>;
  /** For the one-time taxpayer lookup of a tenant without activity codes. */
  provider: Pick<Provider, 'taxpayerLookup'>;
  credentials: { getProviderCredentials(accountId: string, tenantId: string): Promise<Required<ProviderCredentials>> };
}

export function createDteCreate(deps: CreateDeps) {
  const { db, clock } = deps;

  /**
   * Facturas carry the issuer's activity codes (Acteco). A tenant created without them gets them
   * once from the provider's taxpayer lookup (docs/design.md §4); if that fails, the 409 says how
   * to set them.
   */
  const withActeco = async (tenant: TenantRow, needsActeco: boolean): Promise<TenantRow> => {
    if (!needsActeco || tenant.acteco.length > 0) return tenant;
    try {
      const creds = await deps.credentials.getProviderCredentials(tenant.account_id, tenant.id);
      const found = await deps.provider.taxpayerLookup(creds, tenant.rut_empresa);
      const acteco = found.acteco.filter((a) => a >= 100000 && a <= 999999).slice(0, 4);
      if (acteco.length === 0) return tenant;
      return (await deps.tenants.setActeco(tenant.account_id, tenant.id, acteco)) ?? tenant;
    } catch (e) {
      if (isProviderError(e) || e instanceof AppError) return tenant;
      throw e;
    }
  };

  /**
   * `resolved` is the tenant the caller resolved within its account (the tenant-scope plugin).
   * `bindResult`, when given, runs in the transaction that stores the DTE: the API binds the
   * request's Idempotency-Key to the new DTE there, so a retry after a lost response returns this
   * DTE instead of issuing another (src/http/plugins/idempotency.ts).
   */
  return async function create(
    resolved: TenantRow,
    body: CreateDte,
    opts: { bindResult?: ((tx: Sql, dteId: string) => Promise<void>) | undefined } = {},
  ): Promise<Dte> {
    const { account_id: accountId, id: tenantId } = resolved;
    const tipoDte = parseTipoDte(body.tipoDte);
    const tenant = resolved.status === 'active' ? await withActeco(resolved, strategyFor(tipoDte).needsActeco) : resolved;
    const { prepared, tenantProblem } = prepareCreate(body, tenant, clock.now());
    requireReady(tenant);
    if (tenantProblem) throw tenantProblem;
    const { signer } = await deps.signers.get(accountId, tenantId);
    const now = clock.now();
    try {
      assertSignerValidAt(signer, now);
    } catch (e) {
      throw errors.conflict(isDteEngineError(e) ? e.code : 'certificate_expired', `${(e as Error).message}.`, { param: 'certificate' });
    }

    const reservation = await deps.folios.reserve(accountId, tenantId, prepared.tipoDte);
    let xml: Buffer;
    try {
      ({ xml } = issueDte(prepared, { folio: reservation.folio, caf: reservation.caf, signer, now }));
    } catch (e) {
      await deps.folios.release(accountId, tenantId, prepared.tipoDte, reservation.folio);
      throw engineErrorToAppError(e);
    }
    const id = newId();
    const { stored: doc, totals } = prepared;
    const stored = await db.transaction(async (tx) => {
      if (!(await deps.folios.markUsed(tx, { accountId, tenantId, tipoDte: prepared.tipoDte, folio: reservation.folio, dteId: id })))
        return undefined;
      const row = await dteStore.insert(tx, {
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
        montoNeto: totals.montoNeto,
        montoExento: totals.montoExento,
        iva: totals.iva,
        montoTotal: totals.montoTotal,
        xml,
        now,
      });
      await opts.bindResult?.(tx, id);
      return row;
    });
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
