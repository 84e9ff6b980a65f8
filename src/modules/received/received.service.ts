import { createAcceptance } from './received.acceptance.ts';
import { createReceivedReads } from './received.read.ts';
import { createReceive, type ReceiveDeps } from './received.receive.ts';

/**
 * Documents suppliers send to a tenant (docs/received.md): receive an EnvioDTE
 * (received.receive.ts), read what was received (received.read.ts), and accept or claim a
 * document within its eight days (received.acceptance.ts). Methods take the tenant
 * row the caller resolved (docs/design.md §11); nothing here knows about HTTP.
 */
export type ReceivedDeps = ReceiveDeps;

export function createReceivedService(deps: ReceivedDeps) {
  return { receive: createReceive(deps), accept: createAcceptance(deps), ...createReceivedReads(deps) };
}

export type ReceivedService = ReturnType<typeof createReceivedService>;
export type { ReceivedDte, ReceivedEnvio } from './received.views.ts';
