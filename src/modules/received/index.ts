/**
 * Received documents: the EnvioDTEs suppliers send to a tenant, verified, stored once and answered
 * with the signed RespuestaEnvioDTE, and the tenant's answers to them (signed ResultadoDTE /
 * EnvioRecibos, registered at the SII through the provider) (docs/received.md, docs/decisions.md §13).
 * Talks to credentials (the signer, the provider credentials), tenants and the provider through the
 * ports it is given.
 */
export { createReceivedService } from './received.service.ts';
export type { ReceivedService, ReceivedDeps, ReceivedDte, ReceivedEnvio } from './received.service.ts';
export { RECEIVED_STATUSES } from './received.store.ts';
export { default as receivedRoutes, RECEIVED_MAX_BYTES } from './received.routes.ts';
export { receivedPeriodics } from './received.jobs.ts';
export { createRespuestaComposer } from './received.mail.ts';
export { createReceivedDeliveries, RECEIVED_DTE_SUBJECT, RECEIVED_ENVIO_SUBJECT } from './received.deliveries.ts';
export type { ReceivedDeliveries, RespuestaToSend } from './received.deliveries.ts';
export { default as receivedDeliveriesRoutes } from './received.deliveries.routes.ts';
// The checks of a received envelope, for the certification's exchange step (docs/certification.md):
// the same verdicts as POST …/received, without storing anything.
export { envelopeError, documentProblem } from './received.verdict.ts';
export type { DocumentProblem } from './received.verdict.ts';
export { guardXml } from './received.xml-guard.ts';
export { readAddressedEnvelope } from './received.envelope.ts';
