import type { DteService, Dte } from '../../../modules/dte/index.ts';
import type { InventoryItem } from '../../../modules/folios/index.ts';

/** The issuing module's records as the dashboard pages read them (src/modules/folios, src/modules/dte). */
export type FolioStock = InventoryItem;
export type DteRecord = Dte;
export type DteHistoryEntry = Awaited<ReturnType<DteService['history']>>['data'][number];

export { DTE_STATUSES } from '../../../modules/dte/index.ts';
export { SUPPORTED_TIPOS_DTE as TIPOS_DTE, RUT_ANONYMOUS, isExchanged, DOCUMENT_TYPES } from '../../../dte/index.ts';
export { isCedibleType } from '../../../pdf/index.ts';
