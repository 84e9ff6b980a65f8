import { errors } from '../../errors.ts';
import type { FoliosService, InventoryItem } from '../folios/index.ts';
import type { TenantRow } from '../tenants/index.ts';

/**
 * Enough folios of every type a batch of certification documents needs (a set's cases, a
 * simulation's documents), from CAFs authorised on or before the documents' date (the SII refuses a
 * document dated before its CAF: docs/folios.md), checked before the first folio is spent: the 409
 * names each type short (docs/certification.md).
 */
export async function checkFolios(
  folios: Pick<FoliosService, 'inventory'>,
  tenant: TenantRow,
  tipos: readonly number[],
  fecha: string,
  o: { what: string; param: string },
): Promise<void> {
  const needed = new Map<number, number>();
  for (const t of tipos) needed.set(t, (needed.get(t) ?? 0) + 1);
  const usable = (i: InventoryItem) => i.rangos.filter((g) => g.fechaAutorizacion <= fecha).reduce((n, g) => n + g.disponibles, 0);
  const stock = new Map((await folios.inventory(tenant)).data.map((i) => [i.tipoDte, usable(i)]));
  const missing = [...needed]
    .map(([tipoDte, n]) => ({ tipoDte, needed: n, available: stock.get(tipoDte) ?? 0 }))
    .filter((m) => m.available < m.needed)
    .sort((a, b) => a.tipoDte - b.tipoDte);
  if (missing.length > 0)
    throw errors.conflict(
      'certification_folios_missing',
      `The tenant lacks folios for ${o.what}, so none was spent: ${missing.map((m) => `type ${m.tipoDte} needs ${m.needed}, ${m.available} available`).join('; ')} (folios of CAFs authorised on or before ${fecha}). Request or upload certification CAFs (POST …/folios/request) and call again.`,
      { param: o.param, details: { missing } },
    );
}
