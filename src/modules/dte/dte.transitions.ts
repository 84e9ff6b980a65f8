import type { Sql } from '../../db/types.ts';
import { emitEvent } from '../../events/outbox.ts';
import { dteStore, type DteRow, type DteStatus } from './dte.store.ts';

/**
 * The one way a DTE changes state: the row, its history entry and the `dte.status.changed` event
 * are written in the caller's transaction (outbox), so a committed change always has its event
 * and history, and a rolled-back one has neither. Same state again = only the SII data is updated.
 */
export interface SiiInfo {
  trackId: string | null;
  estado: string | null;
  glosa: string | null;
}

export const SENDABLE: readonly DteStatus[] = ['created', 'send_failed'];
export const FINAL: readonly DteStatus[] = ['accepted', 'accepted_with_objections', 'rejected'];

export async function changeStatus(tx: Sql, row: DteRow, next: DteStatus, sii: SiiInfo, now: Date, envioId?: string): Promise<void> {
  await dteStore.setStatus(tx, {
    id: row.id,
    accountId: row.account_id,
    status: next,
    envioId: envioId ?? null,
    trackId: sii.trackId,
    estado: sii.estado,
    glosa: sii.glosa,
    now,
  });
  if (next === row.status) return;
  await dteStore.addHistory(tx, { dteId: row.id, accountId: row.account_id, previous: row.status, status: next, ...sii, now });
  await emitEvent(tx, {
    accountId: row.account_id,
    type: 'dte.status.changed',
    data: {
      tenantId: row.tenant_id,
      dteId: row.id,
      tipoDte: row.tipo_dte,
      folio: Number(row.folio),
      previousStatus: row.status,
      status: next,
      trackId: sii.trackId,
      sii: { estado: sii.estado, glosa: sii.glosa },
    },
    now,
  });
}
