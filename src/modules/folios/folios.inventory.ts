import type { Db, Sql } from '../../db/types.ts';
import { siiDate } from '../../dte/index.ts';
import { emitEvent } from '../../events/outbox.ts';
import type { Clock } from '../../lib/clock.ts';
import { parseTipoDte } from '../../lib/validate.ts';
import { DEFAULT_LOW_THRESHOLD, inventoryStore, type FolioRangeRow } from './folios.inventory.store.ts';
import type { TenantRef } from './folios.ports.ts';

/**
 * The inventory (stock of usable folios per document type), the folio.low threshold, and the
 * alarm itself (docs/folios.md, "The inventory" and "The folio.low event").
 */
export { DEFAULT_LOW_THRESHOLD };

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

/**
 * The folio.low alarm, in the caller's transaction (the event goes to the outbox with the change
 * that caused it). It fires when stock *falls* below the threshold — on a folio handed out, or a
 * threshold raised above the stock (`mayFire`) — once, then stays quiet until a refill brings stock
 * back to the threshold or above (re-armed). A refill still below the threshold is not a fall, so
 * it passes `mayFire: false` and never fires by itself. Returns the stock left.
 */
export async function checkStock(
  tx: Sql,
  a: { accountId: string; tenantId: string; tipoDte: number; now: Date; mayFire: boolean },
): Promise<number> {
  const { accountId, tenantId, tipoDte, now } = a;
  const r = await inventoryStore.evaluateAlarm(tx, { accountId, tenantId, tipoDte, today: siiDate(now), now, mayFire: a.mayFire });
  if (r.fired) {
    await emitEvent(tx, {
      accountId,
      type: 'folio.low',
      data: { tenantId, tipoDte, disponibles: r.disponibles, lowThreshold: r.lowThreshold },
      now,
    });
  }
  return r.disponibles;
}

/** One type's line of the inventory, from its usable ranges (oldest first). */
export function inventoryItem(tipoDte: number, ranges: readonly FolioRangeRow[], threshold: number): InventoryItem {
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
}

export function createFolioInventory(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;
  const today = () => siiDate(clock.now());

  return {
    /** Every type that has had a CAF or a threshold, counted over its usable ranges. */
    async inventory(tenant: TenantRef): Promise<{ data: InventoryItem[] }> {
      const { account_id: accountId, id: tenantId } = tenant;
      const [ranges, settings] = await Promise.all([
        inventoryStore.usableRanges(db, accountId, tenantId, today()),
        inventoryStore.settings(db, accountId, tenantId),
      ]);
      const thresholds = new Map(settings.map((s) => [s.tipo_dte, s.low_threshold]));
      const tipos = [...new Set([...ranges.map((g) => g.tipo_dte), ...thresholds.keys()])].sort((a, b) => a - b);
      return {
        data: tipos.map((t) =>
          inventoryItem(
            t,
            ranges.filter((g) => g.tipo_dte === t),
            thresholds.get(t) ?? DEFAULT_LOW_THRESHOLD,
          ),
        ),
      };
    },

    /** The threshold of one type; the alarm is evaluated against the current stock at once. */
    async setThreshold(tenant: TenantRef, tipoParam: string, lowThreshold: number): Promise<InventoryItem> {
      const { account_id: accountId, id: tenantId } = tenant;
      const tipoDte = parseTipoDte(tipoParam);
      const now = clock.now();
      await db.transaction(async (tx) => {
        await inventoryStore.setThreshold(tx, accountId, tenantId, tipoDte, lowThreshold, now);
        await checkStock(tx, { accountId, tenantId, tipoDte, now, mayFire: true });
      });
      const ranges = await inventoryStore.usableRanges(db, accountId, tenantId, siiDate(now), tipoDte);
      return inventoryItem(tipoDte, ranges, lowThreshold);
    },
  };
}

export type FolioInventory = ReturnType<typeof createFolioInventory>;
