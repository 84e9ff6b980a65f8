import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../../../test/support/db.ts';
import { CLAIMS_PATHS, parseRegistroAnswer, registroRequestEnvelope, TOKEN_REFUSED } from '../../sii/claims-protocol.ts';
import { registerAcceptance } from '../../sii/claims.ts';
import type { SiiCredentials } from '../../sii/context.ts';
import type { AceptacionReclamoResponse, EnvioResponse } from '../../simpleapi/protocol.ts';
import { createSiiTokens } from '../../sii/tokens.ts';
import { issuer, PASSWORD, RUT } from '../http.test-support.ts';
import { contextFor, harnessOf } from './adapters.test-support.ts';
import { startSiiEmulator, type SiiEmulator } from './sii.test-support.ts';

/**
 * The registro adapter against the emulator's WsRegistroReclamoDte over HTTP: the manual's codes
 * (…aceptacion-reclamo-dte-v1.2), the same registro as SimpleAPI's face, the SOAP token.
 */
const T0 = '2026-11-28T12:00:00.000Z';
const DAY = 86_400_000;

describeEachDb('WsRegistroReclamoDte: adapter → emulator SII face over HTTP', (backend) => {
  let emu: SiiEmulator;
  const clock = { now: () => emu.clock.now() };
  const co = issuer(() => harnessOf(emu), clock);
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
    emu = await startSiiEmulator(backend, { processingDelayMs: 0, start: T0 });
    const c = await co.caf(33, 5);
    const dtes = [0, 1, 2, 3].map((i) => co.build(c, co.input(33, c.desde + i)).xml);
    const up = await co.send(co.envelope(dtes), 1);
    expect(up.json<EnvioResponse>().ok, up.text).toBe(true);
    folios.push(c.desde, c.desde + 1, c.desde + 2, c.desde + 3, c.hasta);
  });
  afterAll(async () => {
    await emu?.close();
  });
  const freshToken = (kind: 'rest' | 'soap') =>
    createSiiTokens({ http: { hosts: contextFor(emu).hosts, fetch, timeoutMs: 20_000 } }).get(kind, creds, 'certificacion');

  it('registers an acceptance (0), answers a second one 7, and refuses a claim after it (11), with one SOAP token', async () => {
    const ctx = contextFor(emu);
    const tokens = ctx.tokens;
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
    expect(tokens.fetched()).toEqual({ soap: 1, rest: 0 });
    // The production path is the same registro (with a production token).
    expect(await registerAcceptance(ctx, creds, req(folios[0]!, 'ERM', 'produccion'))).toMatchObject({ outcome: 'registered', codigo: 0 });
    expect(emu.core.stats().sii.routes.ingresarAceptacionReclamoDoc?.['2xx']).toBe(4);
    // Not received by this SII: 9.
    expect(await registerAcceptance(ctx, creds, req(folios[4]!, 'ACD'))).toMatchObject({ outcome: 'refused', codigo: 9 });
  });

  it('agrees with the SimpleAPI face on the same document (one events table)', async () => {
    const ctx = contextFor(emu);
    expect(await registerAcceptance(ctx, creds, req(folios[1]!, 'RFP'))).toMatchObject({ codigo: 0 });
    const a = await harnessOf(emu).call('POST', '/api/v1/compras/aceptacionreclamo', {
      input: { Certificado: co.certificado, Tipo: 33, Folio: folios[1], Accion: 'ACD', RutEmpresa: RUT, Ambiente: 0 },
      files: [co.pfx],
    });
    expect(a.json<AceptacionReclamoResponse>()).toMatchObject({
      codRespuesta: 12,
      descripcion: 'No se puede dar por aceptado DTE previamente rechazado por RFP',
    });
  });

  it('past eight days from its reception answers 8', async () => {
    const ctx = contextFor(emu);
    // A fresh token at that time: the emulator's token lives an hour from its last use.
    emu.clock.set(new Date(new Date(T0).getTime() + 8 * DAY + 1000));
    try {
      expect(await registerAcceptance(ctx, creds, req(folios[2]!, 'ACD'))).toMatchObject({
        outcome: 'refused',
        codigo: 8,
        descripcion: 'Pasados 8 dias despues de la recepcion no es posible registrar reclamos o eventos',
      });
    } finally {
      emu.clock.set(T0);
    }
  });

  const soap = (body: string, token: string | null) =>
    fetch(`${emu.baseUrl}${CLAIMS_PATHS.certificacion}`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: '""', ...(token ? { Cookie: `TOKEN=${token}` } : {}) },
      body,
    });

  it("checks the manual's parameters in order: RUT (1), folio (2), type (3), action (4)", async () => {
    const token = await freshToken('soap');
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
    for (const t of [null, await freshToken('rest'), 'UNKNOWN']) {
      const a = await soap(body, t);
      expect(a.status).toBe(500);
      expect(parseRegistroAnswer(await a.text())).toEqual({ fault: TOKEN_REFUSED });
    }
    // The adapter holds its SOAP token ten hours; the emulator forgets it an hour after its last use.
    const ctx = contextFor(emu, undefined, { soapTtlMs: 10 * 3_600_000 });
    await registerAcceptance(ctx, creds, req(folios[3]!, 'ERM'));
    const old = await ctx.tokens.get('soap', creds, 'certificacion');
    emu.clock.advance(3_600_000 + 1000);
    try {
      expect(await registerAcceptance(ctx, creds, req(folios[3]!, 'ERM'))).toMatchObject({ outcome: 'registered', codigo: 7 });
      expect(await ctx.tokens.get('soap', creds, 'certificacion')).not.toBe(old);
      expect(ctx.tokens.fetched().soap).toBe(2);
      expect(ctx.fetchCalls()).toBe(3);
    } finally {
      emu.clock.set(T0);
    }
  });
});
