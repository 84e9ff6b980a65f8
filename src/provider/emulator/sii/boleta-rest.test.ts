import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/support/db.ts';
import { NOT_AUTHENTICATED } from '../../sii/boleta-protocol.ts';
import { boletaUploadStatus, uploadBoletas } from '../../sii/boleta-rest.ts';
import { SII_USER_AGENT, type SiiCredentials } from '../../sii/context.ts';
import { multipartBody } from '../../sii/multipart.ts';
import { createSiiTokens } from '../../sii/tokens.ts';
import { createTestCertificate } from '../../../../test/support/dte/test-certificate.ts';
import { issuer, PASSWORD, RUT } from '../http.test-support.ts';
import { emulatorStore } from '../store.ts';
import { contextFor, harnessOf } from './adapters.test-support.ts';
import { startSiiEmulator, type SiiEmulator } from './sii.test-support.ts';

/**
 * The boleta REST adapter against the emulator's SII face over HTTP (a real port): envíos received
 * and judged by the same core as SimpleAPI's face, read back with their findings; the gateway's
 * quirks (User-Agent, chunked body, 500 per envío) and the token's reuse and renewal.
 */
const T0 = '2026-11-28T12:00:00.000Z';
const DELAY = 10_000;

describeEachDb('boleta REST: adapter → emulator SII face over HTTP', (backend) => {
  let emu: SiiEmulator;
  const clock = { now: () => emu.clock.now() };
  const co = issuer(() => harnessOf(emu), clock);
  const creds: SiiCredentials = { pfx: co.pfx, pfxPassword: PASSWORD, rutCertificado: co.cert.rut };
  const amb = 'certificacion' as const;

  beforeAll(async () => {
    emu = await startSiiEmulator(backend, { processingDelayMs: DELAY, start: T0 });
  });
  afterAll(async () => {
    await emu?.close();
  });
  /** A REST token issued by the emulator through the whole exchange (seed, signed seed, token). */
  const freshToken = async (kind: 'rest' | 'soap' = 'rest') =>
    createSiiTokens({ http: { hosts: contextFor(emu).hosts, fetch, timeoutMs: 20_000 } }).get(kind, creds, amb);

  it('takes 10 boletas (REC, then the stages) and accepts them all once processed, with one REST token for every call', async () => {
    const ctx = contextFor(emu);
    const c = await co.caf(39, 10);
    const env = co.envelope(Array.from({ length: 10 }, (_, i) => co.build(c, co.input(39, c.desde + i)).xml));
    const up = await uploadBoletas(ctx, creds, { rutEmpresa: RUT, envelope: env, ambiente: amb });
    expect(up).toMatchObject({ estado: 'REC', trackId: expect.stringMatching(/^\d+$/) });
    expect(JSON.parse(up.raw!.toString('utf8'))).toMatchObject({
      rut_emisor: RUT,
      rut_envia: co.cert.rut,
      estado: 'REC',
      file: 'envio-boleta.xml',
    });

    const early = await boletaUploadStatus(ctx, creds, { rutEmpresa: RUT, trackId: up.trackId, ambiente: amb });
    expect(early).toMatchObject({ estado: 'REC', final: false, documentsListed: false, estadistica: [] });
    emu.clock.advance(DELAY);
    const done = await boletaUploadStatus(ctx, creds, { rutEmpresa: RUT, trackId: up.trackId, ambiente: amb });
    expect(done).toMatchObject({
      estado: 'EPR',
      final: true,
      documentsListed: true,
      documents: [],
      estadistica: [{ tipoDte: 39, informados: 10, aceptados: 10, rechazados: 0, reparos: 0 }],
    });
    expect(ctx.tokens.fetched()).toEqual({ soap: 0, rest: 1 });
    expect(ctx.fetchCalls()).toBe(3);
    // The emulator counted the calls and the one token it issued.
    const sii = emu.core.stats().sii;
    expect(sii.routes['boleta.electronica.envio']?.['2xx']).toBeGreaterThanOrEqual(1);
    expect(sii.routes['boleta.electronica.envio/:id']?.['2xx']).toBeGreaterThanOrEqual(2);
    expect(sii.tokensIssued.rest).toBeGreaterThanOrEqual(1);
  });

  it('lists a rejected boleta with its code in detalle_rep_rech, read into the outcome', async () => {
    const ctx = contextFor(emu);
    const c = await co.caf(39, 2);
    const ok = co.build(c, co.input(39, c.desde)).xml;
    const bad = co.build(c, co.input(39, c.hasta, { receptor: { rut: '77.777.777-7', razonSocial: 'Prueba RECHAZO SpA' } })).xml;
    const up = await uploadBoletas(ctx, creds, { rutEmpresa: RUT, envelope: co.envelope([ok, bad]), ambiente: amb });
    emu.clock.advance(DELAY);
    const raw = await fetch(`${emu.baseUrl}/recursos/v1/boleta.electronica.envio/${RUT}-${up.trackId}`, {
      headers: { Cookie: `TOKEN=${await ctx.tokens.get('rest', creds, amb)}`, 'User-Agent': SII_USER_AGENT },
    });
    const j = (await raw.json()) as Record<string, unknown>;
    expect(Object.keys(j)).toEqual(['rut_emisor', 'rut_envia', 'trackid', 'fecha_recepcion', 'estado', 'estadistica', 'detalle_rep_rech']);
    expect(j.detalle_rep_rech).toEqual([
      {
        tipo: 39,
        folio: c.hasta,
        estado: 'RCH',
        descripcion: 'DTE Rechazado',
        error: [
          {
            seccion: 'SBX',
            linea: 0,
            nivel: 3,
            codigo: 1,
            descripcion: 'Rechazo de prueba',
            detalle: 'sandbox: razón social del receptor contiene RECHAZO',
          },
        ],
      },
    ]);
    const s = await boletaUploadStatus(ctx, creds, { rutEmpresa: RUT, trackId: up.trackId, ambiente: amb });
    expect(s.estadistica).toEqual([{ tipoDte: 39, informados: 2, aceptados: 1, rechazados: 1, reparos: 0 }]);
    expect(s.documents).toEqual([
      {
        tipoDte: 39,
        folio: c.hasta,
        status: 'rejected',
        estado: 'RCH',
        glosa: 'SBX-3-001 Rechazo de prueba (sandbox: razón social del receptor contiene RECHAZO)',
      },
    ]);
  });

  it('refuses 501 boletas in the adapter before any call (and the emulator refuses them too)', async () => {
    const ctx = contextFor(emu);
    const dte = '<DTE version="1.0"><Documento ID="B"/></DTE>\n';
    const env = Buffer.from(
      `<?xml version="1.0" encoding="ISO-8859-1"?>\n<EnvioBOLETA version="1.0"><SetDTE ID="S"><Caratula><RutEmisor>${RUT}</RutEmisor></Caratula>\n${dte.repeat(501)}</SetDTE></EnvioBOLETA>\n`,
      'latin1',
    );
    await expect(uploadBoletas(ctx, creds, { rutEmpresa: RUT, envelope: env, ambiente: amb })).rejects.toMatchObject({ kind: 'rejected' });
    expect(ctx.fetchCalls()).toBe(0);
    const token = await freshToken();
    const a = await rawUpload(token, env);
    expect([a.status, await a.json()]).toEqual([400, { error: 'El envio contiene 501 boletas; el maximo por envio es 500' }]);
  });

  const form = (envelope: Buffer, sender = co.cert.rut) => {
    const [rs, ds] = sender.split('-');
    const [rc, dc] = RUT.split('-');
    return multipartBody(
      [
        ['rutSender', rs!],
        ['dvSender', ds!],
        ['rutCompany', rc!],
        ['dvCompany', dc!],
      ],
      { name: 'archivo', filename: 'envio.xml', contentType: 'text/xml', data: envelope },
    );
  };
  const rawUpload = (token: string | null, envelope: Buffer, o: { ua?: string; sender?: string } = {}) => {
    const { body, contentType } = form(envelope, o.sender);
    return fetch(`${emu.baseUrl}/recursos/v1/boleta.electronica.envio`, {
      method: 'POST',
      headers: { 'User-Agent': o.ua ?? SII_USER_AGENT, 'Content-Type': contentType, ...(token ? { Cookie: `TOKEN=${token}` } : {}) },
      body: new Uint8Array(body),
    });
  };

  it('answers 401 NO ESTA AUTENTICADO to a non-Mozilla User-Agent even with a valid token, and without a token', async () => {
    const c = await co.caf(39, 1);
    const env = co.envelope([co.build(c, co.input(39, c.desde)).xml]);
    const token = await freshToken();
    for (const ua of ['node', 'python-requests/2.31', 'undici']) {
      const a = await rawUpload(token, env, { ua });
      expect([a.status, await a.text()]).toEqual([401, NOT_AUTHENTICATED]);
    }
    const none = await rawUpload(null, env);
    expect([none.status, await none.text()]).toEqual([401, NOT_AUTHENTICATED]);
    // A SOAP token is not a REST token.
    const soap = await rawUpload(await freshToken('soap'), env);
    expect(soap.status).toBe(401);
    // This person's token for another rutSender: refused with the reason.
    const other = await rawUpload(token, env, { sender: '11111111-1' });
    expect([other.status, await other.json()]).toEqual([400, { error: 'rutSender no corresponde al titular del token' }]);
    const ok = await rawUpload(token, env);
    expect(ok.status).toBe(200);
  });

  it('cuts a chunked body as the gateway does: CHR-00002', async () => {
    const c = await co.caf(39, 1);
    const env = co.envelope([co.build(c, co.input(39, c.desde)).xml]);
    const { body, contentType } = form(env);
    const stream = new ReadableStream<Uint8Array>({
      start(ctl) {
        for (let i = 0; i < body.length; i += 1024) ctl.enqueue(new Uint8Array(body.subarray(i, i + 1024)));
        ctl.close();
      },
    });
    const a = await fetch(`${emu.baseUrl}/recursos/v1/boleta.electronica.envio`, {
      method: 'POST',
      headers: { 'User-Agent': SII_USER_AGENT, 'Content-Type': contentType, Cookie: `TOKEN=${await freshToken()}` },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect([a.status, await a.text()]).toEqual([400, 'CHR-00002 Line too long (4090)']);
  });

  it('renews the REST token after a 401 (the emulator let it expire while the adapter still held it) and goes on with the new one', async () => {
    // The adapter keeps its tokens ten hours; the emulator one hour from the last use (auth.ts).
    const ctx = contextFor(emu, undefined, { restTtlMs: 10 * 3_600_000 });
    const c = await co.caf(39, 2);
    const first = await uploadBoletas(ctx, creds, {
      rutEmpresa: RUT,
      envelope: co.envelope([co.build(c, co.input(39, c.desde)).xml]),
      ambiente: amb,
    });
    await boletaUploadStatus(ctx, creds, { rutEmpresa: RUT, trackId: first.trackId, ambiente: amb });
    expect(ctx.tokens.fetched().rest).toBe(1);
    const old = await ctx.tokens.get('rest', creds, amb);
    emu.clock.advance(3_600_000 + 1000);
    const second = await uploadBoletas(ctx, creds, {
      rutEmpresa: RUT,
      envelope: co.envelope([co.build(c, co.input(39, c.hasta)).xml]),
      ambiente: amb,
    });
    expect(Number(second.trackId)).toBeGreaterThan(Number(first.trackId));
    const renewed = await ctx.tokens.get('rest', creds, amb);
    expect(renewed).not.toBe(old);
    expect(ctx.tokens.fetched().rest).toBe(2);
    // Two calls before, then the refused one and its retry.
    expect(ctx.fetchCalls()).toBe(4);
    expect(emu.core.stats().sii.routes['boleta.electronica.envio']?.['4xx']).toBeGreaterThanOrEqual(1);
    await boletaUploadStatus(ctx, creds, { rutEmpresa: RUT, trackId: second.trackId, ambiente: amb });
    expect(ctx.tokens.fetched().rest).toBe(2);
  });

  it('finds only this company’s boleta envíos: another RUT or an EnvioDTE track id is a failed query, never final', async () => {
    const ctx = contextFor(emu);
    const c = await co.caf(33, 1);
    const dte = await co.send(co.envelope([co.build(c, co.input(33, c.desde)).xml]), 1);
    const dteTrack = String(dte.json<{ trackId: number }>().trackId);
    expect((await emulatorStore.getEnvio(emu.tdb.db, Number(dteTrack)))?.tipo).toBe('dte');
    const s = await boletaUploadStatus(ctx, creds, { rutEmpresa: RUT, trackId: dteTrack, ambiente: amb });
    expect(s).toMatchObject({ estado: '', final: false, glosa: 'No existe el envio para la empresa indicada' });
  });

  it('sandbox: a holder named SIN PERMISO has its envío received but cannot read it (Error de Permiso, a failed query)', async () => {
    const cert = createTestCertificate({ rut: co.cert.rut, commonName: 'Firmante SIN PERMISO' });
    const noPerm: SiiCredentials = { pfx: cert.toPfx(PASSWORD), pfxPassword: PASSWORD, rutCertificado: cert.rut };
    const ctx = contextFor(emu);
    const c = await co.caf(39, 1);
    const up = await uploadBoletas(ctx, noPerm, {
      rutEmpresa: RUT,
      envelope: co.envelope([co.build(c, co.input(39, c.desde)).xml]),
      ambiente: amb,
    });
    const s = await boletaUploadStatus(ctx, noPerm, { rutEmpresa: RUT, trackId: up.trackId, ambiente: amb });
    expect(s).toMatchObject({ estado: '', glosa: 'Error de Permiso', final: false, documentsListed: false });
  });
});
