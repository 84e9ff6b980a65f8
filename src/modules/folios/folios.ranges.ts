import type { Sql } from '../../db/types.ts';
import type { Caf } from '../../dte/index.ts';
import { inventoryStore } from './folios.inventory.store.ts';
import { checkStock } from './folios.inventory.ts';
import { requestStore } from './folios.request.store.ts';
import { uploadStore, type StoredRangeRow } from './folios.upload.store.ts';

/** `stored`, or the tenant's ranges of the type it overlaps (none: one stored without the lock starts at the same folio). */
export type StoreRangeOutcome = { stored: true } | { stored: false; overlaps: StoredRangeRow[] };

/**
 * Stores a checked CAF as a range of the tenant, in the caller's transaction: the one way a
 * requested CAF (folios.request.ts) and an uploaded one (folios.upload.ts) become folios. Under a
 * lock per tenant and type, a CAF overlapping any of the tenant's ranges of the type is not stored
 * (a folio is in one range only) and the overlapping ranges are answered instead. A stored range
 * re-arms folio.low when it brings stock back to the threshold; it never fires it.
 */
export async function storeCafRange(
  tx: Sql,
  r: {
    rangeId: string;
    accountId: string;
    tenantId: string;
    /** The SII environment the CAF was granted in. */
    ambiente: string;
    caf: Caf;
    /** The CAF's RSASK, encrypted and bound to the range (folios.encrypted.ts). */
    privateKeyEnc: Buffer;
    requestId: string | null;
    now: Date;
  },
): Promise<StoreRangeOutcome> {
  const { caf, accountId, tenantId, now } = r;
  await uploadStore.lockTenantType(tx, tenantId, caf.tipoDte);
  const overlaps = await uploadStore.overlapping(tx, { accountId, tenantId, tipoDte: caf.tipoDte, desde: caf.desde, hasta: caf.hasta });
  if (overlaps.length > 0) return { stored: false, overlaps };
  const inserted = await requestStore.insertRange(tx, {
    id: r.rangeId,
    accountId,
    tenantId,
    tipoDte: caf.tipoDte,
    desde: caf.desde,
    hasta: caf.hasta,
    fechaAutorizacion: caf.fechaAutorizacion,
    vencimiento: caf.vencimiento,
    idk: caf.idk,
    cafBlock: caf.cafXml,
    privateKeyEnc: r.privateKeyEnc,
    requestId: r.requestId,
    ambiente: r.ambiente,
    now,
  });
  if (!inserted) return { stored: false, overlaps: [] };
  await inventoryStore.ensureSettings(tx, accountId, tenantId, caf.tipoDte, now);
  await checkStock(tx, { accountId, tenantId, tipoDte: caf.tipoDte, now, mayFire: false });
  return { stored: true };
}
