import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EmulatorCore } from '../emulator.ts';
import { Refusal, type Reply } from '../reply.ts';
import type { SiiAuth } from './auth.ts';

/** What the SII face's routes share (routes.ts registers them). */
export interface SiiFace {
  core: EmulatorCore;
  auth: SiiAuth;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The SII service an emulator SII route is counted under (stats.ts `sii`). */
    siiOperation?: string;
  }
}

/** Route options that name the SII service a call is counted under (server.ts's onSend hook). */
export const siiRoute = (operation: string) => ({ config: { siiOperation: operation } });

export function sendReply(reply: FastifyReply, r: Reply) {
  reply.status(r.status);
  for (const [k, v] of Object.entries(r.headers ?? {})) reply.header(k, v);
  if (!r.contentType) return reply.send();
  return reply.type(r.contentType).send(r.body);
}

/** A handler that answers a Reply; a Refusal thrown inside is answered as it says. */
export function handle(fn: (req: FastifyRequest) => Promise<Reply>) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    try {
      return sendReply(reply, await fn(req));
    } catch (e) {
      if (e instanceof Refusal) return sendReply(reply, e.reply);
      throw e;
    }
  };
}

export const bodyText = (req: FastifyRequest): string =>
  Buffer.isBuffer(req.body) ? req.body.toString('utf8') : typeof req.body === 'string' ? req.body : '';

/** The namespace an Axis service answers in: its own URL (the manual's examples, §5.2.3). */
export const namespaceOf = (req: FastifyRequest) => `https://${req.headers.host ?? 'palena.sii.cl'}${req.url.split('?')[0]}`;
