/**
 * DTE issuing: create (prepare → folio → issue → store), read, send to the SII through the
 * provider and follow each envelope's verdict. Talks to tenants, folios and credentials through
 * the ports it is given.
 */
export { createDteService } from './dte.service.ts';
export type { DteService, DteDeps, Dte } from './dte.service.ts';
export type { CreateDte } from './dte.input.ts';
export { createSendService, pollDelayMs } from './dte.send.ts';
export type { SendService, SendDeps, AcceptedDte } from './dte.send.ts';
export { dteJobHandlers } from './dte.jobs.ts';
export { createDteMailComposer } from './dte.mail.ts';
export { CreateDteBody, DTE_STATUSES, SendResponse } from './dte.schemas.ts';
/** The statuses a document may be sent from (created, or an envelope that never reached the SII). */
export { SENDABLE } from './dte.transitions.ts';
export { default as dteRoutes } from './dte.routes.ts';
export { createDteDeliveries, DTE_DELIVERY_SUBJECT } from './dte.deliveries.ts';
export type { DteDeliveries } from './dte.deliveries.ts';
export { default as dteDeliveriesRoutes } from './dte.deliveries.routes.ts';
