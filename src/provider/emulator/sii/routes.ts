import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EmulatorCore } from '../emulator.ts';
import { Refusal, type Reply } from '../reply.ts';
import { createSiiAuth, type SiiAuth } from './auth.ts';
import { parseSoapRequest, soapAnswer, soapFault } from './soap.ts';

/**
 * The emulator's SII face: the SII's own services at the SII's own paths (SII-SERVICES.md §1.1),
 * on the same server as the SimpleAPI routes, over the same records (emulator.ts). Point
 * SII_BASE_URL at the emulator and the direct adapters (src/provider/sii/) talk to it. Each call
 * is counted by its service in the stats' `sii` section (stats.ts); docs/emulator.md, "The SII's
 * own protocols", lists every shape, code and quirk with its source.
 */
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

const bodyText = (req: FastifyRequest): string => (Buffer.isBuffer(req.body) ? req.body.toString('utf8') : typeof req.body === 'string' ? req.body : '');

/** The namespace an Axis service answers in: its own URL (the manual's examples, §5.2.3). */
const namespaceOf = (req: FastifyRequest) => `https://${req.headers.host ?? 'palena.sii.cl'}${req.url.split('?')[0]}`;

export async function registerSiiAuthRoutes(app: FastifyInstance, face: SiiFace) {
  const { auth } = face;

  app.post(
    '/DTEWS/CrSeed.jws',
    siiRoute('CrSeed'),
    handle(async (req) => {
      const call = parseSoapRequest(bodyText(req));
      if (!call || call.operation !== 'getSeed') return soapFault('No such operation');
      return soapAnswer(namespaceOf(req), 'getSeed', await auth.seed('soap'));
    }),
  );

  app.post(
    '/DTEWS/GetTokenFromSeed.jws',
    siiRoute('GetTokenFromSeed'),
    handle(async (req) => {
      const call = parseSoapRequest(bodyText(req));
      if (!call || call.operation !== 'getToken') return soapFault('No such operation');
      return soapAnswer(namespaceOf(req), 'getToken', await auth.token('soap', call.params.pszXml));
    }),
  );

  // The boleta REST API's seed and token: the same XML, unwrapped (§1.5; SII "API SII – V1").
  const xmlReply = (xml: string): Reply => ({ status: 200, contentType: 'application/xml; charset=utf-8', body: Buffer.from(xml, 'utf8') });
  app.get(
    '/recursos/v1/boleta.electronica.semilla',
    siiRoute('boleta.electronica.semilla'),
    handle(async () => xmlReply(await auth.seed('rest'))),
  );
  app.post(
    '/recursos/v1/boleta.electronica.token',
    siiRoute('boleta.electronica.token'),
    handle(async (req) => xmlReply(await auth.token('rest', bodyText(req)))),
  );
}

/**
 * Every SII route on `app`. XML bodies (SOAP, the REST token) are read as bytes; multipart (the
 * uploads) is read by the SimpleAPI face's plugin, registered before.
 */
export async function registerSiiRoutes(app: FastifyInstance, core: EmulatorCore): Promise<SiiFace> {
  const face: SiiFace = {
    core,
    auth: createSiiAuth({ db: core.db, clock: core.clock, issued: (k) => core.calls.tokenIssued(k) }),
  };
  app.addContentTypeParser(['text/xml', 'application/xml', 'application/soap+xml'], { parseAs: 'buffer' }, (_req, body, done) =>
    done(null, body),
  );
  await registerSiiAuthRoutes(app, face);
  return face;
}
