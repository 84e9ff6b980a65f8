import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../port.ts';
import { createSimpleApiProvider } from './simpleapi.ts';

/**
 * Contract tests: the responses SimpleAPI really gave, as recorded in its own published Postman
 * collection (test/fixtures/simpleapi/recorded.json, with the source of each), replayed against
 * the adapter — one test per route and per recorded answer. The requests the adapter makes are
 * compared with the recorded requests too (route, method, multipart parts, input field names).
 */
interface Recorded {
  route: string;
  case: string;
  source: string;
  input: Record<string, unknown> | string | null;
  status: number;
  headers: Record<string, string>;
  body: string;
}

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/simpleapi/recorded.json');
const recorded: Recorded[] = JSON.parse(fs.readFileSync(FIXTURES, 'utf8'));
const fixture = (route: string, name: string): Recorded => {
  const r = recorded.find((x) => x.route === route && x.case === name);
  if (!r) throw new Error(`no recorded answer ${route} / ${name}`);
  return r;
};

interface Sent {
  method: string;
  url: URL;
  authorization: string | null;
  input: Record<string, unknown> | undefined;
  parts: string[];
}

/** The adapter over a fetch that answers with a recorded response and keeps what was sent. */
function replay(r: Recorded) {
  const sent: Sent[] = [];
  const fetchStub: typeof fetch = async (input, init) => {
    const req = new Request(input, init);
    let body: Record<string, unknown> | undefined;
    const parts: string[] = [];
    if (req.method === 'POST') {
      const form = await req.formData();
      for (const [name] of form.entries()) parts.push(name);
      body = JSON.parse(String(form.get('input')));
    }
    sent.push({ method: req.method, url: new URL(req.url), authorization: req.headers.get('authorization'), input: body, parts });
    return new Response(r.body, { status: r.status, headers: r.headers });
  };
  const provider = createSimpleApiProvider({
    apiBaseUrl: 'https://api.simpleapi.test',
    serviciosBaseUrl: 'https://servicios.simpleapi.test',
    timeoutMs: 5_000,
    retries: 0,
    fetch: fetchStub,
  });
  return { provider, sent };
}

const creds = { apiKey: 'XXXX-XXXX-XXXX-XXXX-XXXX', pfx: Buffer.from('pfx'), pfxPassword: 'clave', rutCertificado: '17096073-4' };
const base = { rutEmpresa: '76269769-6', ambiente: 'certificacion' as const };

/** The input field names we send equal the recorded request's (the newest form, `Certificado`). */
const sameFields = (ours: Record<string, unknown> | undefined, theirs: Recorded['input']) => {
  expect(typeof theirs).toBe('object');
  expect(Object.keys(ours ?? {}).sort()).toEqual(Object.keys(theirs as object).sort());
};

const caught = async (p: Promise<unknown>) => p.then(() => undefined).catch((e: unknown) => e as ProviderError);

describe('SimpleAPI contract: envio/enviar', () => {
  it('EnvioDTE: trackId as a number, estado "0", "Upload OK"', async () => {
    const r = fixture('send', 'Enviar EnvioDTE');
    const { provider, sent } = replay(r);
    const up = await provider.upload(creds, { ...base, envelope: Buffer.from('<EnvioDTE/>'), tipo: 'dte' });
    expect(up).toMatchObject({ trackId: '183061986', estado: '0', glosa: 'Upload OK' });
    expect(sent[0]).toMatchObject({ method: 'POST', authorization: creds.apiKey, parts: ['input', 'files', 'files'] });
    expect(sent[0]!.url.pathname).toBe('/api/v1/envio/enviar');
    sameFields(sent[0]!.input, r.input);
    expect(sent[0]!.input).toMatchObject({ Tipo: 1, Ambiente: 0 });
  });

  it('EnvioBOLETA: estado "REC", empty glosa, errores null', async () => {
    const r = fixture('send', 'Enviar EnvioBoleta');
    const { provider, sent } = replay(r);
    const up = await provider.upload(creds, { ...base, envelope: Buffer.from('<EnvioBOLETA/>'), tipo: 'boleta' });
    expect(up).toMatchObject({ trackId: '21340555', estado: 'REC' });
    expect(sent[0]!.input).toMatchObject({ Tipo: 2 });
  });

  it('a 400 text/plain (wrong Tipo) is a refusal that quotes the provider', async () => {
    const { provider } = replay(fixture('send', 'Erro en el tipo de envío'));
    const e = await caught(provider.upload(creds, { ...base, envelope: Buffer.from('<x/>'), tipo: 'dte' }));
    expect(e).toBeInstanceOf(ProviderError);
    expect(e).toMatchObject({ kind: 'rejected' });
    expect(e!.message).toContain('Tipo incorrecto. 1.EnvioDTE - 2.EnvioBoleta.');
  });
});

describe('SimpleAPI contract: consulta/envio', () => {
  const ask = (r: Recorded, tipo: 'dte' | 'boleta') => {
    const { provider, sent } = replay(r);
    return { sent, result: provider.uploadStatus(creds, { ...base, trackId: '183060352', tipo }) };
  };

  it('EnvioDTE processed: counts per type only, final, no per-document detail', async () => {
    const r = fixture('envioStatus', 'Consulta Exitosa');
    const { sent, result } = ask(r, 'dte');
    expect(await result).toMatchObject({
      trackId: '183060352',
      estado: 'EPR',
      glosa: 'Envio Procesado',
      final: true,
      estadistica: [{ tipoDte: 33, informados: 1, aceptados: 1, rechazados: 0, reparos: 0 }],
      documents: [],
      documentsListed: false,
    });
    expect(sent[0]!.url.pathname).toBe('/api/v1/consulta/envio');
    sameFields(sent[0]!.input, r.input);
    expect(sent[0]!.input).toMatchObject({ TrackId: 183060352, ServidorBoletaREST: false });
  });

  it('EnvioBOLETA processed: estadistica, and detalles only for rejections and reparos', async () => {
    expect(await ask(fixture('envioStatus', 'Consulta Exitosa Boleta'), 'boleta').result).toMatchObject({
      estado: 'EPR',
      final: true,
      estadistica: [{ tipoDte: 39, informados: 1, aceptados: 1 }],
      documents: [],
      documentsListed: true,
    });
    const rejected = await ask(fixture('envioStatus', 'Envio con boletas rechazadas'), 'boleta').result;
    expect(rejected.documents).toEqual([
      expect.objectContaining({ tipoDte: 39, folio: 36984, status: 'rejected', estado: 'RCH' }),
      expect.objectContaining({ tipoDte: 39, folio: 36983, status: 'rejected', estado: 'RCH' }),
    ]);
    expect(rejected.documents[0]!.glosa).toBe('DTE-3-100 DTE Repetido (TipDoc, Folio, FchEmis, IVA, MntTot, RUTRecep)');
    const reparo = await ask(fixture('envioStatus', 'Envio con boletas aceptado con reparo'), 'boleta').result;
    expect(reparo.documents).toEqual([expect.objectContaining({ folio: 37882, status: 'accepted_with_objections', estado: 'RPR' })]);
    expect(reparo.documents[0]!.glosa).toContain('HED-2-260 REPARO- Monto Total No Cuadra con Parciales (Total -> [216590]');
  });

  it('failed queries are never final: SII internal error, no permission (SII, company)', async () => {
    const internal = await ask(fixture('envioStatus', 'Error interno SII'), 'dte').result;
    expect(internal).toMatchObject({ final: false, estado: '' });
    const company = await ask(fixture('envioStatus', 'Usuario sin permiso en empresa'), 'dte').result;
    expect(company).toMatchObject({ final: false, estado: '106', glosa: 'Usuario no tiene permiso en empresa' });
    const sii = await ask(fixture('envioStatus', 'Usuario sin permiso en el SII'), 'boleta').result;
    expect(sii).toMatchObject({ final: false, estado: '', glosa: 'Error de Permiso', documents: [] });
  });
});

describe('SimpleAPI contract: consulta/dte', () => {
  const ask = (r: Recorded, tipoDte: number) => {
    const { provider, sent } = replay(r);
    const result = provider.documentStatus(creds, {
      ...base,
      tipoDte,
      folio: 1358,
      rutReceptor: '76596827-5',
      fechaEmision: '2023-04-13',
      montoTotal: 29000,
    });
    return { sent, result };
  };

  it('DOK: state and glosaEstado, with the GLOSA_ERR found inside responseXml', async () => {
    const r = fixture('dteStatus', 'Consulta Exitosa');
    const { sent, result } = ask(r, 33);
    expect(await result).toEqual({
      estado: 'DOK',
      glosa: 'DTE Recibido: Documento Recibido por el SII. Datos Coinciden con los Registrados',
    });
    expect(sent[0]!.url.pathname).toBe('/api/v1/consulta/dte');
    sameFields(sent[0]!.input, r.input);
    expect(sent[0]!.input).toMatchObject({ FechaDTE: '2023-04-13', Folio: 1358, Total: 29000, Tipo: 33, ServidorBoletaREST: false });
  });

  it('FAN: an annulled document', async () => {
    expect(await ask(fixture('dteStatus', 'DTE no recibido'), 33).result).toEqual({
      estado: 'FAN',
      glosa: 'DTE No Recibido: Documento Anulado',
    });
  });

  it('boletas answer in codigo/descripcion with estado null', async () => {
    const { sent, result } = ask(fixture('dteStatus', 'Boleta no recibida'), 39);
    expect(await result).toEqual({ estado: 'FAU', glosa: 'Documento No Recibido por el SII' });
    expect(sent[0]!.input).toMatchObject({ ServidorBoletaREST: true });
  });
});

describe('SimpleAPI contract: folios (servicios host)', () => {
  it('get: the re-indented CAF, bytes as received', async () => {
    const r = fixture('folios', 'Exito');
    const { provider, sent } = replay(r);
    const { cafXml } = await provider.requestCaf(creds, { ...base, tipoDte: 33, cantidad: 1 });
    expect(cafXml.toString('latin1')).toBe(r.body);
    expect(sent[0]!.url.host).toBe('servicios.simpleapi.test');
    expect(sent[0]!.url.pathname).toBe('/api/folios/get/33/1');
    expect(sent[0]!.parts).toEqual(['input', 'files']);
    sameFields(sent[0]!.input, r.input);
  });

  it('anulacion: success entries are success', async () => {
    const r = fixture('annul', 'Exito');
    const { provider, sent } = replay(r);
    const a = await provider.annulFolios(creds, { ...base, tipoDte: 33, desde: 486, hasta: 487 });
    expect(a.ok).toBe(true);
    expect(a.glosa).toContain('ha autorizado la anulación del documento FACTURA ELECTRONICA');
    expect(sent[0]!.url.pathname).toBe('/api/folios/anulacion/33/486/487');
    sameFields(sent[0]!.input, r.input);
  });

  it('anulacion 400: "ya ha sido efectuado anteriormente" is success; "recepcionado" is a refusal', async () => {
    const r = fixture('annul', 'Error de anulación');
    const mixed = await replay(r).provider.annulFolios(creds, { ...base, tipoDte: 33, desde: 410, hasta: 415 });
    expect(mixed.ok).toBe(false);
    expect(mixed.glosa).toContain('al menos un folio ha sido recepcionado por el SII');
    expect(mixed.glosa).not.toContain('ya ha sido efectuado');
    const entries = JSON.parse(r.body) as { mensaje: string }[];
    const onlyRepeated = { ...r, body: JSON.stringify([entries[0]]) };
    const repeated = await replay(onlyRepeated).provider.annulFolios(creds, { ...base, tipoDte: 33, desde: 414, hasta: 415 });
    expect(repeated.ok).toBe(true);
    // The same answer to a larger request (414–416, e.g. a run that grew after a timeout): the SII
    // names 414–415 only, so 416 is not proven annulled and nothing is recorded.
    const grown = await replay(onlyRepeated).provider.annulFolios(creds, { ...base, tipoDte: 33, desde: 414, hasta: 416 });
    expect(grown.ok).toBe(false);
    expect(grown.glosa).toContain('ya ha sido efectuado anteriormente');
  });
});

describe('SimpleAPI contract: compras/aceptacionreclamo', () => {
  const ask = (r: Recorded, accion: 'ACD' | 'ERM') => {
    const { provider, sent } = replay(r);
    const result = provider.registerAcceptance(creds, {
      rutEmisor: '80134800-9',
      tipoDte: 33,
      folio: 21495,
      accion,
      ambiente: 'produccion',
    });
    return { sent, result };
  };

  it('code 0: registered, on the DTE host, with the recorded input fields', async () => {
    const r = fixture('acceptance', 'Exito');
    const { sent, result } = ask(r, 'ACD');
    expect(await result).toMatchObject({ outcome: 'registered', codigo: 0, descripcion: 'Accion Completada OK' });
    expect(sent[0]).toMatchObject({ method: 'POST', authorization: creds.apiKey, parts: ['input', 'files'] });
    expect(sent[0]!.url.host).toBe('api.simpleapi.test');
    expect(sent[0]!.url.pathname).toBe('/api/v1/compras/aceptacionreclamo');
    sameFields(sent[0]!.input, r.input);
    expect(sent[0]!.input).toEqual({
      Certificado: { Rut: '17096073-4', Password: 'clave' },
      Tipo: 33,
      Folio: 21495,
      Accion: 'ACD',
      RutEmpresa: '80134800-9',
      Ambiente: 1,
    });
  });

  it('code 9 (HTTP 200): a refusal with the SII code and words, not an error', async () => {
    const r = fixture('acceptance', 'No ha registrado Aceptación Previa o los datos no coinciden');
    expect(await ask(r, 'ERM').result).toMatchObject({
      outcome: 'refused',
      codigo: 9,
      descripcion: 'No existen registros de acuerdo a los parametros ingresados',
    });
  });
});
