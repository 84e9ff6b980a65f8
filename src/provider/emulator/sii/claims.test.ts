import { afterAll, beforeAll, expect, it } from 'vitest';
import { manualClock } from '../../../lib/clock.ts';
import { describeEachDb, openTestDb, type TestDb } from '../../../../test/support/db.ts';
import { CLAIMS_PATHS, parseRegistroAnswer, registroRequestEnvelope, TOKEN_REFUSED } from '../../sii/claims-protocol.ts';
import { registerAcceptance } from '../../sii/claims.ts';
import type { SiiCredentials } from '../../sii/context.ts';
import type { AceptacionReclamoResponse, EnvioResponse } from '../../simpleapi/protocol.ts';
import { issuer, PASSWORD, RUT } from '../http.test-support.ts';
import { bookTokens, startSiiEmulator, type SiiEmulator } from './sii.test-support.ts';

/**
 * The registro adapter against the emulator's WsRegistroReclamoDte over HTTP: the manual's codes
 * (…aceptacion-reclamo-dte-v1.2), the same registro as SimpleAPI's face, the SOAP token.
 */
const T0 = '2026-11-28T12:00:00.000Z';
const DAY = 86_400_000;

describeEachDb('WsRegistroReclamoDte: adapter → emulator SII face over HTTP', (backend) => {
  let tdb: TestDb;
  let emu: SiiEmulator;
  const clock = manualClock(T0);
  const co = issuer(() => emu.h, clock);
  const creds: SiiCredentials = { pfx: co.pfx, pfxPassword: PASSWORD, rutCertificado: co.cert.rut };
  const folios: number[] = [];
  const req = (
    folio: number,
    accion: 'ACD' | 'RCD' | 'ERM' | 'RFP' | 'RFT',
    ambiente: 'certificacion' | 'produccion' = 'certificacion',
  ) => ({
    rutEmisor: RUT,
    tipoDte: 33,
    folio,
    accion,
    ambiente,
  });

  beforeAll(async () => {
    tdb = await openTestDb(backend);
    emu = await startSiiEmulator({ db: tdb.db, clock, processingDelayMs: 0 });
    const c = await co.caf(33, 5);
    const dtes = [0, 1, 2, 3].map((i) => co.build(c, co.input(33, c.desde + i)).xml);
    const up = await co.send(co.envelope(dtes), 1);
    expect(up.json<EnvioResponse>().ok, up.text).toBe(true);
    folios.push(c.desde, c.desde + 1, c.desde + 2, c.desde + 3, c.hasta);
  });
  afterAll(async () => {
    await emu?.close();
    await tdb?.close();
  });

  it('registers an acceptance (0), answers a second one 7, and refuses a claim after it (11), with one SOAP token', async () => {
    const tokens = bookTokens(emu.book);
    const ctx = emu.context(tokens);
    expect(await registerAcceptance(ctx, creds, req(folios[0]!, 'ACD'))).toMatchObject({
      outcome: 'registered',
      codigo: 0,
      descripcion: 'Accion Completada OK',
    });
    expect(await registerAcceptance(ctx, creds, req(folios[0]!, 'ACD'))).toMatchObject({
      outcome: 'registered',
      codigo: 7,
      descripcion: 'Evento registrado previamente',
    });
    expect(await registerAcceptance(ctx, creds, req(folios[0]!, 'RCD'))).toMatchObject({ outcome: 'refused', codigo: 11 });
    // The production path is the same registro.
    expect(await registerAcceptance(ctx, creds, req(folios[0]!, 'ERM', 'produccion'))).toMatchObject({ outcome: 'registered', codigo: 0 });
    expect(tokens.fetched()).toEqual({ soap: 1, rest: 0 });
    // Not received by this SII: 9.
    expect(await registerAcceptance(ctx, creds, req(folios[4]!, 'ACD'))).toMatchObject({ outcome: 'refused', codigo: 9 });
  });

  it('agrees with the SimpleAPI face on the same document (one events table)', async () => {
    const ctx = emu.context(bookTokens(emu.book));
    expect(await registerAcceptance(ctx, creds, req(folios[1]!, 'RFP'))).toMatchObject({ codigo: 0 });
    const a = await emu.h.call('POST', '/api/v1/compras/aceptacionreclamo', {
      input: { Certificado: co.certificado, Tipo: 33, Folio: folios[1], Accion: 'ACD', RutEmpresa: RUT, Ambiente: 0 },
      files: [co.pfx],
    });
    expect(a.json<AceptacionReclamoResponse>()).toMatchObject({
      codRespuesta: 12,
      descripcion: 'No se puede dar por aceptado DTE previamente rechazado por RFP',
    });
  });

  it('past eight days from its reception answers 8', async () => {
    const ctx = emu.context(bookTokens(emu.book));
    clock.set(new Date(new Date(T0).getTime() + 8 * DAY + 1000));
    try {
      expect(await registerAcceptance(ctx, creds, req(folios[2]!, 'ACD'))).toMatchObject({
        outcome: 'refused',
        codigo: 8,
        descripcion: 'Pasados 8 dias despues de la recepcion no es posible registrar reclamos o eventos',
      });
    } finally {
      clock.set(T0);
    }
  });

  const soap = (body: string, token: string | null) =>
    fetch(`${emu.url}${CLAIMS_PATHS.certificacion}`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: '""', ...(token ? { Cookie: `TOKEN=${token}` } : {}) },
      body,
    });

  it("checks the manual's parameters in order: RUT (1), folio (2), type (3), action (4)", async () => {
    const token = emu.book.issue('soap', co.cert.rut);
    const code = async (over: Record<string, string>) => {
      const a = await soap(
        registroRequestEnvelope({
          rutEmisor: RUT.split('-')[0]!,
          dvEmisor: RUT.split('-')[1]!,
          tipoDoc: '33',
          folio: String(folios[3]),
          accionDoc: 'ACD',
          ...over,
        }),
        token,
      );
      expect([a.status, a.headers.get('content-type')]).toEqual([200, 'text/xml; charset=utf-8']);
      return parseRegistroAnswer(await a.text());
    };
    expect(await code({ dvEmisor: '0' })).toEqual({ codResp: 1, descResp: 'Rut Emisor Erroneo' });
    expect(await code({ rutEmisor: '999', dvEmisor: '9' })).toMatchObject({ codResp: 1 });
    expect(await code({ folio: '0' })).toEqual({ codResp: 2, descResp: 'Numero de Folio Erroneo' });
    expect(await code({ tipoDoc: '39' })).toEqual({ codResp: 3, descResp: 'Tipo de documento no corresponde' });
    expect(await code({ accionDoc: 'CNS' })).toEqual({ codResp: 4, descResp: 'Accion invalida' });
    expect(await code({})).toEqual({ codResp: 0, descResp: 'Accion Completada OK' });
  });

  it('wants a SOAP token: none, a REST one or a forgotten one is a fault; the adapter renews it once', async () => {
    const body = registroRequestEnvelope({ rutEmisor: '76192083', dvEmisor: '9', tipoDoc: '33', folio: '1', accionDoc: 'ACD' });
    for (const t of [null, emu.book.issue('rest', co.cert.rut), 'UNKNOWN']) {
      const a = await soap(body, t);
      expect(a.status).toBe(500);
      expect(parseRegistroAnswer(await a.text())).toEqual({ fault: TOKEN_REFUSED });
    }
    const tokens = bookTokens(emu.book);
    const ctx = emu.context(tokens);
    await registerAcceptance(ctx, creds, req(folios[3]!, 'ERM'));
    emu.book.expireAll();
    expect(await registerAcceptance(ctx, creds, req(folios[3]!, 'ERM'))).toMatchObject({ outcome: 'registered', codigo: 7 });
    expect(tokens.fetched().soap).toBe(2);
    expect(tokens.invalidated).toHaveLength(1);
  });
});
