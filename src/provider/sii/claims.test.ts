import { describe, expect, it } from 'vitest';
import { registroSoap } from '../emulator/sii-format.ts';
import { parseRegistroAnswer, parseRegistroRequest, registroRequestEnvelope, soapFault, TOKEN_REFUSED } from './claims-protocol.ts';
import { registerAcceptance } from './claims.ts';
import { SII_USER_AGENT } from './context.ts';
import { CREDS, scriptedFetch, stubTokens, testContext } from './test-doubles.test-support.ts';

const xml = (cod: number, desc: string) => ({ status: 200, body: registroSoap(cod, desc), type: 'text/xml; charset=utf-8' });
const REQ = { rutEmisor: '76.192.083-9', tipoDte: 33, folio: 12, accion: 'ACD' as const, ambiente: 'certificacion' as const };

describe('claims-protocol: the SOAP messages of ingresarAceptacionReclamoDoc', () => {
  it('writes the request the emulator reads back, and reads the answer SimpleAPI relays [C]', () => {
    const r = { rutEmisor: '76192083', dvEmisor: '9', tipoDoc: '33', folio: '12', accionDoc: 'ERM' };
    expect(parseRegistroRequest(registroRequestEnvelope(r))).toEqual(r);
    expect(parseRegistroAnswer(registroSoap(0, 'Accion Completada OK'))).toEqual({ codResp: 0, descResp: 'Accion Completada OK' });
    expect(parseRegistroAnswer(registroSoap(-1, 'Error Interno'))).toEqual({ codResp: -1, descResp: 'Error Interno' });
    expect(parseRegistroAnswer(soapFault(TOKEN_REFUSED))).toEqual({ fault: TOKEN_REFUSED });
    expect(parseRegistroAnswer('<html>gateway</html>')).toBeUndefined();
  });
});

describe('registerAcceptance (WsRegistroReclamoDte)', () => {
  it('posts the operation with the SOAP token as a cookie to the certification path, and reads 0 and 7 as registered', async () => {
    const { fetch, seen } = scriptedFetch([xml(0, 'Accion Completada OK'), xml(7, 'Evento registrado previamente')]);
    const ctx = testContext(fetch, stubTokens());
    expect(await registerAcceptance(ctx, CREDS, REQ)).toMatchObject({
      outcome: 'registered',
      codigo: 0,
      descripcion: 'Accion Completada OK',
    });
    expect(await registerAcceptance(ctx, CREDS, REQ)).toMatchObject({ outcome: 'registered', codigo: 7 });
    const s = seen[0]!;
    expect([s.method, s.url]).toEqual(['POST', 'https://ws2.sii.cl/WSREGISTRORECLAMODTECERT/registroreclamodteservice']);
    expect(s.headers.cookie).toBe('TOKEN=soap-token-1');
    expect(s.headers['user-agent']).toBe(SII_USER_AGENT);
    expect(s.headers['content-type']).toBe('text/xml; charset=utf-8');
    expect(parseRegistroRequest(s.body.toString('utf8'))).toEqual({
      rutEmisor: '76192083',
      dvEmisor: '9',
      tipoDoc: '33',
      folio: '12',
      accionDoc: 'ACD',
    });
    // One token for both calls.
    expect(seen[1]!.headers.cookie).toBe('TOKEN=soap-token-1');
    const p = scriptedFetch([xml(0, 'Accion Completada OK')]);
    await registerAcceptance(testContext(p.fetch, stubTokens()), CREDS, { ...REQ, ambiente: 'produccion' });
    expect(p.seen[0]!.url).toBe('https://ws1.sii.cl/WSREGISTRORECLAMODTE/registroreclamodteservice');
  });

  it('answers other codes as refused with the SII words, and -1 as unavailable', async () => {
    const { fetch } = scriptedFetch([
      xml(8, 'Pasados 8 dias despues de la recepcion no es posible registrar reclamos o eventos'),
      xml(-1, 'Error Interno'),
    ]);
    const ctx = testContext(fetch, stubTokens());
    expect(await registerAcceptance(ctx, CREDS, REQ)).toMatchObject({
      outcome: 'refused',
      codigo: 8,
      descripcion: 'Pasados 8 dias despues de la recepcion no es posible registrar reclamos o eventos',
    });
    await expect(registerAcceptance(ctx, CREDS, REQ)).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('on a token fault forgets the SOAP token and tries once more; twice is the certificate; other faults are unavailable', async () => {
    const tokens = stubTokens();
    const fault = { status: 500, body: soapFault(TOKEN_REFUSED), type: 'text/xml' };
    const { fetch, seen } = scriptedFetch([fault, xml(0, 'Accion Completada OK')]);
    expect(await registerAcceptance(testContext(fetch, tokens), CREDS, REQ)).toMatchObject({ codigo: 0 });
    expect(seen.map((s) => s.headers.cookie)).toEqual(['TOKEN=soap-token-1', 'TOKEN=soap-token-2']);
    expect(tokens.invalidated).toEqual(['soap-token-1']);
    const twice = scriptedFetch([fault, fault]);
    await expect(registerAcceptance(testContext(twice.fetch, tokens), CREDS, REQ)).rejects.toMatchObject({ kind: 'certificate_rejected' });
    const other = scriptedFetch([{ status: 500, body: soapFault('NullPointerException'), type: 'text/xml' }]);
    await expect(registerAcceptance(testContext(other.fetch, tokens), CREDS, REQ)).rejects.toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('NullPointerException'),
    });
    const html = scriptedFetch([{ status: 502, body: '<html>Bad gateway</html>', type: 'text/html' }]);
    await expect(registerAcceptance(testContext(html.fetch, tokens), CREDS, REQ)).rejects.toMatchObject({ kind: 'unavailable' });
  });
});
