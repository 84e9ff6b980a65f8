import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { ProviderError } from '../port.ts';
import { ROUTES } from '../simpleapi/protocol.ts';
import type { EmulatorCore } from './emulator.ts';

/**
 * The emulator's HTTP face: SimpleAPI's routes (protocol.ts) on one server, for both of its hosts
 * (set SIMPLEAPI_BASE_URL and SIMPLEAPI_SERVICIOS_URL to this server). Failures are answered the
 * way SimpleAPI answers them (docs/design.md §9): a bad key is an empty 401, an expired one
 * "Apikey vencida", an exhausted plan a 429, certificate problems a 401 that says so.
 */
interface Parsed {
  input: Record<string, unknown>;
  files: Buffer[];
}

const MAX_FILE_BYTES = 64 * 1024 * 1024;

async function readMultipart(req: FastifyRequest): Promise<Parsed> {
  if (!req.isMultipart()) throw new ProviderError('rejected', 'Se espera multipart/form-data con input y files', 400);
  let input: Record<string, unknown> = {};
  const files: Buffer[] = [];
  for await (const part of req.parts()) {
    if (part.type === 'file') files.push(await part.toBuffer());
    else if (part.fieldname === 'input') {
      try {
        const v: unknown = JSON.parse(String(part.value));
        if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
        input = v as Record<string, unknown>;
      } catch {
        throw new ProviderError('rejected', 'El campo input no es un objeto JSON válido', 400);
      }
    }
  }
  return { input, files };
}

function sendFailure(reply: FastifyReply, e: unknown, log: FastifyInstance['log']) {
  if (!(e instanceof ProviderError)) {
    log.error({ err: e }, 'emulator failure');
    return reply.status(500).type('text/plain; charset=utf-8').send('Error interno del emulador');
  }
  switch (e.kind) {
    case 'invalid_api_key':
      return reply.status(401).send('');
    case 'expired_api_key':
      return reply.status(401).type('text/plain; charset=utf-8').send('Apikey vencida');
    case 'quota_exhausted':
      return reply.status(429).type('text/plain; charset=utf-8').send('Cuota agotada: el plan no tiene consultas disponibles');
    case 'unavailable':
      return reply.status(503).type('text/plain; charset=utf-8').send('Servicio no disponible');
    case 'timeout':
      return reply.status(504).type('text/plain; charset=utf-8').send('Tiempo de espera agotado');
    case 'rejected':
      return reply
        .status(e.status ?? 400)
        .type('text/plain; charset=utf-8')
        .send(e.message);
  }
}

const apiKeyOf = (req: FastifyRequest): string => {
  const h = req.headers.authorization;
  return typeof h === 'string' ? h.trim() : '';
};

const intParam = (v: string | undefined): number => (v !== undefined && /^\d{1,12}$/.test(v) ? Number(v) : NaN);

export async function buildEmulatorServer(core: EmulatorCore, opts: { logger?: boolean } = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: opts.logger ?? false, bodyLimit: MAX_FILE_BYTES });
  await app.register(multipart, { limits: { fileSize: MAX_FILE_BYTES, files: 4, fields: 4 } });

  const handle =
    <P>(fn: (req: FastifyRequest<{ Params: P }>, apiKey: string) => Promise<unknown>) =>
    async (req: FastifyRequest<{ Params: P }>, reply: FastifyReply) => {
      const apiKey = apiKeyOf(req);
      if (!apiKey) return reply.status(401).send('');
      try {
        const result = await fn(req, apiKey);
        if (Buffer.isBuffer(result)) return reply.type('application/xml; charset=ISO-8859-1').send(result);
        return reply.type('application/json; charset=utf-8').send(JSON.stringify(result));
      } catch (e) {
        return sendFailure(reply, e, app.log);
      }
    };

  app.get(
    ROUTES.subscription,
    handle(async (_req, key) => core.subscription(key)),
  );
  app.post<{ Params: { tipo: string; cantidad: string } }>(
    '/api/folios/get/:tipo/:cantidad',
    handle<{ tipo: string; cantidad: string }>(async (req, key) => {
      const { input, files } = await readMultipart(req);
      return core.folios(key, input as never, intParam(req.params.tipo), intParam(req.params.cantidad), files[0]);
    }),
  );
  app.post<{ Params: { tipo: string; desde: string; hasta: string } }>(
    '/api/folios/anular/:tipo/:desde/:hasta',
    handle<{ tipo: string; desde: string; hasta: string }>(async (req, key) => {
      const { input, files } = await readMultipart(req);
      return core.annul(key, input as never, files[0], intParam(req.params.tipo), intParam(req.params.desde), intParam(req.params.hasta));
    }),
  );
  app.post(
    ROUTES.send,
    handle(async (req, key) => {
      const { input, files } = await readMultipart(req);
      return core.send(key, input as never, files[0], files[1]);
    }),
  );
  app.post(
    ROUTES.envioStatus,
    handle(async (req, key) => {
      const { input, files } = await readMultipart(req);
      return core.envioStatus(key, input as never, files[0]);
    }),
  );
  app.post(
    ROUTES.dteStatus,
    handle(async (req, key) => {
      const { input, files } = await readMultipart(req);
      return core.dteStatus(key, input as never, files[0]);
    }),
  );
  app.post(
    ROUTES.taxpayer,
    handle(async (req, key) => {
      const { input, files } = await readMultipart(req);
      return core.taxpayer(key, input as never, files[0]);
    }),
  );

  // Emulator-only helpers (not SimpleAPI): the key that signs its CAFs, and a liveness probe.
  app.get('/emulator/sii-public-key.pem', async (_req, reply) => reply.type('application/x-pem-file').send(core.siiKey.publicKeyPem));
  app.get('/emulator/health', async () => ({ ok: true, idk: core.siiKey.idk }));
  return app;
}
