import { createAcceptance, type AcceptanceDeps } from './received.acceptance.ts';
import { createReceivedReads } from './received.read.ts';
import { createReceive, type ReceiveDeps } from './received.receive.ts';

/**
 * Documents suppliers send to a tenant (docs/received.md): receive an EnvioDTE
 * (received.receive.ts), read what was received (received.read.ts), and accept or claim a
 * document within its eight days, registered at the SII through the provider
 * (received.acceptance.ts, received.registration.ts). Methods take the tenant
 * row the caller resolved (docs/design.md §11); nothing here knows about HTTP.
 */
export type ReceivedDeps = ReceiveDeps & AcceptanceDeps;

export function createReceivedService(deps: ReceivedDeps) {
  const acceptance = createAcceptance(deps);
  return {
    receive: createReceive(deps),
    accept: acceptance.accept,
    acceptanceXml: acceptance.respuestaXml,
    /** Periodic (worker): registrations at the SII whose time has come (received.registration.ts). */
    registerDueAcceptances: acceptance.registration.registerDue,
    ...createReceivedReads(deps),
  };
}

export type ReceivedService = ReturnType<typeof createReceivedService>;
export type { ReceivedDte, ReceivedEnvio } from './received.views.ts';
