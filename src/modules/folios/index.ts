/**
 * Folios: CAF requests to the SII (durable jobs), the inventory and its folio.low alarm, folio
 * allocation for the DTE module (never twice), and the annulment of voided folios.
 */
export { createFoliosService, DEFAULT_LOW_THRESHOLD } from './folios.service.ts';
export type { FoliosService, InventoryItem, Reservation, FolioRequest } from './folios.service.ts';
export { createFolioAnnulment } from './folios.annul.ts';
export type { FolioAnnulment } from './folios.annul.ts';
export { folioJobHandlers, folioPeriodics } from './folios.jobs.ts';
export { foliosEncryptedColumns } from './folios.encrypted.ts';
export { default as foliosRoutes } from './folios.routes.ts';
