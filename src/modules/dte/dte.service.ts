import type { Db } from '../../db/types.ts';
import { assertSignerValidAt, buildDte, isDteEngineError, type DteInput } from '../../dte/index.ts';
import { AppError, errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { decodeIterator, toPage, type Page } from '../../lib/pagination.ts';
import { newId, UUID_RE } from '../../lib/tokens.ts';
import { isProviderError } from '../../provider/errors.ts';
import type { Provider, ProviderCredentials } from '../../provider/port.ts';
import type { FoliosService } from '../folios/index.ts';
import { parseTipoDte } from '../../lib/validate.ts';
import { requireReady, type TenantRow, type TenantsService } from '../tenants/index.ts';
import { checkCreate, engineErrorToAppError, type CreateDte } from './dte.input.ts';
import { dteStore, type DteRow, type EnvioRow, type HistoryRow } from './dte.store.ts';
import type { SignerCache } from './signer-cache.ts';

/**
 * Issuing (decisions §7): create = check → reserve a folio → build, stamp and sign (no
 * transaction open) → one transaction that inserts the DTE with its signed XML and marks the
 * folio used. See folios.service.ts for the allocation invariant this relies on.
 */
export interface Dte {
  id: string;
  tenantId: string;
  tipoDte: number;
  folio: number;
  status: DteRow['status'];
  fechaEmision: string;
  receptor: DteRow['receptor'];
  detalle: DteRow['detalle'];
  referencias: DteRow['referencias'];
  formaPago: number | null;
  montoNeto: number;
  montoExento: number;
  iva: number;
  montoTotal: number;
  trackId: string | null;
  sii: { estado: string | null; glosa: string | null };
  createdAt: string;
  updatedAt: string;
}

export const toDte = (r: DteRow): Dte => ({
  id: r.id,
  tenantId: r.tenant_id,
  tipoDte: r.tipo_dte,
  folio: Number(r.folio),
  status: r.status,
  fechaEmision: r.fecha_emision,
  receptor: r.receptor,
  detalle: r.detalle,
  referencias: r.referencias,
  formaPago: r.forma_pago,
  montoNeto: Number(r.monto_neto),
  montoExento: Number(r.monto_exento),
  iva: Number(r.iva),
  montoTotal: Number(r.monto_total),
  trackId: r.track_id,
  sii: { estado: r.sii_estado, glosa: r.sii_glosa },
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

export const toStatus = (r: DteRow) => ({
  id: r.id,
  tenantId: r.tenant_id,
  tipoDte: r.tipo_dte,
  folio: Number(r.folio),
  status: r.status,
  trackId: r.track_id,
  sii: { estado: r.sii_estado, glosa: r.sii_glosa },
  updatedAt: r.updated_at.toISOString(),
});

export const toEnvio = (e: EnvioRow) => ({
  id: e.id,
  trackId: e.track_id,
  tipoEnvio: e.tipo_envio,
  dteIds: e.dte_ids,
  status: e.status,
  sii: { estado: e.sii_estado, glosa: e.sii_glosa },
  createdAt: e.created_at.toISOString(),
  updatedAt: e.updated_at.toISOString(),
});

const toHistory = (h: HistoryRow) => ({
  status: h.status,
  previousStatus: h.previous_status,
  trackId: h.track_id,
  sii: { estado: h.sii_estado, glosa: h.sii_glosa },
  createdAt: h.created_at.toISOString(),
});

export interface DteDeps {
  db: Db;
  clock: Clock;
  folios: Pick<FoliosService, 'reserve' | 'markUsed' | 'release'>;
  signers: SignerCache;
  getTenant: (accountId: string, tenantId: string) => Promise<TenantRow>;
  tenants: Pick<TenantsService, 'setActeco'>;
  /** For the one-time taxpayer lookup of a tenant without activity codes. */
  provider: Pick<Provider, 'taxpayerLookup'>;
  credentials: { getProviderCredentials(accountId: string, tenantId: string): Promise<Required<ProviderCredentials>> };
}

const needsActeco = (tipoDte: number) => tipoDte !== 39 && tipoDte !== 41;

export function createDteService(deps: DteDeps) {
  const { db, clock } = deps;

  const getRow = async (accountId: string, id: string, tenantId?: string) => {
    const row = UUID_RE.test(id) ? await dteStore.get(db, accountId, id, tenantId) : undefined;
    if (!row) throw errors.notFound('dte', id);
    return row;
  };

  /**
   * Facturas carry the issuer's activity codes (Acteco). A tenant created without them gets them
   * once from the provider's taxpayer lookup (decisions §4); if that fails, the 409 says how to set them.
   */
  const withActeco = async (accountId: string, tenant: TenantRow, tipoDte: number): Promise<TenantRow> => {
    if (!needsActeco(tipoDte) || tenant.acteco.length > 0) return tenant;
    try {
      const creds = await deps.credentials.getProviderCredentials(accountId, tenant.id);
      const found = await deps.provider.taxpayerLookup(creds, tenant.rut_empresa);
      const acteco = found.acteco.filter((a) => a >= 100000 && a <= 999999).slice(0, 4);
      if (acteco.length === 0) return tenant;
      return (await deps.tenants.setActeco(accountId, tenant.id, acteco)) ?? tenant;
    } catch (e) {
      if (isProviderError(e) || e instanceof AppError) return tenant;
      throw e;
    }
  };

  return {
    async create(accountId: string, tenantId: string, body: CreateDte): Promise<Dte> {
      let tenant = await deps.getTenant(accountId, tenantId);
      const tipoDte = parseTipoDte(body.tipoDte);
      if (tenant.status === 'active') tenant = await withActeco(accountId, tenant, tipoDte);
      const checked = checkCreate(body, tenant, clock.now());
      requireReady(tenant);
      if (checked.tenantProblem) throw checked.tenantProblem;
      const { signer } = await deps.signers.get(accountId, tenantId);
      const now = clock.now();
      try {
        assertSignerValidAt(signer, now);
      } catch (e) {
        throw errors.conflict(isDteEngineError(e) ? e.code : 'certificate_expired', `${(e as Error).message}.`, { param: 'certificate' });
      }
      const input = checked.input;

      const reservation = await deps.folios.reserve(accountId, tenantId, checked.tipoDte);
      let xml: Buffer;
      let totals;
      try {
        const built = buildDte({ ...input, folio: reservation.folio } as DteInput, { caf: reservation.caf, signer, now });
        xml = built.xml;
        totals = built.totals;
      } catch (e) {
        await deps.folios.release(accountId, tenantId, checked.tipoDte, reservation.folio);
        throw engineErrorToAppError(e);
      }
      const id = newId();
      const stored = await db.transaction(async (tx) => {
        if (!(await deps.folios.markUsed(tx, { accountId, tenantId, tipoDte: checked.tipoDte, folio: reservation.folio, dteId: id })))
          return undefined;
        return dteStore.insert(tx, {
          id,
          accountId,
          tenantId,
          tipoDte: checked.tipoDte,
          folio: reservation.folio,
          fechaEmision: checked.fechaEmision,
          receptor: checked.receptor,
          detalle: checked.detalle,
          referencias: checked.referencias,
          formaPago: input.formaPago ?? null,
          montoNeto: totals.montoNeto,
          montoExento: totals.montoExento,
          iva: totals.iva,
          montoTotal: totals.montoTotal,
          xml,
          now,
        });
      });
      if (!stored)
        throw new AppError(
          'unavailable',
          'folio_reservation_expired',
          'Creating this DTE took longer than the folio reservation lasts; that folio was voided. Retry the request.',
          { retryAfterSeconds: 1 },
        );
      return toDte(stored);
    },

    async get(accountId: string, tenantId: string, id: string): Promise<Dte> {
      await deps.getTenant(accountId, tenantId);
      return toDte(await getRow(accountId, id, tenantId));
    },

    async list(
      accountId: string,
      tenantId: string,
      q: { limit: number; iterator?: string | undefined; status?: string | undefined; tipoDte?: number | undefined },
    ): Promise<Page<Dte>> {
      await deps.getTenant(accountId, tenantId);
      const rows = await dteStore.list(db, accountId, tenantId, {
        limit: q.limit,
        cursor: decodeIterator(q.iterator),
        status: q.status,
        tipoDte: q.tipoDte,
      });
      return toPage(rows, q.limit, (r) => ({ createdAt: r.created_at.toISOString(), id: r.id }), toDte);
    },

    /** The signed bytes, exactly as stored. */
    async xml(accountId: string, tenantId: string, id: string): Promise<Buffer> {
      await deps.getTenant(accountId, tenantId);
      const xml = UUID_RE.test(id) ? await dteStore.getXml(db, accountId, tenantId, id) : undefined;
      if (!xml) throw errors.notFound('dte', id);
      return xml;
    },

    /** GET /api/v1/dte/{dteId}/status and /dte/{dteId}/status: by id alone, within the account. */
    async status(accountId: string, id: string) {
      return toStatus(await getRow(accountId, id));
    },

    async history(accountId: string, tenantId: string, id: string) {
      await deps.getTenant(accountId, tenantId);
      const row = await getRow(accountId, id, tenantId);
      return { data: (await dteStore.history(db, accountId, row.id)).map(toHistory) };
    },

    async envio(accountId: string, tenantId: string, envioId: string) {
      await deps.getTenant(accountId, tenantId);
      const e = UUID_RE.test(envioId) ? await dteStore.getEnvio(db, accountId, envioId, tenantId) : undefined;
      if (!e) throw errors.notFound('envio', envioId);
      return toEnvio(e);
    },

    async envioXml(accountId: string, tenantId: string, envioId: string): Promise<Buffer> {
      await deps.getTenant(accountId, tenantId);
      const xml = UUID_RE.test(envioId) ? await dteStore.getEnvelope(db, accountId, tenantId, envioId) : undefined;
      if (xml === undefined) throw errors.notFound('envio', envioId);
      if (xml === null)
        throw errors.conflict('envelope_not_built', 'This envío has not been built yet; it is built when its upload runs. Retry shortly.');
      return xml;
    },
  };
}

export type DteService = ReturnType<typeof createDteService>;
