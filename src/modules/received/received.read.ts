import type { Db } from '../../db/types.ts';
import { isDteEngineError, readPrintable, tryParseRut, formatRutSii } from '../../dte/index.ts';
import { errors } from '../../errors.ts';
import { decodeIterator, toPage, type Page } from '../../lib/pagination.ts';
import { UUID_RE } from '../../lib/tokens.ts';
import { requireDate } from '../../lib/validate.ts';
import { renderDtePdf, type PdfFormat } from '../../pdf/index.ts';
import type { TenantRef } from '../tenants/index.ts';
import { receivedStore } from './received.store.ts';
import { toReceivedDte, toReceivedEnvio, type ReceivedDte, type ReceivedEnvio } from './received.views.ts';

export interface ReceivedListQuery {
  limit: number;
  iterator?: string | undefined;
  rutEmisor?: string | undefined;
  tipoDte?: number | undefined;
  status?: string | undefined;
  fechaDesde?: string | undefined;
  fechaHasta?: string | undefined;
  recibidoDesde?: string | undefined;
  recibidoHasta?: string | undefined;
}

/** Reads of received documents and envíos, and the printed document of one (docs/received.md). */
export function createReceivedReads(deps: { db: Db }) {
  const { db } = deps;

  const getRow = async (tenant: TenantRef, id: string) => {
    const row = UUID_RE.test(id) ? await receivedStore.get(db, tenant.account_id, tenant.id, id) : undefined;
    if (!row) throw errors.notFound('received_dte', id);
    return row;
  };

  const xml = async (tenant: TenantRef, id: string): Promise<Buffer> => {
    const bytes = UUID_RE.test(id) ? await receivedStore.getXml(db, tenant.account_id, tenant.id, id) : undefined;
    if (!bytes) throw errors.notFound('received_dte', id);
    return bytes;
  };

  return {
    getRow,

    async get(tenant: TenantRef, id: string): Promise<ReceivedDte> {
      return toReceivedDte(await getRow(tenant, id));
    },

    async list(tenant: TenantRef, q: ReceivedListQuery): Promise<Page<ReceivedDte>> {
      let rutEmisor: string | undefined;
      if (q.rutEmisor !== undefined) {
        const rut = tryParseRut(q.rutEmisor);
        if (!rut)
          throw errors.invalid('invalid_rut', `rutEmisor '${q.rutEmisor}' is not a RUT with a valid check digit (76.123.456-7).`, {
            param: 'rutEmisor',
          });
        rutEmisor = formatRutSii(rut);
      }
      const rows = await receivedStore.list(db, tenant.account_id, tenant.id, {
        limit: q.limit,
        cursor: decodeIterator(q.iterator),
        rutEmisor,
        tipoDte: q.tipoDte,
        status: q.status,
        fechaDesde: q.fechaDesde === undefined ? undefined : requireDate(q.fechaDesde, 'fechaDesde'),
        fechaHasta: q.fechaHasta === undefined ? undefined : requireDate(q.fechaHasta, 'fechaHasta'),
        recibidoDesde: q.recibidoDesde,
        recibidoHasta: q.recibidoHasta,
      });
      return toPage(rows, q.limit, (r) => ({ createdAt: r.created_at.toISOString(), id: r.id }), toReceivedDte);
    },

    /** The DTE exactly as it was verified: its bytes in the envelope, with an XML declaration. */
    xml,

    async envio(tenant: TenantRef, envioId: string): Promise<ReceivedEnvio> {
      const e = UUID_RE.test(envioId) ? await receivedStore.getEnvio(db, tenant.account_id, tenant.id, envioId) : undefined;
      if (!e) throw errors.notFound('received_envio', envioId);
      return toReceivedEnvio(e);
    },

    /** The signed RespuestaEnvioDTE answered for that upload, byte for byte. */
    async respuesta(tenant: TenantRef, envioId: string): Promise<Buffer> {
      const r = UUID_RE.test(envioId) ? await receivedStore.getRespuesta(db, tenant.account_id, tenant.id, envioId) : undefined;
      if (!r) throw errors.notFound('received_envio', envioId);
      return r;
    },

    /**
     * The printed document of a supplier's DTE, read from its XML like our own (docs/dte.md, "The
     * printed document"): the issuer's resolution comes from the envelope's carátula, the SII
     * unit is the issuer's city (or comuna) as signed; no logo, no cedible copy (that is the
     * issuer's to print).
     */
    async pdf(tenant: TenantRef, id: string, opts: { formato: PdfFormat }): Promise<{ pdf: Buffer; filename: string }> {
      const row = await getRow(tenant, id);
      try {
        const doc = readPrintable(await xml(tenant, id));
        const pdf = await renderDtePdf(doc, {
          formato: opts.formato,
          cedible: false,
          unidadSii: doc.emisor.ciudad ?? doc.emisor.comuna ?? '',
          resolucion: { numero: row.numero_resolucion, fecha: row.fecha_resolucion },
          logo: null,
        });
        const suffix = opts.formato === '80mm' ? '-80mm' : '';
        return { pdf, filename: `DTE-${row.rut_emisor}-T${row.tipo_dte}-F${Number(row.folio)}${suffix}.pdf` };
      } catch (e) {
        if (!isDteEngineError(e)) throw e;
        throw errors.unprocessable('pdf_unavailable', `This document cannot be printed: ${e.message}.`);
      }
    },
  };
}
