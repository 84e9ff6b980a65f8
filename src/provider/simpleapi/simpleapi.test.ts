import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../port.ts';
import type { Pacer } from './pacing.ts';
import { createSimpleApiProvider } from './simpleapi.ts';

/**
 * The SimpleAPI adapter against a scripted HTTP server: what it sends (bare key, multipart
 * `input` + `files` with the .pfx first), how it maps SimpleAPI's failures, when it retries, and
 * that XML answers come back as the exact bytes.
 */
interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  input?: Record<string, unknown>;
  files: { name: string; type: string; bytes: Buffer }[];
}

type Script = (
  req: Seen,
  n: number,
) => { status: number; body?: string | Buffer; type?: string; delayMs?: number; headers?: Record<string, string> } | 'hangup';

let server: http.Server;
let base: string;
let script: Script = () => ({ status: 200, body: '[]' });
let seen: Seen[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const s: Seen = { method: req.method!, url: req.url!, authorization: req.headers.authorization, files: [] };
        if (req.method === 'POST') {
          const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': req.headers['content-type']! } }).formData();
          s.input = JSON.parse(String(form.get('input')));
          for (const f of form.getAll('files') as File[])
            s.files.push({ name: f.name, type: f.type, bytes: Buffer.from(await f.arrayBuffer()) });
        }
        seen.push(s);
        const a = script(s, seen.length);
        if (a === 'hangup') return req.socket.destroy();
        setTimeout(() => {
          res.writeHead(a.status, { 'content-type': a.type ?? 'application/json', ...a.headers });
          res.end(a.body ?? '');
        }, a.delayMs ?? 0);
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const provider = (over: { retries?: number; timeoutMs?: number } = {}) =>
  createSimpleApiProvider({
    apiBaseUrl: base,
    serviciosBaseUrl: `${base}/servicios`,
    timeoutMs: over.timeoutMs ?? 2000,
    retries: over.retries ?? 2,
    backoffBaseMs: 1,
  });

const pfx = Buffer.from([0x30, 0x82, 0x01, 0x00, 0xff, 0x00, 0x7f]);
const creds = { apiKey: 'k-123456789', pfx, pfxPassword: 'secreto-del-pfx', rutCertificado: '12345678-5' };
const uploadReq = { rutEmpresa: '76192083-9', envelope: Buffer.from('<EnvioDTE/>'), tipo: 'dte' as const, ambiente: 'produccion' as const };

const run = async (fn: () => Promise<unknown>, s: Script) => {
  script = s;
  seen = [];
  try {
    return { value: await fn(), error: undefined as ProviderError | undefined };
  } catch (e) {
    return { value: undefined, error: e as ProviderError };
  }
};

describe('simpleapi adapter', () => {
  it('sends the bare key, the input JSON and the .pfx first, then the document', async () => {
    const r = await run(
      () => provider().upload(creds, uploadReq),
      () => ({
        status: 200,
        body: JSON.stringify({ trackId: 42, estado: '0', ok: true, glosa: 'Upload OK', errores: null, responseXml: null }),
      }),
    );
    expect(r.error).toBeUndefined();
    expect(r.value).toMatchObject({ trackId: '42', estado: '0' });
    const s = seen[0]!;
    expect(s).toMatchObject({ method: 'POST', url: '/api/v1/envio/enviar', authorization: 'k-123456789' });
    expect(s.input).toEqual({ Certificado: { Rut: '12345678-5', Password: 'secreto-del-pfx' }, Ambiente: 1, Tipo: 1 });
    expect(s.files.map((f) => f.name)).toEqual(['certificado.pfx', 'envio-dte.xml']);
    expect(s.files[0]!.bytes.equals(pfx)).toBe(true);
    expect(s.files[1]!.bytes.toString()).toBe('<EnvioDTE/>');
  });

  it('asks for CAFs on the servicios host and keeps the ISO-8859-1 bytes as received', async () => {
    const caf = Buffer.from('<?xml version="1.0"?><AUTORIZACION><CAF><DA><RS>PEÑA</RS></DA></CAF></AUTORIZACION>', 'latin1');
    const r = await run(
      () => provider().requestCaf(creds, { rutEmpresa: '76192083-9', tipoDte: 33, cantidad: 10, ambiente: 'certificacion' }),
      () => ({ status: 200, body: caf, type: 'application/xml' }),
    );
    expect(seen[0]).toMatchObject({ url: '/servicios/api/folios/get/33/10' });
    expect(seen[0]!.input).toEqual({ RutCertificado: '12345678-5', Password: 'secreto-del-pfx', RutEmpresa: '76192083-9', Ambiente: 0 });
    expect((r.value as { cafXml: Buffer }).cafXml.equals(caf)).toBe(true);
  });

  it("maps SimpleAPI's published failures: empty 401, Apikey vencida, subscription limit, 429, SII down, refusals", async () => {
    const cases: [Script, string][] = [
      [() => ({ status: 401 }), 'invalid_api_key'],
      [() => ({ status: 401, body: '{"error":"Apikey vencida. No es posible continuar"}' }), 'expired_api_key'],
      [() => ({ status: 401, body: '{"Mensaje":"API KEY Incorrecta. No es posible continuar"}' }), 'invalid_api_key'],
      [() => ({ status: 401, body: '{"Mensaje":"Límite de la suscripción alcanzado"}' }), 'quota_exhausted'],
      [() => ({ status: 429, body: 'API calls quota exceeded! maximum admitted 3 per 1s.', type: 'text/plain' }), 'rate_limited'],
      [() => ({ status: 400, body: '{"mensaje":"El SII no está disponible. Intenta más tarde."}' }), 'unavailable'],
      [() => ({ status: 400, body: '{"Mensaje":"Cantidad solicitada supera lo permitido"}' }), 'rejected'],
      [() => ({ status: 500, body: 'boom' }), 'unavailable'],
    ];
    for (const [s, kind] of cases) {
      const r = await run(() => provider({ retries: 0 }).verifyApiKey('k-123456789'), s);
      expect(r.error, kind).toBeInstanceOf(ProviderError);
      expect(r.error!.kind, JSON.stringify(s(seen[0]!, 1))).toBe(kind);
    }
  });

  it('tells a refused certificate from a refused key: an empty 401 is checked against the subscription status', async () => {
    const cert = await run(
      () => provider({ retries: 0 }).upload(creds, uploadReq),
      (req) => (req.url === '/api/v1/suscripcion/status' ? { status: 200, body: '[]' } : { status: 401 }),
    );
    expect(cert.error).toMatchObject({ kind: 'certificate_rejected' });
    expect(seen.map((x) => x.url)).toEqual(['/api/v1/envio/enviar', '/api/v1/suscripcion/status']);
    const key = await run(
      () => provider({ retries: 0 }).upload(creds, uploadReq),
      () => ({ status: 401 }),
    );
    expect(key.error).toMatchObject({ kind: 'invalid_api_key' });
  });

  it('waits out a 429 through the pacer and makes the call again; never a failure', async () => {
    const blocks: number[] = [];
    const acquired: string[] = [];
    const pacer: Pacer = {
      acquire: async (_k, host) => void acquired.push(host),
      block: async (_k, _h, waitMs) => void blocks.push(waitMs),
    };
    const p = createSimpleApiProvider({ apiBaseUrl: base, serviciosBaseUrl: `${base}/servicios`, timeoutMs: 2000, retries: 0, pacer });
    const r = await run(
      () => p.requestCaf(creds, { rutEmpresa: '76192083-9', tipoDte: 33, cantidad: 1, ambiente: 'certificacion' }),
      (_req, n) =>
        n === 1
          ? {
              status: 429,
              body: 'API calls quota exceeded! maximum admitted 1 per 1s.',
              type: 'text/plain',
              headers: { 'retry-after': '2' },
            }
          : { status: 200, body: '<?xml version="1.0"?>\n<AUTORIZACION>\n</AUTORIZACION>', type: 'application/xml' },
    );
    expect(r.error).toBeUndefined();
    expect(seen.length).toBe(2);
    expect(acquired).toEqual(['servicios', 'servicios']);
    expect(blocks.length).toBe(1);
    expect(blocks[0]).toBeGreaterThan(1500);
    expect(blocks[0]).toBeLessThanOrEqual(2000);
  });

  it('takes a pacing slot for every attempt, retries included', async () => {
    const acquired: string[] = [];
    const pacer: Pacer = { acquire: async (_k, host) => void acquired.push(host), block: async () => {} };
    const p = createSimpleApiProvider({ apiBaseUrl: base, serviciosBaseUrl: `${base}/servicios`, timeoutMs: 2000, retries: 2, pacer });
    const r = await run(
      () => p.verifyApiKey('k-123456789'),
      (_r, n) => (n < 3 ? { status: 503 } : { status: 200, body: '[]' }),
    );
    expect(r.error).toBeUndefined();
    expect(seen.length).toBe(3);
    expect(acquired).toEqual(['api', 'api', 'api']);
  });

  it('retries transient failures of queries with backoff, and gives up after the configured retries', async () => {
    const ok = await run(
      () => provider({ retries: 2 }).verifyApiKey('k-123456789'),
      (_r, n) => (n < 3 ? { status: 503 } : { status: 200, body: '[{"servicio":"dte","uso":1,"maximo":10}]' }),
    );
    expect(seen.length).toBe(3);
    expect(ok.value).toEqual({ quota: [{ servicio: 'dte', uso: 1, maximo: 10 }] });
    // Only D9 gives the body's shape: any other JSON from a 2xx still proves the key.
    const otherShape = await run(
      () => provider({ retries: 0 }).verifyApiKey('k-123456789'),
      () => ({ status: 200, body: '{"plan":"pyme","estado":"activa"}' }),
    );
    expect(otherShape.value).toEqual({ quota: [] });
    const down = await run(
      () => provider({ retries: 2 }).verifyApiKey('k-123456789'),
      () => ({ status: 502 }),
    );
    expect(seen.length).toBe(3);
    expect(down.error!.kind).toBe('unavailable');
    const timeout = await run(
      () => provider({ retries: 1, timeoutMs: 600 }).verifyApiKey('k-123456789'),
      () => ({ status: 200, body: '[]', delayMs: 1_500 }),
    );
    expect(timeout.error!.kind).toBe('timeout');
    expect(seen.length).toBe(2);
  });

  it('does not repeat an upload that may have been received (timeout, broken connection, 500), but does after a 503', async () => {
    const slow = await run(
      () => provider({ retries: 3, timeoutMs: 600 }).upload(creds, uploadReq),
      () => ({ status: 200, body: '{}', delayMs: 1_500 }),
    );
    expect(slow.error!.kind).toBe('timeout');
    expect(seen.length).toBe(1);
    const cut = await run(
      () => provider({ retries: 3 }).upload(creds, uploadReq),
      () => 'hangup',
    );
    expect(cut.error!.kind).toBe('unavailable');
    expect(seen.length).toBe(1);
    const err = await run(
      () => provider({ retries: 3 }).upload(creds, uploadReq),
      () => ({ status: 500 }),
    );
    expect(err.error!.kind).toBe('unavailable');
    expect(seen.length).toBe(1);
    const busy = await run(
      () => provider({ retries: 3 }).upload(creds, uploadReq),
      (_r, n) =>
        n === 1
          ? { status: 503 }
          : { status: 200, body: JSON.stringify({ trackId: 7, estado: 'REC', ok: true, glosa: '', errores: null, responseXml: null }) },
    );
    expect(busy.value).toMatchObject({ trackId: '7' });
    expect(seen.length).toBe(2);
  });

  it('retries an unreachable provider (the request never left) and reports it as unavailable', async () => {
    const dead = createSimpleApiProvider({
      apiBaseUrl: 'http://127.0.0.1:9',
      serviciosBaseUrl: 'http://127.0.0.1:9',
      timeoutMs: 1000,
      retries: 2,
      backoffBaseMs: 1,
    });
    await expect(dead.upload(creds, uploadReq)).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('never puts the password or the key in an error message', async () => {
    const r = await run(
      () => provider({ retries: 0 }).upload(creds, uploadReq),
      () => ({ status: 400, body: 'Password secreto-del-pfx no válida para k-123456789' }),
    );
    expect(r.error!.message).toContain('[redacted]');
    expect(r.error!.message).not.toContain('secreto-del-pfx');
    expect(r.error!.message).not.toContain('k-123456789');
  });

  it('reports an upload the SII refused (400, trackId -999999, errores a single string) as a rejection with its reason', async () => {
    const r = await run(
      () => provider().upload(creds, uploadReq),
      () => ({
        status: 400,
        body: JSON.stringify({
          rutEnvia: '12345678-5',
          rutEmpresa: '76192083-9',
          file: null,
          fecha: '2025-06-06T10:00:00',
          estado: '7',
          ok: false,
          glosa: 'Error en el envío',
          errores: 'Esquema inválido',
          trackId: -999999,
          responseXml: null,
        }),
      }),
    );
    expect(r.error).toMatchObject({ kind: 'rejected' });
    expect(r.error!.message).toContain('Error en el envío: Esquema inválido');
    expect(seen.length).toBe(1);
  });

  it('reads boleta envelopes by their detalles (only reparos and rejections are listed)', async () => {
    const st = await run(
      () => provider().uploadStatus(creds, { rutEmpresa: '76192083-9', trackId: '9', tipo: 'boleta', ambiente: 'produccion' }),
      () => ({
        status: 200,
        body: JSON.stringify({
          rutEmisor: '76192083-9',
          rutEnvia: '12345678-5',
          trackId: 9,
          fechaRecepcion: '10/04/2025 00:36:20',
          estado: 'EPR',
          response: null,
          estadistica: [{ tipo: 39, informados: 2, aceptados: 1, rechazados: 1, reparos: 0 }],
          detalles: [
            {
              tipo: 39,
              folio: 5,
              estado: 'RCH',
              descripcion: 'DTE Rechazado',
              errores: [{ seccion: 'DTE', linea: 0, nivel: 3, codigo: 100, descripcion: 'DTE Repetido', detalle: null }],
            },
          ],
          errores: '',
        }),
      }),
    );
    expect(seen[0]!.input).toMatchObject({ TrackId: 9, ServidorBoletaREST: true, RutEmpresa: '76192083-9' });
    expect(st.value).toMatchObject({
      final: true,
      estado: 'EPR',
      documentsListed: true,
      documents: [{ tipoDte: 39, folio: 5, status: 'rejected', estado: 'RCH', glosa: 'DTE-3-100 DTE Repetido' }],
      estadistica: [{ tipoDte: 39, informados: 2, aceptados: 1, rechazados: 1, reparos: 0 }],
    });
  });
});
