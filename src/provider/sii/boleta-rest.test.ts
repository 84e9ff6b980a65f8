import { describe, expect, it } from 'vitest';
import type { BoletaEnvioStatusAnswer } from './boleta-protocol.ts';
import { boletaUploadStatus, parseBoletaEnvioStatus, uploadBoletas } from './boleta-rest.ts';
import { SII_USER_AGENT } from './context.ts';
import { CREDS, scriptedFetch, stubTokens, testContext } from './test-doubles.test-support.ts';

const envelopeOf = (n: number) =>
  Buffer.from(
    `<?xml version="1.0" encoding="ISO-8859-1"?>\n<EnvioBOLETA version="1.0"><SetDTE ID="SetDoc"><Caratula><RutEmisor>76192083-9</RutEmisor></Caratula>\n` +
      Array.from({ length: n }, (_, i) => `<DTE version="1.0"><Documento ID="B${i}"/></DTE>\n`).join('') +
      '</SetDTE></EnvioBOLETA>\n',
    'latin1',
  );

const RECEPTION =
  '{\n"rut_emisor": "76192083-9",\n"rut_envia": "12345678-5",\n"trackid": 4242,\n"fecha_recepcion": "2026-11-28 09:00:00",\n"estado": "REC",\n"file": "envio-boleta.xml"\n}';

describe('uploadBoletas (boleta.electronica.envio)', () => {
  it('posts one multipart body with the SII fields in order, the REST token as a cookie and the gateway User-Agent, to the upload host', async () => {
    const { fetch, seen } = scriptedFetch([{ status: 200, body: RECEPTION }]);
    const tokens = stubTokens();
    const r = await uploadBoletas(testContext(fetch, tokens), CREDS, {
      rutEmpresa: '76.192.083-9',
      envelope: envelopeOf(2),
      ambiente: 'certificacion',
    });
    expect(r).toMatchObject({ trackId: '4242', estado: 'REC' });
    expect(seen).toHaveLength(1);
    const s = seen[0]!;
    expect([s.method, s.url]).toEqual(['POST', 'https://pangal.sii.cl/recursos/v1/boleta.electronica.envio']);
    expect(s.headers['user-agent']).toBe(SII_USER_AGENT);
    expect(s.headers.cookie).toBe('TOKEN=rest-token-1');
    expect(s.headers['transfer-encoding']).toBeUndefined();
    const fd = await new Response(new Uint8Array(s.body), { headers: { 'content-type': s.headers['content-type']! } }).formData();
    expect([...fd.keys()]).toEqual(['rutSender', 'dvSender', 'rutCompany', 'dvCompany', 'archivo']);
    expect([fd.get('rutSender'), fd.get('dvSender'), fd.get('rutCompany'), fd.get('dvCompany')]).toEqual([
      '12345678',
      '5',
      '76192083',
      '9',
    ]);
    const file = fd.get('archivo') as File;
    expect(Buffer.from(await file.arrayBuffer()).equals(envelopeOf(2))).toBe(true);
    // Production goes to rahue.
    const p = scriptedFetch([{ status: 200, body: RECEPTION }]);
    await uploadBoletas(testContext(p.fetch, tokens), CREDS, { rutEmpresa: '76192083-9', envelope: envelopeOf(1), ambiente: 'produccion' });
    expect(p.seen[0]!.url).toBe('https://rahue.sii.cl/recursos/v1/boleta.electronica.envio');
  });

  it('refuses 501 boletas before any call, and takes 500', async () => {
    const { fetch, seen } = scriptedFetch([{ status: 200, body: RECEPTION }]);
    const tokens = stubTokens();
    const ctx = testContext(fetch, tokens);
    await expect(
      uploadBoletas(ctx, CREDS, { rutEmpresa: '76192083-9', envelope: envelopeOf(501), ambiente: 'certificacion' }),
    ).rejects.toMatchObject({
      kind: 'rejected',
      message: expect.stringMatching(/at most 500 boletas and this one has 501/),
    });
    expect(seen).toHaveLength(0);
    expect(tokens.issued).toEqual([]);
    await uploadBoletas(ctx, CREDS, { rutEmpresa: '76192083-9', envelope: envelopeOf(500), ambiente: 'certificacion' });
    expect(seen).toHaveLength(1);
  });

  it('on a 401 forgets the token and tries once more with a fresh one; a second 401 is the certificate', async () => {
    const { fetch, seen } = scriptedFetch([
      { status: 401, body: 'NO ESTA AUTENTICADO', type: 'text/plain' },
      { status: 200, body: RECEPTION },
    ]);
    const tokens = stubTokens();
    const ctx = testContext(fetch, tokens);
    expect(
      (await uploadBoletas(ctx, CREDS, { rutEmpresa: '76192083-9', envelope: envelopeOf(1), ambiente: 'certificacion' })).trackId,
    ).toBe('4242');
    expect(seen.map((s) => s.headers.cookie)).toEqual(['TOKEN=rest-token-1', 'TOKEN=rest-token-2']);
    expect(tokens.invalidated).toEqual(['rest-token-1']);

    const twice = scriptedFetch([
      { status: 401, body: 'NO ESTA AUTENTICADO', type: 'text/plain' },
      { status: 401, body: 'NO ESTA AUTENTICADO', type: 'text/plain' },
    ]);
    await expect(
      uploadBoletas(testContext(twice.fetch, tokens), CREDS, {
        rutEmpresa: '76192083-9',
        envelope: envelopeOf(1),
        ambiente: 'certificacion',
      }),
    ).rejects.toMatchObject({ kind: 'certificate_rejected' });
    expect(twice.seen).toHaveLength(2);
  });

  it('maps a 400 to rejected with the SII words, a 5xx and a lost connection to unavailable, and never names the token', async () => {
    const tokens = stubTokens();
    const req = { rutEmpresa: '76192083-9', envelope: envelopeOf(1), ambiente: 'certificacion' as const };
    const bad = scriptedFetch([{ status: 400, body: '{"error":"El archivo no es un EnvioBOLETA"}' }]);
    const e = (await uploadBoletas(testContext(bad.fetch, tokens), CREDS, req).catch((x: unknown) => x)) as Error;
    expect(e).toMatchObject({ kind: 'rejected', message: expect.stringContaining('El archivo no es un EnvioBOLETA') });
    expect(e.message).not.toContain('rest-token');
    const down = scriptedFetch([{ status: 503, body: 'down', type: 'text/plain' }]);
    await expect(uploadBoletas(testContext(down.fetch, tokens), CREDS, req)).rejects.toMatchObject({ kind: 'unavailable' });
    const gone = scriptedFetch([new TypeError('fetch failed')]);
    await expect(uploadBoletas(testContext(gone.fetch, tokens), CREDS, req)).rejects.toMatchObject({ kind: 'unavailable' });
  });
});

const PROCESSED: BoletaEnvioStatusAnswer = {
  rut_emisor: '76192083-9',
  rut_envia: '12345678-5',
  trackid: 4242,
  fecha_recepcion: '28/11/2026 09:00:00',
  estado: 'EPR',
  estadistica: [{ tipo: 39, informados: 3, aceptados: 2, rechazados: 1, reparos: 1 }],
  detalle_rep_rech: [
    {
      tipo: 39,
      folio: 7,
      estado: 'RCH',
      descripcion: 'DTE Rechazado',
      error: [{ seccion: 'DTE', linea: 0, nivel: 3, codigo: 505, descripcion: 'Firma DTE Incorrecta', detalle: null }],
    },
    {
      tipo: 39,
      folio: 8,
      estado: 'RPR',
      descripcion: 'DTE Aceptado con Reparos',
      error: [{ seccion: 'HED', linea: 0, nivel: 2, codigo: 100, descripcion: 'Valor Detalle Distinto', detalle: 'linea 1' }],
    },
  ],
};

describe('boletaUploadStatus (boleta.electronica.envio/{rut}-{dv}-{trackid})', () => {
  it('asks the rest host with the token and reads counts and every boleta not plainly accepted', async () => {
    const { fetch, seen } = scriptedFetch([{ status: 200, body: JSON.stringify(PROCESSED) }]);
    const s = await boletaUploadStatus(testContext(fetch, stubTokens()), CREDS, {
      rutEmpresa: '76192083-9',
      trackId: '4242',
      ambiente: 'produccion',
    });
    expect(seen[0]!.url).toBe('https://api.sii.cl/recursos/v1/boleta.electronica.envio/76192083-9-4242');
    expect(seen[0]!.headers.cookie).toBe('TOKEN=rest-token-1');
    expect(s).toMatchObject({
      trackId: '4242',
      estado: 'EPR',
      final: true,
      documentsListed: true,
      estadistica: [{ tipoDte: 39, informados: 3, aceptados: 2, rechazados: 1, reparos: 1 }],
      documents: [
        { tipoDte: 39, folio: 7, status: 'rejected', estado: 'RCH', glosa: 'DTE-3-505 Firma DTE Incorrecta' },
        { tipoDte: 39, folio: 8, status: 'accepted_with_objections', estado: 'RPR', glosa: 'HED-2-100 Valor Detalle Distinto (linea 1)' },
      ],
    });
  });

  it('reads a stage as not final, a whole rejection (no folio) into the glosa, and a 404 as a failed query', async () => {
    expect(parseBoletaEnvioStatus({ ...PROCESSED, estado: 'SOK', estadistica: [], detalle_rep_rech: [] }, '1')).toMatchObject({
      estado: 'SOK',
      final: false,
      documentsListed: false,
    });
    const whole = parseBoletaEnvioStatus(
      {
        ...PROCESSED,
        estado: 'RCT',
        estadistica: [],
        detalle_rep_rech: [{ tipo: null, folio: null, estado: 'RCH', descripcion: 'CRT-3-11 RUT Envia diferente al Upload', error: [] }],
      },
      '1',
    );
    expect(whole).toMatchObject({ estado: 'RCT', final: true, glosa: 'CRT-3-11 RUT Envia diferente al Upload', documents: [] });
    const { fetch } = scriptedFetch([{ status: 404, body: '{"error":"No existe el envio para la empresa indicada"}' }]);
    const s = await boletaUploadStatus(testContext(fetch, stubTokens()), CREDS, {
      rutEmpresa: '76192083-9',
      trackId: '9',
      ambiente: 'certificacion',
    });
    expect(s).toMatchObject({ estado: '', final: false, glosa: 'No existe el envio para la empresa indicada', documentsListed: false });
  });

  it('renews the token after a 401', async () => {
    const { fetch, seen } = scriptedFetch([
      { status: 401, body: 'NO ESTA AUTENTICADO', type: 'text/plain' },
      { status: 200, body: JSON.stringify(PROCESSED) },
    ]);
    const tokens = stubTokens();
    await boletaUploadStatus(testContext(fetch, tokens), CREDS, { rutEmpresa: '76192083-9', trackId: '4242', ambiente: 'certificacion' });
    expect(seen.map((x) => x.headers.cookie)).toEqual(['TOKEN=rest-token-1', 'TOKEN=rest-token-2']);
    expect(tokens.invalidated).toEqual(['rest-token-1']);
  });
});
