import type { FastifyInstance } from 'fastify';
import { buildDte, buildEnvelope, parseCaf, type Caf, type DteInput, type TipoDte } from '../../dte/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { sampleDteInput } from '../../../test/support/dte/fixtures.ts';
import { createTestCertificate, type TestCertificate } from '../../../test/support/dte/test-certificate.ts';
import { createEmulatorCore, type EmulatorCore, type EmulatorCoreOptions } from './emulator.ts';
import { buildEmulatorServer } from './server.ts';

/**
 * Test support for the emulator's SimpleAPI face: raw calls through its HTTP routes (Fastify
 * inject; no adapter in between, so the tests see exactly what production's clients would), and an
 * issuer that builds real signed documents and envelopes against it.
 */
export interface Answer {
  status: number;
  /** Content-Type as sent ('' when none). */
  type: string;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
  json<T = unknown>(): T;
}

export type FileArg = Buffer | { data: Buffer; filename: string };

export interface CallOptions {
  /** The bare key (default 'sandbox-key-ok'); `auth` overrides the whole Authorization header. */
  key?: string;
  auth?: string | null;
  input?: unknown;
  /** Raw `input` text (to send something that is not JSON). */
  inputText?: string;
  files?: FileArg[];
}

export async function multipart(o: CallOptions): Promise<{ payload: Buffer; contentType: string }> {
  const fd = new FormData();
  if (o.inputText !== undefined) fd.append('input', o.inputText);
  else if (o.input !== undefined) fd.append('input', JSON.stringify(o.input));
  (o.files ?? []).forEach((f, i) => {
    const file = Buffer.isBuffer(f) ? { data: f, filename: `file${i}` } : f;
    fd.append(i === 0 ? 'files' : `files${i + 1}`, new Blob([new Uint8Array(file.data)]), file.filename);
  });
  const r = new Response(fd);
  return { payload: Buffer.from(await r.arrayBuffer()), contentType: r.headers.get('content-type')! };
}

export async function callEmulator(app: FastifyInstance, method: 'GET' | 'POST', url: string, o: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const auth = o.auth === undefined ? (o.key ?? 'sandbox-key-ok') : o.auth;
  if (auth !== null) headers.authorization = auth;
  let payload: Buffer | undefined;
  if (method === 'POST') {
    const m = await multipart(o);
    payload = m.payload;
    headers['content-type'] = m.contentType;
  }
  const r = await app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  const body = r.rawPayload;
  const outHeaders = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
  return {
    status: r.statusCode,
    type: outHeaders['content-type'] ?? '',
    headers: outHeaders,
    body,
    text: body.toString('utf8'),
    json: <T>() => JSON.parse(body.toString('utf8')) as T,
  };
}

export interface Harness {
  core: EmulatorCore;
  app: FastifyInstance;
  call(method: 'GET' | 'POST', url: string, o?: CallOptions): Promise<Answer>;
  close(): Promise<void>;
}

export async function emulatorHarness(opts: EmulatorCoreOptions): Promise<Harness> {
  const core = createEmulatorCore(opts);
  const app = await buildEmulatorServer(core);
  await app.ready();
  return { core, app, call: (m, u, o) => callEmulator(app, m, u, o), close: () => app.close() };
}

export const RUT = '76192083-9';
export const PASSWORD = 'clave-del-pfx';

/** A company with its certificate, talking to one emulator through raw SimpleAPI calls. */
export function issuer(h: () => Harness, clock: Clock, opts: { rut?: string; cert?: TestCertificate } = {}) {
  const rut = opts.rut ?? RUT;
  const cert = opts.cert ?? createTestCertificate({ rut: '12345678-5', commonName: 'Firmante de Prueba' });
  const pfx = cert.toPfx(PASSWORD);
  const foliosInput = (over: Record<string, unknown> = {}) => ({
    RutCertificado: cert.rut,
    Password: PASSWORD,
    RutEmpresa: rut,
    Ambiente: 0,
    ...over,
  });
  const certificado = { Rut: cert.rut, Password: PASSWORD };
  const day = () => clock.now().toISOString().slice(0, 10);
  return {
    rut,
    cert,
    pfx,
    foliosInput,
    certificado,
    async caf(tipoDte: number, cantidad = 10, key?: string): Promise<Caf> {
      const a = await h().call('POST', `/api/folios/get/${tipoDte}/${cantidad}`, {
        input: foliosInput(),
        files: [pfx],
        ...(key ? { key } : {}),
      });
      if (a.status !== 200) throw new Error(`folios answered ${a.status}: ${a.text}`);
      return parseCaf(a.body);
    },
    input: (tipoDte: TipoDte, folio: number, over: Partial<DteInput> = {}) =>
      sampleDteInput(tipoDte, folio, { fechaEmision: day(), ...over }),
    build: (c: Caf, inp: DteInput) => buildDte(inp, { caf: c, signer: cert.signer, now: clock.now() }),
    envelope: (dtes: Buffer[], over: Partial<Parameters<typeof buildEnvelope>[0]> = {}) =>
      buildEnvelope({
        dtes,
        rutEmisor: rut,
        fechaResolucion: '2014-08-22',
        numeroResolucion: 80,
        signer: cert.signer,
        now: clock.now(),
        ...over,
      }).xml,
    send: (envelope: Buffer, tipo: number, o: CallOptions = {}) =>
      h().call('POST', '/api/v1/envio/enviar', {
        input: { Certificado: certificado, Ambiente: 0, Tipo: tipo },
        files: [pfx, { data: envelope, filename: tipo === 2 ? 'ENVIO_BOLETA.xml' : 'ENVIO_DTE.xml' }],
        ...o,
      }),
    envioStatus: (trackId: number, boleta: boolean, over: Record<string, unknown> = {}, o: CallOptions = {}) =>
      h().call('POST', '/api/v1/consulta/envio', {
        input: { Certificado: certificado, RutEmpresa: rut, TrackId: trackId, Ambiente: 0, ServidorBoletaREST: boleta, ...over },
        files: [pfx],
        ...o,
      }),
    dteStatus: (
      q: { tipo: number; folio: number; total: number; fecha?: string; receptor?: string; boleta?: boolean },
      o: CallOptions = {},
    ) =>
      h().call('POST', '/api/v1/consulta/dte', {
        input: {
          Certificado: certificado,
          RutEmpresa: rut,
          RutReceptor: q.receptor ?? '77777777-7',
          Folio: q.folio,
          Total: q.total,
          FechaDTE: q.fecha ?? day(),
          Tipo: q.tipo,
          Ambiente: 0,
          ServidorBoletaREST: q.boleta ?? false,
        },
        files: [pfx],
        ...o,
      }),
    annul: (tipoDte: number, desde: number, hasta: number, o: CallOptions = {}) =>
      h().call('POST', `/api/folios/anulacion/${tipoDte}/${desde}/${hasta}`, {
        input: foliosInput({ MotivoAnulacion: 'Prueba' }),
        files: [pfx],
        ...o,
      }),
  };
}

/** Keys of a JSON value, recursively (arrays by their first element): `a`, `a.b`, `a[].c`. */
export function keyPaths(v: unknown, prefix = ''): string[] {
  if (Array.isArray(v)) return v.length > 0 ? keyPaths(v[0], `${prefix}[]`) : [];
  if (v && typeof v === 'object') {
    return Object.entries(v).flatMap(([k, x]) => [prefix ? `${prefix}.${k}` : k, ...keyPaths(x, prefix ? `${prefix}.${k}` : k)]);
  }
  return [];
}
