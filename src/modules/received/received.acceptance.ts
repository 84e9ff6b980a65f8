import type { Db } from '../../db/types.ts';
import { AppError, errors } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { UUID_RE } from '../../lib/tokens.ts';
import type { TenantRef } from '../tenants/index.ts';
import { receivedStore } from './received.store.ts';
import { toReceivedDte, type ReceivedDte } from './received.views.ts';

/**
 * The tenant's answers to a received factura (Ley 19.983; docs/received.md, "Accepting or
 * claiming"), with the actions and the rules of the SII's registro de aceptación o reclamo
 * (docs/…aceptacion-reclamo-dte-v1.2, "accionDoc"):
 *  - ACD acepta el contenido, ERM otorga el recibo de mercaderías o servicios → `accepted`;
 *  - RCD reclamo al contenido, RFP / RFT reclamo por falta parcial / total de mercaderías → `claimed`;
 *  - only facturas 33 and 34 (the service's receivable types that registro operates on);
 *  - only within eight calendar days of reception (the record's deadline; the clock is injected);
 *  - the same action twice is recorded once (answered with the record as it is); ACD and ERM go
 *    together, and so do different claims; a claim after ACD or ERM, or ACD or ERM after a claim,
 *    is refused.
 *
 * Recorded here only: registering it at the SII through the provider (SimpleAPI
 * `compras/aceptacionreclamo`, which the provider port does not have yet) and the signed
 * ResultadoDTE / EnvioRecibos for the supplier are left for later (`registeredAtSii: false`).
 */
export const ACCIONES = ['ACD', 'RCD', 'ERM', 'RFP', 'RFT'] as const;
export type Accion = (typeof ACCIONES)[number];

const CLAIMS: readonly string[] = ['RCD', 'RFP', 'RFT'];
const TIPOS_CON_ACEPTACION: readonly number[] = [33, 34];

export function createAcceptance(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  return async function accept(tenant: TenantRef, id: string, body: { accion: Accion; glosa?: string | undefined }): Promise<ReceivedDte> {
    const glosa = body.glosa?.trim() || null;
    return db.transaction(async (tx) => {
      const row = UUID_RE.test(id) ? await receivedStore.getForUpdate(tx, tenant.account_id, tenant.id, id) : undefined;
      if (!row) throw errors.notFound('received_dte', id);
      if (!TIPOS_CON_ACEPTACION.includes(row.tipo_dte))
        throw errors.unprocessable(
          'acceptance_not_applicable',
          `Only facturas (33, 34) are accepted or claimed under Ley 19.983; this is a type ${row.tipo_dte} document.`,
        );
      const done = row.acciones.map((a) => a.accion);
      if (done.includes(body.accion)) return toReceivedDte(row);
      const now = clock.now();
      if (now.getTime() > row.acceptance_deadline.getTime())
        throw new AppError(
          'conflict',
          'acceptance_window_closed',
          `The eight days to accept or claim this document ended at ${row.acceptance_deadline.toISOString()} (Ley 19.983).`,
          { details: { acceptanceDeadline: row.acceptance_deadline.toISOString() } },
        );
      const claim = CLAIMS.includes(body.accion);
      const previous = done.filter((a) => CLAIMS.includes(a) !== claim);
      if (previous.length > 0)
        throw errors.conflict(
          claim ? 'document_already_accepted' : 'document_already_claimed',
          claim
            ? `This document was already accepted (${previous.join(', ')}): it cannot be claimed.`
            : `This document was already claimed (${previous.join(', ')}): it cannot be accepted.`,
          { details: { acciones: done, status: row.status } },
        );
      const updated = await receivedStore.addAccion(tx, {
        accountId: tenant.account_id,
        id: row.id,
        status: claim ? 'claimed' : 'accepted',
        accion: body.accion,
        glosa,
        now,
      });
      return toReceivedDte(updated);
    });
  };
}
