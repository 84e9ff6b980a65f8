import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerFactory } from 'fastify';
import multipart from '@fastify/multipart';
import { hostOfPath, ROUTES, type Host } from '../simpleapi/protocol.ts';
import type { CallInput, EmulatorCore, Upload } from './emulator.ts';
import { emptyReply, jsonReply, Refusal, textReply, type Reply } from './reply.ts';
import { registerSiiRoutes } from './sii/routes.ts';
import { apiKeyBehaviour, type KeyBehaviour } from './sandbox.ts';
import { registerSiiCafForms } from './sii/caf-forms.ts';
import type { RouteName } from './stats.ts';
import { API_TEXT, EXPIRED_KEY_ERROR, MENSAJE, UNAVAILABLE_TEXT } from './texts.ts';

/**
 * The emulator's HTTP face: SimpleAPI's routes (protocol.ts ROUTES) for both of its hosts on one
 * server (point SIMPLEAPI_BASE_URL and SIMPLEAPI_SERVICIOS_URL at it; a path tells the host,
 * hostOfPath). Every call goes through the same steps, in the order the provider's answers imply
 * (docs/emulator.md, "The SimpleAPI protocol"):
 *
 *  1. the key (`Authorization: <key>` or `Basic base64("api:"+key)`; `Bearer` is refused [D9]):
 *     invalid → 401, empty on the DTE host [D9] and `{"Mensaje":"API KEY Incorrecta…"}` on
 *     servicios [C "Get Folios"]; expired → 401 `{"error":"Apikey vencida…"}` [D9]; the
 *     `unavailable` sandbox key → 503. None of these carries X-Rate-Limit headers [D9];
 *  2. the rate limit of the key and host (rate-limit.ts): 429 text/plain with Retry-After, or the
 *     X-Rate-Limit-* headers on whatever the call answers next;
 *  3. the plan (`quota` sandbox key) → 401 `{"Mensaje":"Límite de la suscripción alcanzado"}`
 *     [C "Get Folios"] on both hosts, except the subscription status, which costs nothing;
 *  4. multipart: a JSON text part `input`, then file parts read by position whatever their names
 *     (the certificate first, then the document) [C "Enviar al SII"]; then the route (emulator.ts).
 * Every answered call is counted (stats.ts).
 */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** `Authorization` → the API key, or null when there is none (or only a Bearer token, refused [D9]). */
export function apiKeyFrom(header: string | undefined): string | null {
  const h = (header ?? '').trim();
  if (!h) return null;
  const m = /^(basic|bearer)\s+(\S+)$/i.exec(h);
  if (!m) return h;
  if (m[1]!.toLowerCase() === 'bearer') return null;
  const decoded = Buffer.from(m[2]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && colon < decoded.length - 1 ? decoded.slice(colon + 1) : null;
}

/** The key's refusal before the rate limit, as each host words it; undefined when the key may go on. */
function keyRefusal(b: KeyBehaviour, host: Host): Reply | undefined {
  switch (b.verdict) {
    case 'invalid':
      return host === 'api' ? emptyReply(401) : jsonReply(401, { Mensaje: MENSAJE.invalidKey });
    case 'expired':
      return jsonReply(401, { error: EXPIRED_KEY_ERROR });
    case 'unavailable':
      return textReply(503, UNAVAILABLE_TEXT);
    default:
      return undefined;
  }
}

class BadInput extends Error {}

async function readMultipart(req: FastifyRequest): Promise<CallInput> {
  if (!req.isMultipart()) return { input: undefined, files: [] };
  let input: Record<string, unknown> | undefined;
  const files: Upload[] = [];
  for await (const part of req.parts()) {
    if (part.type === 'file') files.push({ data: await part.toBuffer(), filename: part.filename ?? '' });
    else if (part.fieldname.toLowerCase() === 'input') {
      let v: unknown;
      try {
        v = JSON.parse(String(part.value));
      } catch {
        throw new BadInput();
      }
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw new BadInput();
      input = v as Record<string, unknown>;
    }
  }
  return { input, files };
}

const intParam = (v: string | undefined): number => (v !== undefined && /^\d{1,12}$/.test(v) ? Number(v) : NaN);

const ROUTE_OF_URL: Record<string, RouteName> = {
  [ROUTES.subscription]: 'subscription',
  '/api/folios/get/:tipo/:cantidad': 'folios',
  '/api/folios/get/:tipo/': 'foliosAvailable',
  '/api/folios/anulacion/:tipo/:desde/:hasta': 'annul',
  [ROUTES.send]: 'send',
  [ROUTES.envioStatus]: 'envioStatus',
  [ROUTES.dteStatus]: 'dteStatus',
  [ROUTES.acceptance]: 'acceptance',
};

export async function buildEmulatorServer(
  core: EmulatorCore,
  opts: { logger?: boolean; /** HTTPS (tls.ts httpsServerFactory); default plain HTTP. */ serverFactory?: FastifyServerFactory } = {},
): Promise<FastifyInstance> {
  // ASP.NET routing is case-insensitive (the SDK writes `Folios/get/…`).
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: MAX_FILE_BYTES,
    routerOptions: { caseSensitive: false },
    ...(opts.serverFactory ? { serverFactory: opts.serverFactory } : {}),
  });
  await app.register(multipart, { limits: { fileSize: MAX_FILE_BYTES, files: 4, fields: 4 } });

  app.addHook('onSend', async (req, reply, payload) => {
    const path = req.url.split('?')[0] ?? '';
    const siiOperation = req.routeOptions.config?.siiOperation;
    if (siiOperation) core.calls.recordSii(siiOperation, reply.statusCode);
    else if (!/^\/emulator\//i.test(path)) {
      const name = ROUTE_OF_URL[req.routeOptions.url ?? ''] ?? 'unknown';
      core.calls.record(name, hostOfPath(path), reply.statusCode);
    }
    return payload;
  });

  const send = (reply: FastifyReply, r: Reply, headers: Record<string, string> = {}) => {
    for (const [k, v] of Object.entries({ ...headers, ...r.headers })) reply.header(k, v);
    reply.status(r.status);
    // An empty answer goes without a body or Content-Type, like ASP.NET's Unauthorized() [D9].
    if (!r.contentType) return reply.send();
    return reply.type(r.contentType).send(r.body);
  };

  const route = <P>(
    method: 'GET' | 'POST',
    url: string,
    handle: (call: CallInput, params: P, b: KeyBehaviour) => Reply | Promise<Reply>,
  ) => {
    const name = ROUTE_OF_URL[url]!;
    const host = hostOfPath(url);
    app.route<{ Params: P }>({
      method,
      url,
      handler: async (req, reply) => {
        const key = apiKeyFrom(req.headers.authorization);
        const b: KeyBehaviour = key === null ? { verdict: 'invalid', slow: false } : apiKeyBehaviour(key);
        if (b.slow) await core.slowDown();
        const refusal = keyRefusal(b, host);
        if (refusal) return send(reply, refusal);
        let headers: Record<string, string> = {};
        try {
          if (core.rateLimiter) {
            await core.ready();
            const v = await core.rateLimiter.take(key!, host);
            if (!v.ok) return send(reply, textReply(429, v.text, { 'Retry-After': String(v.retryAfterSeconds) }));
            headers = v.headers;
          }
          if (b.verdict === 'quota' && name !== 'subscription') {
            return send(reply, jsonReply(401, { Mensaje: MENSAJE.planExhausted }), headers);
          }
          const call = method === 'POST' ? await readMultipart(req) : { input: undefined, files: [] };
          return send(reply, await handle(call, req.params as P, b), headers);
        } catch (e) {
          if (e instanceof Refusal) return send(reply, e.reply, headers);
          if (e instanceof BadInput) {
            return send(reply, host === 'api' ? textReply(400, API_TEXT.badInput) : jsonReply(400, { Mensaje: MENSAJE.badInput }), headers);
          }
          if ((e as { statusCode?: number }).statusCode === 413 || (e as { code?: string }).code?.startsWith('FST_')) {
            // Multipart limits and malformed bodies: the input cannot be read.
            return send(
              reply,
              host === 'api' ? textReply(400, API_TEXT.missingFiles) : jsonReply(400, { Mensaje: MENSAJE.missingFiles }),
              headers,
            );
          }
          req.log.error({ err: e }, 'emulator failure');
          return send(reply, textReply(500, 'Error interno del emulador'), headers);
        }
      },
    });
  };

  route('GET', ROUTES.subscription, (_c, _p, b) => core.subscription(b));
  route<{ tipo: string; cantidad: string }>('POST', '/api/folios/get/:tipo/:cantidad', (c, p) =>
    core.folios(c, intParam(p.tipo), intParam(p.cantidad)),
  );
  route<{ tipo: string }>('POST', '/api/folios/get/:tipo/', (c, p) => core.foliosAvailable(c, intParam(p.tipo)));
  route<{ tipo: string; desde: string; hasta: string }>('POST', '/api/folios/anulacion/:tipo/:desde/:hasta', (c, p) =>
    core.annul(c, intParam(p.tipo), intParam(p.desde), intParam(p.hasta)),
  );
  route('POST', ROUTES.send, (c) => core.send(c));
  route('POST', ROUTES.envioStatus, (c) => core.envioStatus(c));
  route('POST', ROUTES.dteStatus, (c) => core.dteStatus(c));
  route('POST', ROUTES.acceptance, (c) => core.acceptance(c));

  // The SII's own services (sii/routes.ts), on the same records.
  await registerSiiRoutes(app, core);

  // Emulator-only helpers (not SimpleAPI, not counted): the key that signs its CAFs, a liveness
  // probe, and the call counters (stats.ts) with a reset that answers the counts it cleared.
  app.get('/emulator/sii-public-key.pem', async (_req, reply) => reply.type('application/x-pem-file').send(core.siiKey.publicKeyPem));
  app.get('/emulator/health', async () => ({ ok: true, idk: core.siiKey.idk }));
  app.get('/emulator/stats', async () => core.stats());
  app.post('/emulator/stats/reset', async () => {
    const before = core.stats();
    core.resetStats();
    return before;
  });
  // The SII's CAF web forms and its web login (sii/caf-forms.ts; the login needs HTTPS, tls.ts).
  await registerSiiCafForms(app, core);
  return app;
}
