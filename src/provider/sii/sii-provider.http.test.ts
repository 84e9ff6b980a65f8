import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caf, DetalleInput } from '../../dte/index.ts';
import { createTestCertificate } from '../../../test/support/dte/test-certificate.ts';
import { describeEachDb, openTestDb } from '../../../test/support/db.ts';
import { manualClock } from '../../lib/clock.ts';
import { callEmulator, issuer, RUT, type Harness } from '../emulator/http.test-support.ts';
import { createInProcessEmulator } from '../emulator/inprocess.ts';
import { SII_TOKEN_TTL_MS } from '../emulator/sii/auth.ts';
import { startSiiEmulator, tenantCredentials, type SiiEmulator } from '../emulator/sii/sii.test-support.ts';
import { ephemeralSiiKey } from '../emulator/sii-key.ts';
import { schemaValidatorFrom } from '../emulator/schemas.ts';
import { ProviderError, type ProviderCredentials } from '../port.ts';
import { SII_USER_AGENT } from './context.ts';
import { multipartBody } from './multipart.ts';
import { createSiiProvider, type SiiProvider } from './sii-provider.ts';

const AMB = 'certificacion' as const;
const sixtyLines: DetalleInput[] = Array.from({ length: 60 }, (_, i) => ({
  nombre: `Artículo número ${i + 1} del pedido`,
  cantidad: (i % 7) + 1,
  precioUnitario: 1000 + i * 37,
}));

describeEachDb('the SII adapter against the emulator over HTTP', (backend) => {
  let emu: SiiEmulator;
  let sii: SiiProvider;
  let caf: Caf;
  let folio: number;
  const { cert, creds: siiCreds } = tenantCredentials();
  const creds: ProviderCredentials = { apiKey: '', ...siiCreds };
  const harness = (): Harness => ({
    core: emu.core,
    app: emu.app,
    call: (m, u, o) => callEmulator(emu.app, m, u, o),
    close: () => emu.close(),
  });
  const co = issuer(harness, { now: () => emu.clock.now() }, { cert });
  const day = () => emu.clock.now().toISOString().slice(0, 10);

  const envelopeOf = (tipo: 33 | 34, over: Parameters<typeof co.input>[2] = {}) => {
    const f = folio++;
    const inp = co.input(tipo, f, over);
    const dte = co.build(caf, inp);
    return { folio: f, envelope: co.envelope([dte.xml]), montoTotal: dte.totals?.montoTotal };
  };

  beforeAll(async () => {
    emu = await startSiiEmulator(backend);
    sii = createSiiProvider({ baseUrl: emu.baseUrl, timeoutMs: 20_000, sleep: async () => {} });
    caf = await co.caf(33, 50);
    folio = caf.desde;
  });
  afterAll(async () => emu.close());

  it('uploads a 60-line factura, sees it accepted, and uses one token for every call', async () => {
    const { envelope, folio: f } = envelopeOf(33, { detalle: sixtyLines });
    expect(envelope.toString('latin1').split('\n').length).toBeGreaterThan(60 * 5);
    const up = await sii.upload(creds, { rutEmpresa: RUT, envelope, tipo: 'dte', ambiente: AMB });
    expect(up).toMatchObject({ estado: '0', glosa: 'Upload OK' });
    expect(up.trackId).toMatch(/^\d+$/);
    expect(up.raw?.toString('latin1')).toContain('<STATUS>0</STATUS>');

    const st = await sii.uploadStatus(creds, { rutEmpresa: RUT, trackId: up.trackId, tipo: 'dte', ambiente: AMB });
    expect(st).toMatchObject({
      trackId: up.trackId,
      estado: 'EPR',
      glosa: 'Envio Procesado',
      final: true,
      estadistica: [{ tipoDte: 33, informados: 1, aceptados: 1, rechazados: 0, reparos: 0 }],
      documents: [],
      documentsListed: false,
    });
    const doc = await emu.core.db.query<{ monto_total: string }>('select monto_total from emu_documents where folio = $1', [f]);
    const monto = Number(doc.rows[0]!.monto_total);
    const state = await sii.documentStatus(creds, {
      rutEmpresa: RUT,
      tipoDte: 33,
      folio: f,
      rutReceptor: '77777777-7',
      fechaEmision: day(),
      montoTotal: monto,
      ambiente: AMB,
    });
    expect(state.estado).toBe('DOK');
    expect(state.glosa).toContain('DTE Recibido');
    const other = await sii.documentStatus(creds, {
      rutEmpresa: RUT,
      tipoDte: 33,
      folio: f,
      rutReceptor: '77777777-7',
      fechaEmision: day(),
      montoTotal: monto + 1,
      ambiente: AMB,
    });
    expect(other.estado).toBe('DNK');

    for (let i = 0; i < 10; i++) {
      expect((await sii.uploadStatus(creds, { rutEmpresa: RUT, trackId: up.trackId, tipo: 'dte', ambiente: AMB })).estado).toBe('EPR');
    }
    expect(sii.tokens.fetched()).toEqual({ soap: 1, rest: 0 });
    const stats = emu.core.stats().sii;
    expect(stats.tokensIssued.soap).toBe(1);
    expect(stats.routes.DTEUpload?.total).toBe(1);
    expect(stats.routes.QueryEstUp?.total).toBe(11);
    expect(stats.routes.QueryEstDte?.total).toBe(2);
    // Not SimpleAPI calls.
    expect(emu.core.stats().routes.unknown).toBeUndefined();
  });

  it('answers a repeated file with STATUS 99 and the first track id', async () => {
    const { envelope } = envelopeOf(33);
    const first = await sii.upload(creds, { rutEmpresa: RUT, envelope, tipo: 'dte', ambiente: AMB });
    const again = await sii.upload(creds, { rutEmpresa: RUT, envelope, tipo: 'dte', ambiente: AMB });
    expect(again.trackId).toBe(first.trackId);
    expect(again.estado).toBe('99');
    expect(again.glosa).toMatch(new RegExp(`Archivo ya fue enviado 2 veces con Trackid ${first.trackId}\\. Debe esperar 900 segundos`));
    // The first reception stands, unchanged.
    const st = await sii.uploadStatus(creds, { rutEmpresa: RUT, trackId: first.trackId, tipo: 'dte', ambiente: AMB });
    expect(st.estadistica).toEqual([{ tipoDte: 33, informados: 1, aceptados: 1, rechazados: 0, reparos: 0 }]);
  });

  it('finds a rejected document with QueryEstDte as not received (FAU), after counts that say it was rejected', async () => {
    const { envelope, folio: f } = envelopeOf(33, {
      receptor: { rut: '77.777.777-7', razonSocial: 'Prueba RECHAZO SpA', giro: 'Comercio', direccion: 'Calle 1', comuna: 'Santiago' },
    });
    const up = await sii.upload(creds, { rutEmpresa: RUT, envelope, tipo: 'dte', ambiente: AMB });
    const st = await sii.uploadStatus(creds, { rutEmpresa: RUT, trackId: up.trackId, tipo: 'dte', ambiente: AMB });
    expect(st).toMatchObject({ estado: 'EPR', final: true, estadistica: [{ tipoDte: 33, informados: 1, aceptados: 0, rechazados: 1 }] });
    const state = await sii.documentStatus(creds, {
      rutEmpresa: RUT,
      tipoDte: 33,
      folio: f,
      rutReceptor: '77777777-7',
      fechaEmision: day(),
      montoTotal: 1000,
      ambiente: AMB,
    });
    expect(state).toEqual({ estado: 'FAU', glosa: 'DTE No Recibido: Documento No Recibido por el SII' });
  });

  it('renews a token the SII let expire, once, for uploads and queries', async () => {
    const before = sii.tokens.fetched().soap;
    emu.clock.advance(SII_TOKEN_TTL_MS + 1000);
    const { envelope } = envelopeOf(33);
    const up = await sii.upload(creds, { rutEmpresa: RUT, envelope, tipo: 'dte', ambiente: AMB });
    expect(up.estado).toBe('0');
    expect(sii.tokens.fetched().soap).toBe(before + 1);
    emu.clock.advance(SII_TOKEN_TTL_MS + 1000);
    const st = await sii.uploadStatus(creds, { rutEmpresa: RUT, trackId: up.trackId, tipo: 'dte', ambiente: AMB });
    expect(st.estado).toBe('EPR');
    expect(sii.tokens.fetched().soap).toBe(before + 2);
  });

  it('reports an unknown track id and a holder without permission as the SII does, never final', async () => {
    const unknown = await sii.uploadStatus(creds, { rutEmpresa: RUT, trackId: '999', tipo: 'dte', ambiente: AMB });
    expect(unknown).toMatchObject({ estado: '-11', final: false, estadistica: [] });
    const { envelope } = envelopeOf(33);
    const up = await sii.upload(creds, { rutEmpresa: RUT, envelope, tipo: 'dte', ambiente: AMB });
    const otherCompany = await sii.uploadStatus(creds, { rutEmpresa: '76086428-5', trackId: up.trackId, tipo: 'dte', ambiente: AMB });
    expect(otherCompany).toMatchObject({ estado: '106', final: false });

    const noPerm = tenantCredentials(createTestCertificate({ rut: '11111111-1', commonName: 'Firmante SIN PERMISO' }));
    const c2: ProviderCredentials = { apiKey: '', ...noPerm.creds };
    const co2 = issuer(harness, { now: () => emu.clock.now() }, { cert: noPerm.cert });
    const caf2 = await co2.caf(33, 2);
    const env2 = co2.envelope([co2.build(caf2, co2.input(33, caf2.desde)).xml]);
    const up2 = await sii.upload(c2, { rutEmpresa: RUT, envelope: env2, tipo: 'dte', ambiente: AMB });
    expect(up2.estado).toBe('0');
    const st2 = await sii.uploadStatus(c2, { rutEmpresa: RUT, trackId: up2.trackId, tipo: 'dte', ambiente: AMB });
    expect(st2).toMatchObject({ estado: '106', glosa: 'Usuario no tiene permiso en empresa', final: false });
  });

  it('maps refusals to clear provider errors, and says what to do where a call cannot be made', async () => {
    const notEnvelope = await sii
      .upload(creds, { rutEmpresa: RUT, envelope: Buffer.from('<?xml version="1.0"?>\n<Otro/>'), tipo: 'dte', ambiente: AMB })
      .catch((e: unknown) => e);
    expect(notEnvelope).toBeInstanceOf(ProviderError);
    expect((notEnvelope as ProviderError).kind).toBe('rejected');
    expect((notEnvelope as ProviderError).message).toContain('STATUS 7');
    const noCert = await sii
      .upload({ apiKey: '' }, { rutEmpresa: RUT, envelope: Buffer.from('x'), tipo: 'dte', ambiente: AMB })
      .catch((e: unknown) => e);
    expect((noCert as ProviderError).kind).toBe('certificate_rejected');
    // The CAF forms log in with the certificate in the TLS handshake: over this plain-HTTP origin
    // they cannot, and say what to do (caf-forms.http.test.ts runs them over HTTPS).
    await expect(sii.requestCaf(creds, { rutEmpresa: RUT, tipoDte: 33, cantidad: 1, ambiente: AMB })).rejects.toThrow(
      /need HTTPS.*--tls.*folios\/caf/,
    );
    // Boletas go to the boleta REST API (boleta-rest.ts): its refusal of something that is not an EnvioBOLETA.
    await expect(sii.upload(creds, { rutEmpresa: RUT, envelope: Buffer.from('x'), tipo: 'boleta', ambiente: AMB })).rejects.toThrow(
      /El archivo no es un EnvioBOLETA/,
    );
  });

  describe('the emulated DTEUpload, raw', () => {
    const post = async (o: { ua?: string; token?: string | null; sender?: string; chunked?: boolean; file?: Buffer }) => {
      const token = o.token === null ? undefined : (o.token ?? (await sii.tokens.get('soap', siiCreds, AMB)));
      const [rs, ds] = (o.sender ?? '12345678-5').split('-');
      const { body, contentType } = multipartBody(
        [
          ['rutSender', rs!],
          ['dvSender', ds!],
          ['rutCompany', '76192083'],
          ['dvCompany', '9'],
        ],
        { name: 'archivo', filename: 'envio.xml', contentType: 'text/xml', data: o.file ?? envelopeOf(33).envelope },
      );
      const headers: Record<string, string> = { 'Content-Type': contentType, 'User-Agent': o.ua ?? SII_USER_AGENT };
      if (token) headers.Cookie = `TOKEN=${token}`;
      const stream = new ReadableStream({
        start(c) {
          c.enqueue(new Uint8Array(body));
          c.close();
        },
      });
      const r = await fetch(`${emu.baseUrl}/cgi_dte/UPL/DTEUpload`, {
        method: 'POST',
        headers,
        body: o.chunked ? stream : new Uint8Array(body),
        ...(o.chunked ? { duplex: 'half' } : {}),
      } as RequestInit);
      return { status: r.status, type: r.headers.get('content-type') ?? '', text: await r.text() };
    };

    it('answers HTML to a client without "PROG 1.0" in its User-Agent', async () => {
      const r = await post({ ua: 'node' });
      expect(r.type).toContain('text/html');
      expect(r.text).not.toContain('RECEPCIONDTE');
    });

    it('answers STATUS 5 without a token, STATUS 1 for another sender, STATUS 3 for a chunked body', async () => {
      const five = await post({ token: null });
      expect(five.text).toContain('<STATUS>5</STATUS>');
      expect(five.text).not.toContain('DETAIL');
      expect((await post({ token: 'NoSuchToken12' })).text).toContain('<STATUS>5</STATUS>');
      const one = await post({ sender: '11111111-1' });
      expect(one.text).toContain('<STATUS>1</STATUS>');
      const cut = await post({ chunked: true });
      expect(cut.text).toContain('<STATUS>3</STATUS>');
      expect(cut.text).toContain('LPX-00007');
      const empty = await post({ file: Buffer.alloc(0) });
      expect(empty.text).toContain('<STATUS>2</STATUS>');
    });
  });
});

describe('the in-process emulator serves the SII adapter too', () => {
  it('uploads and queries through inject', async () => {
    const tdb = await openTestDb('pglite');
    const clock = manualClock('2026-03-02T12:30:00.000Z');
    const emu = createInProcessEmulator({
      db: tdb.db,
      clock,
      siiKey: ephemeralSiiKey(),
      processingDelayMs: 0,
      schemaValidator: schemaValidatorFrom(),
    });
    try {
      const { cert, creds } = tenantCredentials();
      // The CAF through the SimpleAPI face of the same emulator, as a tenant with a key would.
      const caf = await emu.requestCaf(
        { apiKey: 'sandbox-key-ok', ...creds },
        { rutEmpresa: RUT, tipoDte: 33, cantidad: 2, ambiente: AMB },
      );
      const { parseCaf, buildDte, buildEnvelope } = await import('../../dte/index.ts');
      const { sampleDteInput } = await import('../../../test/support/dte/fixtures.ts');
      const c = parseCaf(caf.cafXml);
      const dte = buildDte(sampleDteInput(33, c.desde, { fechaEmision: '2026-03-02' }), { caf: c, signer: cert.signer, now: clock.now() });
      const envelope = buildEnvelope({
        dtes: [dte.xml],
        rutEmisor: RUT,
        fechaResolucion: '2014-08-22',
        numeroResolucion: 80,
        signer: cert.signer,
        now: clock.now(),
      }).xml;
      const up = await emu.siiProvider.upload({ apiKey: '', ...creds }, { rutEmpresa: RUT, envelope, tipo: 'dte', ambiente: AMB });
      const st = await emu.siiProvider.uploadStatus(
        { apiKey: '', ...creds },
        { rutEmpresa: RUT, trackId: up.trackId, tipo: 'dte', ambiente: AMB },
      );
      expect(st).toMatchObject({ estado: 'EPR', final: true, estadistica: [{ tipoDte: 33, aceptados: 1 }] });
      expect(emu.name).toBe('emulator');
      expect(emu.stats().sii.tokensIssued.soap).toBe(1);
    } finally {
      await emu.close();
      await tdb.close();
    }
  });
});
