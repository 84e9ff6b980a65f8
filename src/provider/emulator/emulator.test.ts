import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocumentBody, DTE_OPEN_TAG, stampDocument } from '../../dte/dte-xml.ts';
import { issueCaf, parseCaf, verifyCaf, type Caf } from '../../dte/index.ts';
import { normalizeDte } from '../../dte/normalize.ts';
import { buildSignature } from '../../dte/xmldsig.ts';
import { manualClock } from '../../lib/clock.ts';
import { sampleDteInput } from '../../../test/support/dte/fixtures.ts';
import { describeEachDb, openTestDb, type TestDb } from '../../../test/support/db.ts';
import type { ProviderCredentials } from '../port.ts';
import { TIPO_INCORRECTO, type EnvioBoletaStatusResponse, type EnvioDteStatusResponse, type EnvioResponse } from '../simpleapi/protocol.ts';
import { createSimpleApiProvider } from '../simpleapi/simpleapi.ts';
import { emulatorHarness, issuer, PASSWORD, RUT, type Harness } from './http.test-support.ts';
import { createInProcessEmulator } from './inprocess.ts';
import { schemaValidatorFrom } from './schemas.ts';
import { ephemeralSiiKey } from './sii-key.ts';
import { copyEmulatorDatabase } from '../../../test/support/server-data.ts';
import { startStandaloneEmulator } from './standalone.ts';
import { emulatorStore } from './store.ts';

const T0 = '2026-03-02T12:30:00.000Z';
const DAY = 86_400_000;

/** A correctly signed and stamped DTE whose totals were changed before signing. */
function dteWithWrongIva(c: Caf, folio: number, now: Date, signer: Parameters<typeof buildSignature>[2]): Buffer {
  const d = normalizeDte(sampleDteInput(33, folio, { fechaEmision: now.toISOString().slice(0, 10) }));
  d.totals = { ...d.totals, iva: d.totals.iva + 1, montoTotal: d.totals.montoTotal + 1 };
  const ts = now.toISOString().slice(0, 19);
  const ted = stampDocument(d, c, ts);
  const id = `F${folio}T33`;
  const content = buildDocumentBody(d) + ted.xml + `<TmstFirma>${ts}</TmstFirma></Documento>`;
  const sig = buildSignature(id, `<Documento xmlns="http://www.sii.cl/SiiDte" ID="${id}">${content}`, signer);
  return Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?>\n${DTE_OPEN_TAG}<Documento ID="${id}">${content}${sig}</DTE>`, 'latin1');
}

describeEachDb('emulator: SimpleAPI face over HTTP', (backend) => {
  let tdb: TestDb;
  let h: Harness;
  const clock = manualClock(T0);
  const co = issuer(() => h, clock);

  beforeAll(async () => {
    tdb = await openTestDb(backend);
    h = await emulatorHarness({
      db: tdb.db,
      clock,
      siiKey: ephemeralSiiKey(),
      processingDelayMs: 0,
      slowMs: 300,
      schemaValidator: schemaValidatorFrom(),
    });
  });
  afterAll(async () => {
    await h.close();
    await tdb.close();
  });

  const sendDte = async (dtes: Buffer[], tipo = 1) => {
    const up = await co.send(co.envelope(dtes), tipo);
    expect(up.status, up.text).toBe(200);
    return up.json<EnvioResponse>().trackId;
  };
  const dteCounts = async (trackId: number) => {
    const a = await co.envioStatus(trackId, false);
    expect(a.status).toBe(200);
    return a.json<EnvioDteStatusResponse>();
  };
  const detalle = async (trackId: number) => (await emulatorStore.getEnvio(tdb.db, trackId))!.detalle;

  describe('folios', () => {
    it('issues CAFs signed by its SII key (IDK 666) in consecutive ranges, indented as SimpleAPI serves them', async () => {
      const a = await h.call('POST', '/api/folios/get/33/5', { input: co.foliosInput(), files: [co.pfx] });
      expect(a.status).toBe(200);
      expect(a.type).toBe('application/xml; charset=iso-8859-1');
      const text = a.body.toString('latin1');
      expect(text.startsWith('<?xml version="1.0"?>\n<AUTORIZACION>\n    <CAF version="1.0">\n        <DA>\n            <RE>')).toBe(true);
      expect(text).toMatch(/\n            <RNG>\n                <D>1<\/D>\n                <H>5<\/H>\n            <\/RNG>\n/);
      expect(text).toMatch(/\n    <RSASK>-----BEGIN RSA PRIVATE KEY-----\n[\s\S]+-----END RSA PRIVATE KEY-----\n<\/RSASK>\n    <RSAPUBK>/);
      expect(text.endsWith('</RSAPUBK>\n</AUTORIZACION>')).toBe(true);
      const c = parseCaf(a.body);
      expect([c.idk, c.desde, c.hasta, c.rutEmisor, c.fechaAutorizacion]).toEqual([666, 1, 5, RUT, '2026-03-02']);
      expect(verifyCaf(c, h.core.siiKeys).valid).toBe(true);
      expect(verifyCaf(c, { '666': ephemeralSiiKey().publicKey }).valid).toBe(false);
      const b = await co.caf(33, 3);
      expect([b.desde, b.hasta]).toEqual([6, 8]);
    });

    it('answers the folios available as a bare number, and refuses more than that', async () => {
      const a = await h.call('POST', '/api/folios/get/33/', { input: co.foliosInput(), files: [co.pfx] });
      expect([a.status, a.type, a.text]).toEqual([200, 'application/json; charset=utf-8', '10000']);
      const big = await h.call('POST', '/api/folios/get/33/10001', { input: co.foliosInput(), files: [co.pfx] });
      expect([big.status, big.json()]).toEqual([400, { Mensaje: 'Cantidad solicitada supera lo permitido' }]);
    });

    it('answers missing parts and bad certificates as SimpleAPI does', async () => {
      const noFile = await h.call('POST', '/api/folios/get/33/1', { input: co.foliosInput() });
      expect([noFile.status, noFile.json()]).toEqual([400, { Mensaje: 'Faltan archivos en form-data' }]);
      const noInput = await h.call('POST', '/api/folios/get/33/1', { files: [co.pfx] });
      expect([noInput.status, noInput.json()]).toEqual([400, { Mensaje: 'Faltan archivos en form-data' }]);
      for (const input of [co.foliosInput({ Password: 'wrong' }), co.foliosInput({ RutCertificado: '11111111-1' })]) {
        const a = await h.call('POST', '/api/folios/get/33/1', { input, files: [co.pfx] });
        expect([a.status, a.type, a.body.length]).toEqual([401, '', 0]);
      }
      const bad = await co.dteStatus(
        { tipo: 33, folio: 1, total: 1 },
        { input: { Certificado: { Rut: co.cert.rut, Password: 'x' } }, files: [co.pfx] },
      );
      expect([bad.status, bad.body.length]).toEqual([401, 0]);
    });
  });

  describe('send and consulta/envio (EnvioDTE): counts only', () => {
    it('answers Tipo 1 with the SII RECEPCIONDTE, then EPR with the counts per type and nothing per document', async () => {
      clock.set(T0);
      const c33 = await co.caf(33);
      const c61 = await co.caf(61);
      const f = co.build(c33, co.input(33, c33.desde)).xml;
      const n = co.build(
        c61,
        co.input(61, c61.desde, {
          referencias: [{ tipoDocRef: 33, folioRef: c33.desde, fechaRef: '2026-03-02', codRef: 1, razonRef: 'Anula' }],
        }),
      ).xml;
      const up = await co.send(co.envelope([f, n]), 1);
      expect(up.status).toBe(200);
      const r = up.json<EnvioResponse>();
      expect(r).toMatchObject({
        rutEnvia: '12345678-5',
        rutEmpresa: RUT,
        estado: '0',
        ok: true,
        glosa: 'Upload OK',
        errores: null,
        fecha: '2026-03-02T09:30:00',
      });
      expect(typeof r.trackId).toBe('number');
      expect(r.file).toMatch(/^archivo_envio_\d{18}\.xml$/);
      expect(r.responseXml).toBe(
        `<?xml version="1.0"?>\n<RECEPCIONDTE>\n <RUTSENDER>12345678-5</RUTSENDER>\n <RUTCOMPANY>${RUT}</RUTCOMPANY>\n <FILE>${r.file}</FILE>\n` +
          ` <TIMESTAMP>2026-03-02 09:30:00</TIMESTAMP>\n <STATUS>0</STATUS>\n\n\n <TRACKID>${String(r.trackId).padStart(10, '0')}</TRACKID>\n\n</RECEPCIONDTE>`,
      );
      const st = await dteCounts(r.trackId);
      expect(Object.keys(st)).toEqual([
        'estados',
        'responseXml',
        'trackId',
        'estado',
        'ok',
        'numeroAtencion',
        'fechaAtencion',
        'srV_CODE',
        'sqL_CODE',
        'erR_CODE',
        'glosa',
      ]);
      expect(st).toMatchObject({
        trackId: r.trackId,
        estado: 'EPR',
        ok: true,
        glosa: 'Envio Procesado',
        fechaAtencion: '2026-03-02T09:30:00',
      });
      expect(st.estados).toEqual([
        { tipoDocumento: 33, cantidadInformados: 1, cantidadAceptados: 1, cantidadRechazados: 0, cantidadReparos: 0 },
        { tipoDocumento: 61, cantidadInformados: 1, cantidadAceptados: 1, cantidadRechazados: 0, cantidadReparos: 0 },
      ]);
      expect(st.responseXml).toContain('    <SII:RESP_BODY>\r\n        <TIPO_DOCTO>33</TIPO_DOCTO>\r\n        <INFORMADOS>1</INFORMADOS>');
      expect(st.responseXml).toContain(`<NUM_ATENCION>${st.numeroAtencion}   ( 2026/03/02 09:30:00)</NUM_ATENCION>`);
      const ds = await co.dteStatus({ tipo: 33, folio: c33.desde, total: co.build(c33, co.input(33, c33.desde)).totals.montoTotal });
      expect(ds.json()).toMatchObject({ estado: 'DOK', ok: true, glosaEstado: 'DTE Recibido', erR_CODE: null, codigo: null });
    });

    it("walks the SII's stages (REC, SOK, CRT, FOK, PDR) until the processing delay has passed", async () => {
      const slow = await emulatorHarness({ db: tdb.db, clock, siiKey: h.core.siiKey, processingDelayMs: 5000 });
      const s = issuer(() => slow, clock, { cert: co.cert });
      const c = await s.caf(34);
      const up = await s.send(s.envelope([s.build(c, s.input(34, c.desde)).xml]), 1);
      const trackId = up.json<EnvioResponse>().trackId;
      const seen: [string | null, boolean, number][] = [];
      for (let i = 0; i < 5; i++) {
        const st = (await s.envioStatus(trackId, false)).json<EnvioDteStatusResponse>();
        seen.push([st.estado, st.ok, st.estados.length]);
        clock.advance(1000);
      }
      expect(seen).toEqual([
        ['REC', false, 0],
        ['SOK', false, 0],
        ['CRT', false, 0],
        ['FOK', false, 0],
        ['PDR', false, 0],
      ]);
      expect((await s.envioStatus(trackId, false)).json()).toMatchObject({ estado: 'EPR', ok: true });
      await slow.close();
    });

    it('rejects a repeated DTE (DTE-3-100) and a reused folio (DTE-3-101); the first reception stands', async () => {
      clock.set(T0);
      const c = await co.caf(33);
      const first = co.build(c, co.input(33, c.desde));
      expect((await dteCounts(await sendDte([first.xml]))).estados[0]!.cantidadAceptados).toBe(1);
      const again = await sendDte([first.xml]);
      expect((await dteCounts(again)).estados[0]).toMatchObject({ cantidadInformados: 1, cantidadRechazados: 1 });
      expect((await detalle(again))[0]!.errores[0]).toMatchObject({
        codigo: 'DTE-3-100',
        descripcion: 'DTE Repetido (TipDoc, Folio, FchEmis, IVA, MntTot, RUTRecep)',
      });
      const other = co.build(c, co.input(33, c.desde, { detalle: [{ nombre: 'Otra cosa', cantidad: 1, precioUnitario: 1000 }] }));
      const reused = await sendDte([other.xml]);
      expect((await detalle(reused))[0]!.errores[0]!.codigo).toBe('DTE-3-101');
      expect((await co.dteStatus({ tipo: 33, folio: c.desde, total: first.totals.montoTotal })).json()).toMatchObject({ estado: 'DOK' });
    });

    it('a rejected document is not received: consulta/dte answers FAU; a folio never granted FNA', async () => {
      const c = await co.caf(33);
      const good = co.build(c, co.input(33, c.desde));
      // Same length and still schema-valid: only the signature can tell (DTE-3-505).
      const tampered = Buffer.from(good.xml.toString('latin1').replace('<GiroRecep>Comercio', '<GiroRecep>Comerzio'), 'latin1');
      const id = await sendDte([tampered]);
      expect((await dteCounts(id)).estados[0]).toMatchObject({ cantidadRechazados: 1, cantidadAceptados: 0 });
      expect((await detalle(id))[0]!.errores.map((e) => e.codigo)).toContain('DTE-3-505');
      const fau = (await co.dteStatus({ tipo: 33, folio: c.desde, total: good.totals.montoTotal })).json<Record<string, unknown>>();
      expect(fau).toMatchObject({ estado: 'FAU', ok: false, glosaEstado: 'DTE No Recibido' });
      expect(fau.responseXml).toContain('<ERR_CODE>3</ERR_CODE>');
      expect((await co.dteStatus({ tipo: 33, folio: 999_999, total: 1 })).json()).toMatchObject({ estado: 'FNA' });
    });

    it('answers DNK when the data differ from the document received', async () => {
      const c = await co.caf(33);
      const d = co.build(c, co.input(33, c.desde));
      await sendDte([d.xml]);
      expect((await co.dteStatus({ tipo: 33, folio: c.desde, total: d.totals.montoTotal + 1 })).json()).toMatchObject({
        estado: 'DNK',
        ok: false,
      });
    });

    it('rejects what the SII rejects: CAF expired at reception (CAF-3-517), a CAF never granted (CAF-3-519)', async () => {
      clock.set(T0);
      const c = await co.caf(56);
      clock.advance(179 * DAY);
      const ref = { tipoDocRef: 33, folioRef: 1, fechaRef: '2026-03-02', codRef: 1 as const, razonRef: 'Anula' };
      const doc = co.build(c, co.input(56, c.desde, { referencias: [ref] })).xml;
      clock.advance(2 * DAY);
      const expired = await sendDte([doc]);
      expect((await detalle(expired))[0]!.errores.map((e) => e.codigo)).toContain('CAF-3-517');
      clock.set(T0);
      const forged = issueCaf({
        rutEmisor: RUT,
        razonSocial: 'X',
        tipoDte: 34,
        desde: 900_000,
        hasta: 900_010,
        fechaAutorizacion: '2026-03-01',
        idk: 666,
        siiPrivateKey: h.core.siiKey.privateKey,
      }).caf;
      const f = await sendDte([co.build(forged, co.input(34, 900_000)).xml]);
      expect((await dteCounts(f)).estados[0]!.cantidadRechazados).toBe(1);
      expect((await detalle(f))[0]!.errores.map((e) => e.codigo)).toContain('CAF-3-519');
    });

    it('gives wrong totals a reparo (counted in cantidadReparos), not a rejection', async () => {
      const c = await co.caf(33);
      const id = await sendDte([dteWithWrongIva(c, c.desde, clock.now(), co.cert.signer)]);
      expect((await dteCounts(id)).estados[0]).toMatchObject({ cantidadAceptados: 0, cantidadReparos: 1, cantidadRechazados: 0 });
      expect((await detalle(id))[0]).toMatchObject({ estado: 'RPR', descripcion: 'DTE Aceptado con Reparos' });
    });

    it('rejects the whole envelope: RFR, RCT, RSC, with the short glosa and no counts', async () => {
      const c = await co.caf(33, 5);
      const d = co.build(c, co.input(33, c.desde)).xml;
      const env = co.envelope([d]).toString('latin1');
      const broken = Buffer.from(env.replace('<NroResol>80</NroResol>', '<NroResol>81</NroResol>'), 'latin1');
      const rfr = await dteCounts((await co.send(broken, 1)).json<EnvioResponse>().trackId);
      expect(rfr).toMatchObject({ estado: 'RFR', ok: false, estados: [], glosa: 'Rechazado por Error en Firma' });
      const rct = (await co.send(co.envelope([d], { rutReceptor: '77777777-7' }), 1)).json<EnvioResponse>();
      expect((await dteCounts(rct.trackId)).estado).toBe('RCT');
      const rsc = (await co.send(co.envelope([d]), 2)).json<EnvioResponse>();
      expect((await co.envioStatus(rsc.trackId, true)).json()).toMatchObject({ estado: 'RSC', estadistica: [], detalles: [] });
    });

    it("refuses a file with a line over 4,090 characters, as the SII's parser does (RSC, CHR-00002); 4,090 passes", async () => {
      const c = await co.caf(33, 4);
      const env = co.envelope([co.build(c, co.input(33, c.desde)).xml]);
      // A comment after the root: the signatures, the schema and the documents stay valid, only the
      // line's length differs.
      const withLine = (n: number) => Buffer.concat([env, Buffer.from(`\n<!--${'x'.repeat(n - 7)}-->`, 'latin1')]);
      const long = (await co.send(withLine(4091), 1)).json<EnvioResponse>();
      expect(await dteCounts(long.trackId)).toMatchObject({ estado: 'RSC', estados: [] });
      // SimpleAPI relays the short glosa; the SII's reason is in its record (and its e-mail).
      expect((await dteCounts(long.trackId)).glosa).toBe('Rechazado por Error en Schema');
      expect((await emulatorStore.getEnvio(tdb.db, long.trackId))!.glosa).toContain(
        `CHR-00002: Line too long (4090) (línea ${env.toString('latin1').split('\n').length + 1}: 4091 caracteres)`,
      );
      const ok = (await co.send(withLine(4090), 1)).json<EnvioResponse>();
      expect((await dteCounts(ok.trackId)).estado).toBe('EPR');
      const b = await co.caf(39, 2);
      const boletas = co.envelope([co.build(b, co.input(39, b.desde)).xml]);
      const longBoleta = Buffer.concat([boletas, Buffer.from(`\n<!--${'x'.repeat(5000)}-->`, 'latin1')]);
      const rsc = (await co.send(longBoleta, 2)).json<EnvioResponse>();
      expect((await co.envioStatus(rsc.trackId, true)).json()).toMatchObject({ estado: 'RSC', estadistica: [], detalles: [] });
    });

    it('answers the SII query failures: 106 for another company, -11 for an unknown trackId, 007 without Certificado', async () => {
      const c = await co.caf(33);
      const id = await sendDte([co.build(c, co.input(33, c.desde)).xml]);
      const other = (await co.envioStatus(id, false, { RutEmpresa: '76253572-6' })).json<EnvioDteStatusResponse>();
      expect(other).toMatchObject({
        estados: [],
        trackId: 0,
        estado: '106',
        ok: false,
        numeroAtencion: 0,
        fechaAtencion: '0001-01-01T00:00:00',
        glosa: 'Usuario no tiene permiso en empresa',
      });
      expect(other.responseXml).toContain('<ESTADO>106</ESTADO>');
      const unknown = (await co.envioStatus(987_654_321, false)).json<EnvioDteStatusResponse>();
      expect(unknown).toMatchObject({
        estado: '-11',
        erR_CODE: '1',
        ok: false,
        glosa: 'El envío no es de la Empresa, faltan parámetros de entrada.',
      });
      // A DTE trackId asked on the boleta server is not found there.
      expect((await co.envioStatus(id, true)).json()).toMatchObject({ estado: null, response: 'Error de Permiso', estadistica: null });
      const noCert = await h.call('POST', '/api/v1/consulta/envio', {
        input: { CertificadoDigital: co.certificado, RutEmpresa: RUT, TrackId: id, Ambiente: 0, ServidorBoletaREST: false },
        files: [co.pfx],
      });
      expect(noCert.json()).toMatchObject({
        estado: null,
        ok: false,
        trackId: 0,
        glosa: 'Object reference not set to an instance of an object.',
      });
    });
  });

  describe('send and consulta/envio (boletas): detalles of RCH and RPR only', () => {
    it('answers Tipo 2 with the boleta server JSON, then estadistica and detalles with SII codes', async () => {
      const c = await co.caf(39);
      const ok = co.build(c, co.input(39, c.desde)).xml;
      const rej = co.build(c, co.input(39, c.desde + 1, { receptor: { rut: '77.777.777-7', razonSocial: 'Prueba RECHAZO SpA' } })).xml;
      const rep = co.build(c, co.input(39, c.desde + 2, { receptor: { rut: '77.777.777-7', razonSocial: 'Prueba reparo SpA' } })).xml;
      const up = await co.send(co.envelope([ok, rej, rep]), 2);
      const r = up.json<EnvioResponse>();
      expect(r).toMatchObject({ estado: 'REC', ok: true, glosa: '', errores: null, rutEmpresa: RUT });
      expect(r.file).toMatch(/^\d{18}_ENVIO_BOLETA\.xmlSRV_CODE$/);
      expect(JSON.parse(r.responseXml!)).toEqual({
        rut_emisor: RUT,
        rut_envia: '12345678-5',
        trackid: r.trackId,
        fecha_recepcion: '2026-03-02 09:30:00',
        estado: 'REC',
        file: r.file,
      });
      const st = (await co.envioStatus(r.trackId, true)).json<EnvioBoletaStatusResponse>();
      expect(st).toMatchObject({
        rutEmisor: RUT,
        rutEnvia: '12345678-5',
        trackId: r.trackId,
        fechaRecepcion: '02/03/2026 09:30:00',
        estado: 'EPR',
        response: null,
      });
      expect(st.estadistica).toEqual([{ tipo: 39, informados: 3, aceptados: 1, rechazados: 1, reparos: 1 }]);
      expect(st.detalles).toEqual([
        {
          tipo: 39,
          folio: c.desde + 1,
          estado: 'RCH',
          descripcion: 'DTE Rechazado',
          errores: [
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
        {
          tipo: 39,
          folio: c.desde + 2,
          estado: 'RPR',
          descripcion: 'DTE Aceptado con Reparos',
          errores: [
            {
              seccion: 'SBX',
              linea: 0,
              nivel: 2,
              codigo: 1,
              descripcion: 'Reparo de prueba',
              detalle: 'sandbox: razón social del receptor contiene REPARO',
            },
          ],
        },
      ]);
      expect(st.errores).toBe('sandbox: razón social del receptor contiene RECHAZO; sandbox: razón social del receptor contiene REPARO');
      // A boleta without a receptor names the SII's generic one.
      const total = co.build(c, co.input(39, c.desde)).totals.montoTotal;
      const boletaDte = await co.dteStatus({ tipo: 39, folio: c.desde, total, receptor: '66666666-6', boleta: true });
      expect(boletaDte.json()).toMatchObject({ responseXml: null, estado: null, ok: false, codigo: 'DOK', glosaEstado: null });
      expect((await co.dteStatus({ tipo: 39, folio: c.desde + 1, total: 1, boleta: true })).json()).toMatchObject({
        codigo: 'FAU',
        descripcion: 'Documento No Recibido por el SII',
      });
      expect((await co.envioStatus(r.trackId, true, { RutEmpresa: '76253572-6' })).json()).toEqual({
        rutEmisor: null,
        rutEnvia: null,
        trackId: 0,
        fechaRecepcion: null,
        estado: null,
        response: 'Error de Permiso',
        estadistica: null,
        detalles: null,
      });
    });

    it('answers a wrong Tipo with TIPO_INCORRECTO and an empty or unreadable upload with trackId -999999', async () => {
      const c = await co.caf(33);
      const env = co.envelope([co.build(c, co.input(33, c.desde)).xml]);
      const six = await co.send(env, 6);
      expect([six.status, six.type, six.text]).toEqual([400, 'text/plain; charset=utf-8', TIPO_INCORRECTO]);
      for (const [bytes, estado] of [
        [Buffer.alloc(0), '2'],
        [Buffer.from('%PDF-1.4 not an envelope'), '7'],
      ] as const) {
        const a = await co.send(bytes, 1);
        expect(a.status).toBe(400);
        const r = a.json<EnvioResponse>();
        expect(r).toMatchObject({ ok: false, trackId: -999999, estado });
        expect(typeof r.errores).toBe('string');
        expect(Object.keys(r)).toEqual([
          'rutEnvia',
          'rutEmpresa',
          'file',
          'fecha',
          'estado',
          'ok',
          'glosa',
          'errores',
          'trackId',
          'responseXml',
        ]);
      }
      const one = await h.call('POST', '/api/v1/envio/enviar', {
        input: { Certificado: co.certificado, Ambiente: 0, Tipo: 1 },
        files: [co.pfx],
      });
      expect([one.status, one.text]).toEqual([400, 'Faltan archivos en form-data']);
    });
  });

  describe('annulment', () => {
    it('answers one entry per CAF the range touches, with the SII texts, 200 only when all succeed', async () => {
      clock.set('2026-03-02T05:48:00Z');
      const a = await co.caf(52, 5);
      const b = await co.caf(52, 5);
      const ok = await co.annul(52, b.desde + 3, b.hasta);
      expect(ok.status).toBe(200);
      expect(ok.json()).toEqual([
        {
          exito: true,
          mensaje:
            `En Santiago, con fecha 02-03-2026 02:48, el Servicio de Impuestos Internos ha autorizado la anulación del documento GUIA DE DESPACHO ELECTRONICA, con la numeración desde ${b.desde + 3} hasta ${b.hasta}. ` +
            `Presentada por el contribuyente CONTRIBUYENTE ${RUT}, R.U.T.N° ${RUT} , y enviada a través de Internet por el Sr(a). , Cédula de Identidad N° 12345678-5, autorizado por el contribuyente emisor a este efecto.`,
          folioInicialCAF: b.desde,
          folioFinalCAF: b.hasta,
        },
      ]);
      await sendDte([co.build(a, co.input(52, a.desde)).xml]);
      const mixed = await co.annul(52, a.desde, b.hasta);
      expect(mixed.status).toBe(400);
      const entries = mixed.json<{ exito: boolean; mensaje: string; folioInicialCAF: number; folioFinalCAF: number }[]>();
      expect(entries.map((e) => [e.exito, e.folioInicialCAF, e.folioFinalCAF])).toEqual([
        [false, b.desde, b.hasta],
        [false, a.desde, a.hasta],
      ]);
      expect(entries[0]!.mensaje).toBe(
        'En esta página podrá solicitar la anulación de folios..\r\nEl rango de folios que desea anular ya ha sido efectuado anteriormente, por lo que no podrá efectuar esta transacción nuevamente.\r\n' +
          `Fecha Anulación\r\n02-03-2026\r\nFolio Inicial Anulado\r\n${b.desde + 3}\r\nFolio Final Anulado\r\n${b.hasta}\r\nAnulado por\r\nFIRMANTE DE PRUEBA\r\n`,
      );
      expect(entries[1]!.mensaje).toContain('al menos un folio ha sido recepcionado por el SII');
      expect((await co.dteStatus({ tipo: 52, folio: b.hasta, total: 1 })).json()).toMatchObject({
        estado: 'FAN',
        glosaEstado: 'DTE No Recibido',
      });
      const none = await co.annul(52, 900_000, 900_001);
      expect(none.status).toBe(400);
      clock.set(T0);
    });

    it('rejects a document whose folio was annulled (DTE-3-601)', async () => {
      const c = await co.caf(34, 2);
      expect((await co.annul(34, c.desde, c.desde)).status).toBe(200);
      const id = await sendDte([co.build(c, co.input(34, c.desde)).xml]);
      expect((await detalle(id))[0]!.errores.map((e) => e.codigo)).toContain('DTE-3-601');
    });
  });

  describe('keys', () => {
    const folios = (key: string | undefined, auth?: string | null) =>
      h.call('POST', '/api/folios/get/33/1', {
        input: co.foliosInput(),
        files: [co.pfx],
        ...(key ? { key } : {}),
        ...(auth !== undefined ? { auth } : {}),
      });
    const sub = (key: string) => h.call('GET', '/api/v1/suscripcion/status', { key });

    it('refuses an invalid key: empty 401 on the DTE host, "API KEY Incorrecta" on servicios; Bearer is refused', async () => {
      for (const key of ['short', 'my-invalid-key']) {
        const a = await sub(key);
        expect([a.status, a.type, a.body.length]).toEqual([401, '', 0]);
        const f = await folios(key);
        expect([f.status, f.json()]).toEqual([401, { Mensaje: 'API KEY Incorrecta. No es posible continuar' }]);
      }
      expect((await folios(undefined, null)).status).toBe(401);
      expect((await folios(undefined, 'Bearer sandbox-key-ok')).status).toBe(401);
      expect((await folios(undefined, `Basic ${Buffer.from('api:sandbox-key-ok').toString('base64')}`)).status).toBe(200);
    });

    it('answers an expired key, an exhausted plan and an outage in their own words', async () => {
      for (const a of [await sub('key-expired-123'), await folios('key-expired-123')]) {
        expect([a.status, a.json()]).toEqual([401, { error: 'Apikey vencida. No es posible continuar' }]);
      }
      const plan = await sub('key-quota-123');
      expect(plan.status).toBe(200);
      expect(plan.json<{ uso: number; maximo: number }[]>().every((x) => x.uso === x.maximo)).toBe(true);
      for (const a of [await folios('key-quota-123'), await co.envioStatus(1, false, {}, { key: 'key-quota-123' })]) {
        expect([a.status, a.json()]).toEqual([401, { Mensaje: 'Límite de la suscripción alcanzado' }]);
      }
      expect((await folios('key-unavailable-1')).status).toBe(503);
      const t = Date.now();
      expect((await sub('key-slow-12345')).status).toBe(200);
      expect(Date.now() - t).toBeGreaterThanOrEqual(290);
    });
  });

  describe('call statistics', () => {
    it('counts every answered call by route and outcome, and resets', async () => {
      h.core.resetStats();
      await h.call('GET', '/api/v1/suscripcion/status');
      await h.call('GET', '/api/v1/suscripcion/status', { key: 'bad' });
      await h.call('POST', '/api/folios/get/33/1', { input: co.foliosInput() });
      await h.call('POST', '/api/v1/nothing/here');
      await h.call('GET', '/emulator/health');
      const s = h.core.stats();
      expect(s.total).toBe(4);
      expect(s.routes.subscription).toMatchObject({ host: 'api', total: 2, '2xx': 1, '4xx': 1 });
      expect(s.routes.folios).toMatchObject({ host: 'servicios', total: 1, '4xx': 1 });
      expect(s.routes.unknown?.total).toBe(1);
      expect(s.hosts.servicios.total).toBe(1);
      const viaHttp = await h.call('GET', '/emulator/stats');
      expect(viaHttp.json()).toMatchObject({ total: 4 });
      const reset = await h.call('POST', '/emulator/stats/reset');
      expect(reset.json()).toMatchObject({ total: 4 });
      expect(h.core.stats().total).toBe(0);
    });
  });
});

describeEachDb('emulator in-process, through the simpleapi adapter', (backend) => {
  let tdb: TestDb;
  const clock = manualClock(T0);
  const co = issuer(() => {
    throw new Error('not used');
  }, clock);
  const creds = (apiKey = 'sandbox-key-ok'): ProviderCredentials => ({
    apiKey,
    pfx: co.pfx,
    pfxPassword: PASSWORD,
    rutCertificado: co.cert.rut,
  });

  beforeAll(async () => {
    tdb = await openTestDb(backend);
  });
  afterAll(() => tdb.close());

  it('issues, sends and confirms through the same routes, counting its calls', async () => {
    const emu = createInProcessEmulator({
      db: tdb.db,
      clock,
      siiKey: ephemeralSiiKey(),
      processingDelayMs: 0,
      schemaValidator: schemaValidatorFrom(),
    });
    const c = parseCaf((await emu.requestCaf(creds(), { rutEmpresa: RUT, tipoDte: 33, cantidad: 3, ambiente: 'certificacion' })).cafXml);
    expect(verifyCaf(c, { '666': emu.siiKey.publicKey }).valid).toBe(true);
    const d = co.build(c, co.input(33, c.desde));
    const up = await emu.upload(creds(), { rutEmpresa: RUT, envelope: co.envelope([d.xml]), tipo: 'dte', ambiente: 'certificacion' });
    const st = await emu.uploadStatus(creds(), { rutEmpresa: RUT, trackId: up.trackId, tipo: 'dte', ambiente: 'certificacion' });
    expect(st).toMatchObject({ estado: 'EPR', final: true, documents: [] });
    expect(st.estadistica).toEqual([{ tipoDte: 33, informados: 1, aceptados: 1, rechazados: 0, reparos: 0 }]);
    const ds = await emu.documentStatus(creds(), {
      rutEmpresa: RUT,
      tipoDte: 33,
      folio: c.desde,
      rutReceptor: '77777777-7',
      fechaEmision: '2026-03-02',
      montoTotal: d.totals.montoTotal,
      ambiente: 'certificacion',
    });
    expect(ds.estado).toBe('DOK');
    expect(emu.stats().routes).toMatchObject({
      folios: { total: 1 },
      send: { total: 1 },
      envioStatus: { total: 1 },
      dteStatus: { total: 1 },
    });
    emu.resetStats();
    expect(emu.stats().total).toBe(0);
    await emu.close();
  });
});

describe('emulator standalone over HTTP, with the simpleapi adapter', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emu-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const clock = manualClock(new Date());
  const co = issuer(() => {
    throw new Error('not used');
  }, clock);
  const creds = (apiKey = 'sandbox-key-ok'): ProviderCredentials => ({
    apiKey,
    pfx: co.pfx,
    pfxPassword: PASSWORD,
    rutCertificado: co.cert.rut,
  });

  it('serves SimpleAPI routes over a socket and keeps its records across a restart', async () => {
    await copyEmulatorDatabase(dir); // migrated already (test/support/server-data.ts)
    let emu = await startStandaloneEmulator({ port: 0, dataDir: dir, processingDelayMs: 0, rateLimits: null });
    const client = (url: string) => createSimpleApiProvider({ apiBaseUrl: url, serviciosBaseUrl: url, timeoutMs: 10_000, retries: 0 });
    let p = client(emu.url);
    expect(fs.readFileSync(path.join(dir, 'sii-666.pub.pem'), 'utf8')).toBe(emu.siiKey.publicKeyPem);
    const c = parseCaf((await p.requestCaf(creds(), { rutEmpresa: RUT, tipoDte: 33, cantidad: 2, ambiente: 'produccion' })).cafXml);
    clock.set(new Date());
    const d = co.build(c, co.input(33, c.desde));
    const up = await p.upload(creds(), { rutEmpresa: RUT, envelope: co.envelope([d.xml]), tipo: 'dte', ambiente: 'produccion' });
    await expect(p.verifyApiKey('bad')).rejects.toMatchObject({ kind: 'invalid_api_key' });
    await expect(p.verifyApiKey('key-expired-123')).rejects.toMatchObject({ kind: 'expired_api_key' });
    await emu.close();

    emu = await startStandaloneEmulator({ port: 0, dataDir: dir, processingDelayMs: 0, rateLimits: null });
    p = client(emu.url);
    const st = await p.uploadStatus(creds(), { rutEmpresa: RUT, trackId: up.trackId, tipo: 'dte', ambiente: 'produccion' });
    expect(st).toMatchObject({ estado: 'EPR', estadistica: [{ tipoDte: 33, aceptados: 1 }] });
    const next = parseCaf((await p.requestCaf(creds(), { rutEmpresa: RUT, tipoDte: 33, cantidad: 1, ambiente: 'produccion' })).cafXml);
    expect(next.desde).toBe(c.hasta + 1);
    expect(verifyCaf(next, { '666': emu.siiKey.publicKey }).valid).toBe(true);
    expect(await (await fetch(`${emu.url}/emulator/sii-public-key.pem`)).text()).toBe(emu.siiKey.publicKeyPem);
    const stats = (await (await fetch(`${emu.url}/emulator/stats`)).json()) as { routes: Record<string, { total: number }> };
    expect(stats.routes.envioStatus?.total).toBe(1);
    await emu.close();
  });
});
