import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCaf } from '../../dte/index.ts';
import { manualClock } from '../../lib/clock.ts';
import { describeEachDb, openTestDb, type TestDb } from '../../../test/support/db.ts';
import type { ProviderCredentials } from '../port.ts';
import type { AceptacionReclamoResponse, EnvioResponse } from '../simpleapi/protocol.ts';
import { createSimpleApiProvider } from '../simpleapi/simpleapi.ts';
import { registroDecision } from './emulator.ts';
import { emulatorHarness, issuer, PASSWORD, RUT, type Harness } from './http.test-support.ts';
import { schemaValidatorFrom } from './schemas.ts';
import { ephemeralSiiKey } from './sii-key.ts';
import { copyEmulatorDatabase } from '../../../test/support/server-data.ts';
import { startStandaloneEmulator } from './standalone.ts';

/**
 * The SII's registro de aceptación o reclamo behind SimpleAPI's `compras/aceptacionreclamo`
 * (docs/emulator.md, "compras/aceptacionreclamo"): the recorded answer shape [C], and the codes of
 * docs/sources.md [RR] for each rule.
 */
const T0 = '2026-03-02T12:30:00.000Z';
const DAY = 86_400_000;

describe('registroDecision: the events before decide (…aceptacion-reclamo-dte-v1.2, accionDoc)', () => {
  it.each([
    ['ACD', [], 0, true],
    ['ERM', ['ACD'], 0, true],
    ['ACD', ['ERM'], 0, true],
    ['ACD', ['ACD'], 7, false],
    ['ERM', ['ERM'], 7, false],
    ['RCD', ['ACD'], 11, false],
    ['RFT', ['ERM'], 13, false],
    ['RFP', ['RCD'], 0, true],
    ['RCD', ['RCD'], 7, false],
    ['ERM', ['RFT'], 6, false],
    ['ACD', ['RFP'], 12, false],
  ] as const)('%s after %j → %i', (accion, before, code, record) => {
    expect(registroDecision(accion, before)).toEqual({ code, record });
  });
});

describeEachDb('emulator: compras/aceptacionreclamo over HTTP', (backend) => {
  let tdb: TestDb;
  let h: Harness;
  const clock = manualClock(T0);
  const co = issuer(() => h, clock);
  const folios: number[] = [];
  let nota = 0;
  let total = 0;

  beforeAll(async () => {
    tdb = await openTestDb(backend);
    h = await emulatorHarness({
      db: tdb.db,
      clock,
      siiKey: ephemeralSiiKey(),
      processingDelayMs: 0,
      schemaValidator: schemaValidatorFrom(),
    });
    const c33 = await co.caf(33, 6);
    const c61 = await co.caf(61, 1);
    const dtes = [0, 1, 2, 3, 4].map((i) => co.build(c33, co.input(33, c33.desde + i)));
    total = dtes[0]!.totals.montoTotal;
    const n = co.build(
      c61,
      co.input(61, c61.desde, {
        referencias: [{ tipoDocRef: 33, folioRef: c33.desde, fechaRef: '2026-03-02', codRef: 3, razonRef: 'Corrige' }],
      }),
    );
    const up = await co.send(co.envelope([...dtes.map((d) => d.xml), n.xml]), 1);
    expect(up.status, up.text).toBe(200);
    expect(up.json<EnvioResponse>().ok).toBe(true);
    folios.push(...dtes.map((_, i) => c33.desde + i), c33.hasta);
    nota = c61.desde;
  });
  afterAll(async () => {
    await h.close();
    await tdb.close();
  });

  const register = (input: Record<string, unknown>) =>
    h.call('POST', '/api/v1/compras/aceptacionreclamo', {
      input: { Certificado: co.certificado, Tipo: 33, Folio: folios[0], Accion: 'ACD', RutEmpresa: RUT, Ambiente: 0, ...input },
      files: [co.pfx],
    });
  const code = async (input: Record<string, unknown>) => {
    const a = await register(input);
    expect(a.status, a.text).toBe(200);
    const j = a.json<AceptacionReclamoResponse>();
    return [j.codRespuesta, j.descripcion];
  };

  it('answers in the recorded shape: HTTP 200, the SII SOAP text, codRespuesta 0 "Accion Completada OK"', async () => {
    const a = await register({});
    expect([a.status, a.type]).toEqual([200, 'application/json; charset=utf-8']);
    const j = a.json<AceptacionReclamoResponse>();
    expect(Object.keys(j)).toEqual(['response', 'codRespuesta', 'descripcion', 'fechaRecepcion', 'detalles']);
    expect(j).toEqual({
      response:
        '<?xml version="1.0" encoding="UTF-8"?>\n<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
        '<ns2:ingresarAceptacionReclamoDocResponse xmlns:ns2="http://ws.registroreclamodte.diii.sdi.sii.cl"><return><codResp>0</codResp>' +
        '<descResp>Accion Completada OK</descResp></return></ns2:ingresarAceptacionReclamoDocResponse></soap:Body></soap:Envelope>',
      codRespuesta: 0,
      descripcion: 'Accion Completada OK',
      fechaRecepcion: '0001-01-01T00:00:00',
      detalles: [],
    });
  });

  it('applies the registro rules: repeats, acceptance then claim, claim then acceptance', async () => {
    expect(await code({})).toEqual([7, 'Evento registrado previamente']);
    expect(await code({ Accion: 'ERM' })).toEqual([0, 'Accion Completada OK']);
    expect(await code({ Accion: 'RCD' })).toEqual([11, 'No se puede reclamar DTE previamente aceptado']);
    expect(await code({ Folio: folios[1], Accion: 'ERM' })).toEqual([0, 'Accion Completada OK']);
    expect(await code({ Folio: folios[1], Accion: 'RFT' })).toEqual([
      13,
      'No se puede reclamar DTE previamente registrado como que acuso recibo mercaderia',
    ]);
    expect(await code({ Folio: folios[2], Accion: 'RFP' })).toEqual([0, 'Accion Completada OK']);
    expect(await code({ Folio: folios[2], Accion: 'RCD' })).toEqual([0, 'Accion Completada OK']);
    expect(await code({ Folio: folios[2], Accion: 'ACD' })).toEqual([12, 'No se puede dar por aceptado DTE previamente rechazado por RFP']);
    expect(await code({ Folio: folios[2], Accion: 'ERM' })).toEqual([
      6,
      'No se puede acusar recibo de mercaderia de DTE previamente reclamado por RFP',
    ]);
  });

  it('refuses what the SII refuses: bad RUT (1), folio (2), a type it does not operate (3), an action (4), an unknown document (9)', async () => {
    expect(await code({ RutEmpresa: '76192083-0' })).toEqual([1, 'Rut Emisor Erroneo']);
    expect(await code({ Folio: 0 })).toEqual([2, 'Numero de Folio Erroneo']);
    expect(await code({ Tipo: 61, Folio: nota })).toEqual([3, 'Tipo de documento no corresponde']);
    expect(await code({ Accion: 'CNS' })).toEqual([4, 'Accion invalida']);
    // Granted but never sent to the SII; and another issuer's RUT [C: the recorded code 9].
    expect(await code({ Folio: folios[5] })).toEqual([9, 'No existen registros de acuerdo a los parametros ingresados']);
    expect(await code({ RutEmpresa: '96568970-2' })).toEqual([9, 'No existen registros de acuerdo a los parametros ingresados']);
    expect(total).toBeGreaterThan(0);
  });

  it('counts eight days from its own reception: at eight days it records, after them code 8', async () => {
    clock.set(new Date(new Date(T0).getTime() + 8 * DAY));
    expect(await code({ Folio: folios[3] })).toEqual([0, 'Accion Completada OK']);
    clock.advance(1000);
    expect(await code({ Folio: folios[4] })).toEqual([
      8,
      'Pasados 8 dias despues de la recepcion no es posible registrar reclamos o eventos',
    ]);
    // Past the window even a repeat is 8: "PASADOS 8 DÍAS NO SE PUEDEN INCORPORAR EVENTOS".
    expect(await code({ Folio: folios[3] })).toEqual([
      8,
      'Pasados 8 dias despues de la recepcion no es posible registrar reclamos o eventos',
    ]);
    clock.set(T0);
  });

  it('refuses a certificate the SII does not accept with the empty 401, and missing files with a 400', async () => {
    const bad = await h.call('POST', '/api/v1/compras/aceptacionreclamo', {
      input: {
        Certificado: { Rut: co.cert.rut, Password: 'otra' },
        Tipo: 33,
        Folio: folios[0],
        Accion: 'ACD',
        RutEmpresa: RUT,
        Ambiente: 0,
      },
      files: [co.pfx],
    });
    expect([bad.status, bad.text]).toEqual([401, '']);
    const none = await h.call('POST', '/api/v1/compras/aceptacionreclamo', { input: { Tipo: 33 } });
    expect(none.status).toBe(400);
    expect(h.core.stats().routes.acceptance?.total).toBeGreaterThan(0);
  });
});

describe('simpleapi adapter → standalone emulator over HTTP: registerAcceptance', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emu-acc-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const clock = manualClock(new Date());
  const co = issuer(() => {
    throw new Error('not used');
  }, clock);
  const creds: ProviderCredentials = { apiKey: 'sandbox-key-ok', pfx: co.pfx, pfxPassword: PASSWORD, rutCertificado: co.cert.rut };

  it('registers, answers a repeat as registered (7) and a refusal with the SII code', async () => {
    await copyEmulatorDatabase(dir); // migrated already (test/support/server-data.ts)
    const emu = await startStandaloneEmulator({ port: 0, dataDir: dir, processingDelayMs: 0, rateLimits: null });
    try {
      const p = createSimpleApiProvider({ apiBaseUrl: emu.url, serviciosBaseUrl: emu.url, timeoutMs: 10_000, retries: 0 });
      const c = parseCaf((await p.requestCaf(creds, { rutEmpresa: RUT, tipoDte: 33, cantidad: 2, ambiente: 'certificacion' })).cafXml);
      clock.set(new Date());
      const d = co.build(c, co.input(33, c.desde));
      await p.upload(creds, { rutEmpresa: RUT, envelope: co.envelope([d.xml]), tipo: 'dte', ambiente: 'certificacion' });
      const req = { rutEmisor: RUT, tipoDte: 33, folio: c.desde, ambiente: 'certificacion' as const };
      expect(await p.registerAcceptance(creds, { ...req, accion: 'ACD' })).toMatchObject({ outcome: 'registered', codigo: 0 });
      expect(await p.registerAcceptance(creds, { ...req, accion: 'ACD' })).toMatchObject({ outcome: 'registered', codigo: 7 });
      expect(await p.registerAcceptance(creds, { ...req, accion: 'RCD' })).toMatchObject({
        outcome: 'refused',
        codigo: 11,
        descripcion: 'No se puede reclamar DTE previamente aceptado',
      });
      expect(await p.registerAcceptance(creds, { ...req, folio: c.hasta, accion: 'ERM' })).toMatchObject({ outcome: 'refused', codigo: 9 });
      await expect(p.registerAcceptance({ ...creds, apiKey: 'bad' }, { ...req, accion: 'ERM' })).rejects.toMatchObject({
        kind: 'invalid_api_key',
      });
    } finally {
      await emu.close();
    }
  });
});
