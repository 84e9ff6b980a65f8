/**
 * Received documents: the EnvioDTEs suppliers send to a tenant, verified, stored once and answered
 * with the signed RespuestaEnvioDTE (docs/received.md, decisions §13). Talks to credentials (the
 * signer) and the provider's SII keys through the ports it is given.
 */
export { createReceivedService } from './received.service.ts';
export type { ReceivedService, ReceivedDeps, ReceivedDte, ReceivedEnvio } from './received.service.ts';
export { RECEIVED_STATUSES } from './received.store.ts';
export { default as receivedRoutes, RECEIVED_MAX_BYTES } from './received.routes.ts';
