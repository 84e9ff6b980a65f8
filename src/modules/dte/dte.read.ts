import type { Db } from '../../db/types.ts';
import { formatRutSii, tryParseRut } from '../../dte/index.ts';
import { errors } from '../../errors.ts';
import { decodeIterator, toPage, type Page } from '../../lib/pagination.ts';
import { UUID_RE } from '../../lib/tokens.ts';
import { requireDate } from '../../lib/validate.ts';
import type { TenantRef } from '../tenants/index.ts';
import { dteStore } from './dte.store.ts';
import { toDte, toEnvio, toHistory, toStatus, type Dte } from './dte.views.ts';

export interface ListQuery {
  limit: number;
  iterator?: string | undefined;
  status?: string | undefined;
  tipoDte?: number | undefined;
  /** The dashboard's search (docs/dashboard.md "Documents"): an exact folio, the receptor's RUT, a date range of issue. */
  folio?: number | undefined;
  /** Any spelling with its check digit (76.123.456-7, 76123456-7); a wrong one is 400 invalid_rut. */
  receptorRut?: string | undefined;
  /** YYYY-MM-DD, inclusive. */
  fechaDesde?: string | undefined;
  fechaHasta?: string | undefined;
}

/** The receptor RUT as documents store it (SII form, 76123456-7), or a 400 naming the filter. */
function receptorRutOf(input: string | undefined): string | undefined {
  if (input === undefined) return undefined;
  const rut = tryParseRut(input);
  if (!rut)
    throw errors.invalid('invalid_rut', `'${input.slice(0, 20)}' is not a valid RUT (like 76.123.456-7).`, { param: 'receptorRut' });
  return formatRutSii(rut);
}

const dateFilter = (v: string | undefined, param: string): string | undefined => (v === undefined ? undefined : requireDate(v, param));

export function createDteReads(deps: { db: Db }) {
  const { db } = deps;

  const getRow = async (accountId: string, id: string, tenantId?: string) => {
    const row = UUID_RE.test(id) ? await dteStore.get(db, accountId, id, tenantId) : undefined;
    if (!row) throw errors.notFound('dte', id);
    return row;
  };

  return {
    /** A DTE by id within the account (the replay of a create whose response was lost). */
    async byId(accountId: string, id: string): Promise<Dte> {
      return toDte(await getRow(accountId, id));
    },

    async get(tenant: TenantRef, id: string): Promise<Dte> {
      return toDte(await getRow(tenant.account_id, id, tenant.id));
    },

    async list(tenant: TenantRef, q: ListQuery): Promise<Page<Dte>> {
      const rows = await dteStore.list(db, tenant.account_id, tenant.id, {
        limit: q.limit,
        cursor: decodeIterator(q.iterator),
        status: q.status,
        tipoDte: q.tipoDte,
        folio: q.folio,
        receptorRut: receptorRutOf(q.receptorRut),
        fechaDesde: dateFilter(q.fechaDesde, 'fechaDesde'),
        fechaHasta: dateFilter(q.fechaHasta, 'fechaHasta'),
      });
      return toPage(rows, q.limit, (r) => ({ createdAt: r.created_at.toISOString(), id: r.id }), toDte);
    },

    /** The signed bytes, exactly as stored. */
    async xml(tenant: TenantRef, id: string): Promise<Buffer> {
      const xml = UUID_RE.test(id) ? await dteStore.getXml(db, tenant.account_id, tenant.id, id) : undefined;
      if (!xml) throw errors.notFound('dte', id);
      return xml;
    },

    /** The signed bytes and the SII office to print beside them (dte.pdf.ts). */
    async printable(tenant: TenantRef, id: string): Promise<{ xml: Buffer; unidadSii: string | null }> {
      const p = UUID_RE.test(id) ? await dteStore.getPrintable(db, tenant.account_id, tenant.id, id) : undefined;
      if (!p) throw errors.notFound('dte', id);
      return p;
    },

    /** GET /api/v1/dte/{dteId}/status and /dte/{dteId}/status: by id alone, within the account. */
    async status(accountId: string, id: string) {
      return toStatus(await getRow(accountId, id));
    },

    async history(tenant: TenantRef, id: string) {
      const row = await getRow(tenant.account_id, id, tenant.id);
      return { data: (await dteStore.history(db, tenant.account_id, row.id)).map(toHistory) };
    },

    async envio(tenant: TenantRef, envioId: string) {
      const e = UUID_RE.test(envioId) ? await dteStore.getEnvio(db, tenant.account_id, envioId, tenant.id) : undefined;
      if (!e) throw errors.notFound('envio', envioId);
      return toEnvio(e);
    },

    async envioXml(tenant: TenantRef, envioId: string): Promise<Buffer> {
      const xml = UUID_RE.test(envioId) ? await dteStore.getEnvelope(db, tenant.account_id, tenant.id, envioId) : undefined;
      if (xml === undefined) throw errors.notFound('envio', envioId);
      if (xml === null)
        throw errors.conflict('envelope_not_built', 'This envío has not been built yet; it is built when its upload runs. Retry shortly.');
      return xml;
    },
  };
}
