import type { FastifyInstance } from 'fastify';
import type { EmulatorCore } from '../emulator.ts';
import type { Reply } from '../reply.ts';
import { createSiiAuth } from './auth.ts';
import { registerBoletaRestRoutes } from './boleta-rest.ts';
import { registerClaimsRoutes } from './claims.ts';
import { bodyText, handle, namespaceOf, siiRoute, type SiiFace } from './http.ts';
import { registerQueryRoutes } from './query.ts';
import { parseSoapRequest, soapAnswer, soapFault } from './soap.ts';
import { registerUploadRoute } from './upload.ts';
import { REST_SEED_PATH, REST_TOKEN_PATH, SOAP_SEED_PATH, SOAP_TOKEN_PATH } from '../../sii/seed.ts';

/**
 * The emulator's SII face: the SII's own services at the SII's own paths (docs/sources.md §1.1),
 * on the same server as the SimpleAPI routes, over the same records (emulator.ts). Point
 * SII_BASE_URL at the emulator and the direct adapters (src/provider/sii/) talk to it. Each call
 * is counted by its service in the stats' `sii` section (stats.ts); docs/emulator.md, "The SII's
 * own protocols", lists every shape, code and quirk with its source.
 */
export async function registerSiiAuthRoutes(app: FastifyInstance, face: SiiFace) {
  const { auth } = face;

  app.post(
    SOAP_SEED_PATH,
    siiRoute('CrSeed'),
    handle(async (req) => {
      const call = parseSoapRequest(bodyText(req));
      if (!call || call.operation !== 'getSeed') return soapFault('No such operation');
      return soapAnswer(namespaceOf(req), 'getSeed', await auth.seed('soap'));
    }),
  );

  app.post(
    SOAP_TOKEN_PATH,
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
    REST_SEED_PATH,
    siiRoute('boleta.electronica.semilla'),
    handle(async () => xmlReply(await auth.seed('rest'))),
  );
  app.post(
    REST_TOKEN_PATH,
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
  registerUploadRoute(app, face);
  registerQueryRoutes(app, face);
  registerBoletaRestRoutes(app, face);
  registerClaimsRoutes(app, face);
  return face;
}
