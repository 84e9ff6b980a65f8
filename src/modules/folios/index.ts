/**
 * Folios: CAF requests to the SII (durable jobs), CAF files uploaded, the inventory and its folio.low alarm, folio
 * allocation for the DTE module (never twice), and the annulment of voided folios
 * (docs/folios.md). The only file other modules import.
 */
export { createFoliosService } from './folios.service.ts';
export type { FoliosService, FoliosDeps } from './folios.service.ts';
export type { InventoryItem } from './folios.inventory.ts';
export type { FolioRequest, FolioRequestOutcome } from './folios.request.ts';
export type { UploadedCaf, CafUploadOutcome } from './folios.upload.ts';
export type { Reservation } from './folios.allocation.ts';
export type { FolioCredentialsSource } from './folios.ports.ts';
export { createFolioAnnulment, MAX_ANNUL_ATTEMPTS } from './folios.annul.ts';
export type { FolioAnnulment } from './folios.annul.ts';
export { folioJobHandlers, folioPeriodics } from './folios.jobs.ts';
export { foliosEncryptedColumns } from './folios.encrypted.ts';
export { folioStock } from './folios.metrics.ts';
export { default as foliosRoutes } from './folios.routes.ts';
