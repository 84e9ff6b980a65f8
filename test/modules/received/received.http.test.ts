import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEnvelope, formatRutDotted, siiDate, type PreparedSigner } from '../../../src/dte/index.ts';
import { EVENT_DATA_SCHEMAS } from '../../../src/modules/webhooks/index.ts';
import type { InProcessEmulator } from '../../../src/provider/emulator/inprocess.ts';
import { describeEachDb } from '../../support/db.ts';
import { checkRespuesta } from '../../support/dte/check-respuesta.ts';
import { runCheckSiiXml } from '../../support/dte/check-sii-xml.ts';
import { REAL_DTE_DIR } from '../../support/dte/sii-fixtures.ts';
import { createTestKit, sampleDteInput } from '../../support/dte/fixtures.ts';
import { validTenant } from '../../support/app.ts';
import {
  dteBody,
  randomRut,
  readyTenant,
  requestFolios,
  startIssuingApp,
  testCertificate,
  waitFinal,
  type IssuingApp,
} from '../../support/issuing.ts';
import { pdfText } from '../../support/pdf.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { flatXml } from '../../support/dte/lines.ts';

/**
 * Receiving a supplier's EnvioDTE through the real app on a real database (docs/received.md): a
 * factura issued by a tenant of one account and accepted by the emulator reaches a tenant of
 * another account, is verified, stored once (a second upload is recognised), answered with a
 * RespuestaEnvioDTE that passes the SII's schema and xmlsec1, announced by `dte.received`; then
 * every forged or hostile upload is refused with its own code, never a 5xx, and stores nothing.
 */
const ajv = new Ajv({ strict: false });
(addFormats as unknown as (a: Ajv) => void)(ajv);
const validEventData = ajv.compile({ ...EVENT_DATA_SCHEMAS['dte.received'], additionalProperties: false });

const latin1 = (b: Buffer) => b.toString('latin1');
const edit = (b: Buffer, from: string | RegExp, to: string | ((m: string, ...g: string[]) => string)) => {
  const s = latin1(b);
  const out = s.replace(from, to as string);
  expect(out).not.toBe(s);
  return Buffer.from(out, 'latin1');
};

describeEachDb('POST …/received: documents from suppliers', (backend) => {
  let t: IssuingApp;
  let supplier: { accountId: string; key: string };
  let buyer: { accountId: string; key: string };
  let tenantS: string;
  let tenantB: string;
  let rutS: string;
  let rutB: string;
  let signer: PreparedSigner;
  let receiver: WebhookReceiver;
  /** The factura the supplier issued to the buyer, accepted by the emulator. */
  let facturaXml: Buffer;
  let facturaTotal: number;
  /** Facturas of the same supplier: one to the buyer (kept for the mixed upload), one to another company. */
  let secondXml: Buffer;
  let toOtherXml: Buffer;
  let raceXml: Buffer;

  const sii = (dotted: string) => dotted.replace(/\./g, '');
  const envelope = (dtes: Buffer[], over: { rutReceptor?: string; rutEmisor?: string; signer?: PreparedSigner; setId?: string } = {}) =>
    buildEnvelope({
      dtes,
      rutEmisor: over.rutEmisor ?? rutS,
      rutReceptor: over.rutReceptor ?? rutB,
      fechaResolucion: '2014-08-22',
      numeroResolucion: 80,
      signer: over.signer ?? signer,
      now: new Date(),
      ...(over.setId ? { setId: over.setId } : {}),
    }).xml;
  const upload = (body: Buffer | string, opts: { key?: string; tenant?: string; type?: string; query?: string } = {}) =>
    t.call(opts.key ?? buyer.key, {
      method: 'POST',
      url: `/api/v1/tenants/${opts.tenant ?? tenantB}/received${opts.query ?? ''}`,
      payload: body,
      headers: { 'content-type': opts.type ?? 'application/xml' },
    });
  const get = (url: string, key = buyer.key) => t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantB}${url}` });
  const count = async () => (await get('/received?limit=250')).json().data.length as number;
  const issue = async (receptorRut: string) => {
    const body = dteBody(33, { receptor: { ...(dteBody(33).receptor as object), rut: receptorRut } });
    const c = await t.call(supplier.key, { method: 'POST', url: `/api/v1/tenants/${tenantS}/dte`, payload: body });
    expect(c.statusCode, c.body).toBe(201);
    const xml = await t.call(supplier.key, { method: 'GET', url: `/api/v1/tenants/${tenantS}/dte/${c.json().id}/xml` });
    return { id: c.json().id as string, total: c.json().montoTotal as number, xml: xml.rawPayload };
  };

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    supplier = await t.account('Supplier');
    buyer = await t.account('Buyer');
    tenantS = await readyTenant(t, supplier.key);
    tenantB = await readyTenant(t, buyer.key);
    rutS = sii((await t.call(supplier.key, { method: 'GET', url: `/api/v1/tenants/${tenantS}` })).json().rutEmpresa);
    rutB = sii((await t.call(buyer.key, { method: 'GET', url: `/api/v1/tenants/${tenantB}` })).json().rutEmpresa);
    signer = testCertificate().cert.signer;
    receiver = await startWebhookReceiver();
    const ep = await t.call(buyer.key, {
      method: 'POST',
      url: '/api/v1/webhooks/endpoints',
      payload: { url: receiver.url, filterTypes: ['dte.received'] },
    });
    expect(ep.statusCode, ep.body).toBe(201);
    receiver.secret = ep.json().secret;

    await requestFolios(t, supplier.key, tenantS, 33, 10);
    const factura = await issue(formatRutDotted(rutB));
    const sent = await t.call(supplier.key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantS}/dte/send`,
      payload: { dteIds: [factura.id] },
    });
    expect(sent.statusCode, sent.body).toBe(202);
    expect((await waitFinal(t, supplier.key, factura.id)).status).toBe('accepted');
    facturaXml = factura.xml;
    facturaTotal = factura.total;
    secondXml = (await issue(formatRutDotted(rutB))).xml;
    toOtherXml = (await issue('77.777.777-7')).xml;
    raceXml = (await issue(formatRutDotted(rutB))).xml;
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  describe('a document from a tenant of another account', () => {
    let envioId: string;
    let receivedId: string;
    let uploaded: Buffer;

    it('is verified, stored and answered with a signed RespuestaEnvioDTE valid against the SII schema', async () => {
      uploaded = envelope([facturaXml]);
      const r = await upload(uploaded, { query: '?nombreEnvio=EnvioDTE_proveedor.xml' });
      expect(r.statusCode, r.body).toBe(201);
      const { envio, respuestaXml } = r.json();
      expect(envio).toMatchObject({
        codEnvio: expect.any(Number),
        envioDteId: 'SetDoc',
        nombreEnvio: 'EnvioDTE_proveedor.xml',
        rutEmisor: rutS,
        rutEnvia: '12345678-5',
        estadoRecepEnv: 0,
        glosa: 'Envio Recibido Conforme: 1 DTE recibidos, 0 repetidos, 0 no recibidos',
      });
      expect(envio.documents).toEqual([
        {
          index: 0,
          tipoDte: 33,
          folio: 1,
          fechaEmision: siiDate(new Date()),
          rutEmisor: rutS,
          rutReceptor: rutB,
          montoTotal: facturaTotal,
          estadoRecepDte: 0,
          glosa: 'DTE Recibido OK',
          outcome: 'received',
          receivedDteId: expect.any(String),
          error: null,
        },
      ]);
      envioId = envio.id;
      receivedId = envio.documents[0].receivedDteId;

      const respuesta = Buffer.from(respuestaXml, 'latin1');
      const check = checkRespuesta(respuesta);
      expect(check.ok, check.output).toBe(true);
      const text = flatXml(respuesta);
      expect(text).toContain(
        `<RutResponde>${rutB}</RutResponde><RutRecibe>${rutS}</RutRecibe><IdRespuesta>${envio.codEnvio}</IdRespuesta>`,
      );
      expect(text).toContain('<NmbEnvio>EnvioDTE_proveedor.xml</NmbEnvio>');
      expect(text).toContain(`<CodEnvio>${envio.codEnvio}</CodEnvio><EnvioDTEID>SetDoc</EnvioDTEID><Digest>`);
      expect(text).toContain(`<RUTRecep>${rutB}</RUTRecep><MntTotal>${facturaTotal}</MntTotal><EstadoRecepDTE>0</EstadoRecepDTE>`);

      // The stored answer is the one given, byte for byte.
      const stored = await get(`/received/envios/${envioId}/respuesta`);
      expect(stored.statusCode).toBe(200);
      expect(stored.headers['content-type']).toBe('application/xml; charset=ISO-8859-1');
      expect(stored.rawPayload.equals(respuesta)).toBe(true);
      expect((await get(`/received/envios/${envioId}`)).json()).toEqual(envio);
    });

    it('shows the document with its state and its 8-day acceptance deadline, its XML as received and its PDF', async () => {
      const r = await get(`/received/${receivedId}`);
      expect(r.statusCode, r.body).toBe(200);
      const d = r.json();
      expect(d).toMatchObject({
        id: receivedId,
        tenantId: tenantB,
        envioId,
        tipoDte: 33,
        folio: 1,
        emisor: { rut: rutS, razonSocial: 'Servicios Ejemplo SpA', giro: 'Desarrollo de software' },
        receptor: { rut: rutB },
        montoTotal: facturaTotal,
        iva: expect.any(Number),
        status: 'received',
        acciones: [],
      });
      expect(Date.parse(d.acceptanceDeadline) - Date.parse(d.receivedAt)).toBe(8 * 86_400_000);

      const xml = await get(`/received/${receivedId}/xml`);
      expect(xml.statusCode).toBe(200);
      expect(xml.headers['content-type']).toBe('application/xml; charset=ISO-8859-1');
      // The supplier's signed bytes, untouched: the reference checker verifies them and the envelope.
      expect(latin1(xml.rawPayload)).toContain(latin1(facturaXml).replace(/^<\?xml[^>]*>\s*/, ''));
      const check = runCheckSiiXml(
        [
          { name: 'received.xml', bytes: xml.rawPayload },
          { name: 'envelope.xml', bytes: uploaded },
        ],
        { cafKeyPem: (t.ctx.provider as InProcessEmulator).siiKey.publicKeyPem },
      );
      expect(check.failures, check.output).toEqual([]);

      const pdf = await get(`/received/${receivedId}/pdf`);
      expect(pdf.statusCode, pdf.body).toBe(200);
      expect(pdf.headers['content-type']).toBe('application/pdf');
      expect(pdf.headers['content-disposition']).toBe(`inline; filename="DTE-${rutS}-T33-F1.pdf"`);
      const text = pdfText(pdf.rawPayload);
      expect(text).toContain('FACTURA ELECTRÓNICA');
      expect(text).toContain(`R.U.T.: ${formatRutDotted(rutS)}`);
      expect(text).toContain('Res. 80 de 2014');
      expect((await get(`/received/${receivedId}/pdf?formato=80mm`)).statusCode).toBe(200);
    });

    it('announces it once with dte.received, through the outbox, to an endpoint filtering on it', async () => {
      await receiver.waitFor((all) => all.some((x) => x.payload?.data.receivedDteId === receivedId), 30_000);
      const deliveries = receiver.deliveries.filter((x) => x.payload?.event === 'dte.received');
      expect(deliveries.every((x) => x.verified)).toBe(true);
      const [delivery] = deliveries.filter((x) => x.payload?.data.receivedDteId === receivedId);
      expect(validEventData(delivery!.payload!.data), JSON.stringify(validEventData.errors)).toBe(true);
      expect(delivery!.payload!.data).toMatchObject({
        tenantId: tenantB,
        tipoDte: 33,
        folio: 1,
        emisor: { rut: rutS },
        montoTotal: facturaTotal,
        status: 'received',
      });
      // The supplier's account hears nothing of it.
      const events = await t.ctx.db.query<{ account_id: string }>(`select account_id from outbox_events where event_type = 'dte.received'`);
      expect(events.rows.map((e) => e.account_id)).toEqual([buyer.accountId]);
    });

    it('recognises a second upload: answered "DTE Repetido", not stored again, no second event', async () => {
      const again = await upload(uploaded);
      expect(again.statusCode, again.body).toBe(200);
      const { envio, respuestaXml } = again.json();
      expect(envio.id).not.toBe(envioId);
      expect(envio.documents).toMatchObject([
        { outcome: 'repeated', estadoRecepDte: 4, glosa: 'DTE No Recibido - DTE Repetido', receivedDteId: receivedId },
      ]);
      const respuesta = Buffer.from(respuestaXml, 'latin1');
      expect(flatXml(respuesta)).toContain(
        '<EstadoRecepDTE>4</EstadoRecepDTE><RecepDTEGlosa>DTE No Recibido - DTE Repetido</RecepDTEGlosa>',
      );
      expect(checkRespuesta(respuesta).ok).toBe(true);
      // Re-enveloped by the supplier (another envelope signature): still the same document.
      expect((await upload(envelope([facturaXml], { setId: 'Reenvio' }))).json().envio.documents[0].outcome).toBe('repeated');
      expect(await count()).toBe(1);
      const events = await t.ctx.db.query(`select 1 from outbox_events where event_type = 'dte.received'`);
      expect(events.rowCount).toBe(1);
    });

    it('lists with filters, and hides it from everyone else', async () => {
      const list = (q: string) => get(`/received${q}`);
      const ids = async (q: string) => ((await list(q)).json().data as { id: string }[]).map((x) => x.id);
      const today = siiDate(new Date());
      expect(await ids(`?rutEmisor=${formatRutDotted(rutS)}&status=received&tipoDte=33`)).toEqual([receivedId]);
      expect(await ids(`?fechaDesde=${today}&fechaHasta=${today}`)).toEqual([receivedId]);
      expect(await ids(`?recibidoDesde=${new Date(Date.now() - 3_600_000).toISOString()}`)).toEqual([receivedId]);
      expect(await ids(`?recibidoHasta=${new Date(Date.now() - 3_600_000).toISOString()}`)).toEqual([]);
      expect(await ids('?rutEmisor=77.777.777-7')).toEqual([]);
      expect(await ids('?status=accepted')).toEqual([]);
      expect(await ids('?fechaHasta=2020-01-01')).toEqual([]);
      const bad = await list('?rutEmisor=76.123.456-1');
      expect([bad.statusCode, bad.json().error.code, bad.json().error.param]).toEqual([400, 'invalid_rut', 'rutEmisor']);
      expect((await list('?fechaDesde=2026-02-30')).json().error.code).toBe('invalid_date');
      expect((await list('?status=lost')).statusCode).toBe(400);

      // Another account: the tenant does not exist for it; an unknown id is a 404 of its own.
      const asSupplier = await t.call(supplier.key, { method: 'GET', url: `/api/v1/tenants/${tenantB}/received/${receivedId}` });
      expect([asSupplier.statusCode, asSupplier.json().error.code]).toEqual([404, 'tenant_not_found']);
      for (const url of [
        // Another id: its last digit changed (to 1 when it already was 0).
        `/received/${receivedId.replace(/.$/, (c) => (c === '0' ? '1' : '0'))}`,
        '/received/not-a-uuid/xml',
        `/received/envios/${receivedId}/respuesta`,
      ]) {
        const r = await get(url);
        expect(r.statusCode, url).toBe(404);
        expect(r.json().error.code).toMatch(/^received_(dte|envio)_not_found$/);
      }
      // Another tenant of the same account sees nothing either.
      const sibling = await readyTenant(t, buyer.key);
      const s = await t.call(buyer.key, { method: 'GET', url: `/api/v1/tenants/${sibling}/received/${receivedId}` });
      expect([s.statusCode, s.json().error.code]).toEqual([404, 'received_dte_not_found']);
    });
  });

  it('receives the good documents of a mixed envelope and answers each with its own EstadoRecepDTE', async () => {
    const r = await upload(envelope([secondXml, toOtherXml]));
    expect(r.statusCode, r.body).toBe(201);
    const { envio, respuestaXml } = r.json();
    expect(envio.documents).toMatchObject([
      { folio: 2, outcome: 'received', estadoRecepDte: 0 },
      {
        folio: 3,
        outcome: 'refused',
        estadoRecepDte: 3,
        rutReceptor: '77777777-7',
        receivedDteId: null,
        error: { code: 'receptor_mismatch' },
      },
    ]);
    const respuesta = Buffer.from(respuestaXml, 'latin1');
    const check = checkRespuesta(respuesta);
    expect(check.ok, check.output).toBe(true);
    expect(latin1(respuesta)).toContain('<RUTRecep>77777777-7</RUTRecep>');
    expect(latin1(respuesta)).toContain('<EstadoRecepDTE>3</EstadoRecepDTE>');
    expect(await count()).toBe(2);
    // Pages, newest first.
    const first = (await get('/received?limit=1')).json();
    expect(first).toMatchObject({ done: false, data: [{ id: envio.documents[0].receivedDteId }] });
    const second = (await get(`/received?limit=1&iterator=${first.iterator}`)).json();
    expect(second).toMatchObject({ done: true, iterator: null, data: [{ folio: 1 }] });
  });

  it('stores a document once when two uploads of it arrive at the same time', async () => {
    const before = await count();
    const [a, b] = await Promise.all([upload(envelope([raceXml], { setId: 'A' })), upload(envelope([raceXml], { setId: 'B' }))]);
    expect([a.statusCode, b.statusCode].sort(), `${a.body}\n${b.body}`).toEqual([200, 201]);
    const docs = [a, b].map((r) => r.json().envio.documents[0]);
    expect(docs.map((d) => d.outcome).sort()).toEqual(['received', 'repeated']);
    expect(docs[0].receivedDteId).toBe(docs[1].receivedDteId);
    expect(await count()).toBe(before + 1);
    const events = await t.ctx.db.query(`select 1 from outbox_events where event_type = 'dte.received' and payload like $1`, [
      `%${docs[0].receivedDteId}%`,
    ]);
    expect(events.rowCount).toBe(1);
  });

  it('verifies real SII documents with the SII keys (CAF IDK 300), wrapped in an envelope to their receptor', async () => {
    const real = readFileSync(path.join(REAL_DTE_DIR, 'DTE--76354771-K--33--170--cleaned.xml'));
    const tampered = readFileSync(path.join(REAL_DTE_DIR, 'DTE--76354771-K--33--170--cleaned-mod-changed-monto.xml'));
    const tenant = await readyTenant(t, buyer.key, { rutEmpresa: '96.790.240-3' });
    const wrap = (dte: Buffer) => envelope([dte], { rutEmisor: '76354771-K', rutReceptor: '96790240-3' });
    const r = await upload(wrap(real), { tenant });
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json().envio.documents).toMatchObject([{ tipoDte: 33, folio: 170, rutEmisor: '76354771-K', outcome: 'received' }]);
    const bad = await upload(wrap(tampered), { tenant });
    expect([bad.statusCode, bad.json().error.code], bad.body).toEqual([422, 'document_altered']);
  });

  describe('forged and hostile uploads: each refused with its own code, nothing stored', () => {
    let before: number;
    beforeAll(async () => {
      before = await count();
    });
    afterAll(async () => {
      expect(await count()).toBe(before);
    });

    const refused = async (body: Buffer | string, status: number, code: string, opts: Parameters<typeof upload>[1] = {}) => {
      const r = await upload(body, opts);
      expect([r.statusCode, r.json().error?.code], r.body.slice(0, 600)).toEqual([status, code]);
      expect(r.json().error.requestId).toMatch(/^req_/);
      return r.json().error as { message: string; param?: string; details?: Record<string, unknown> };
    };

    it('an altered amount: the document no longer matches its timbre', async () => {
      const altered = edit(facturaXml, /<MntTotal>(\d+)<\/MntTotal>/, (_m, n) => `<MntTotal>${Number(n) + 1000}</MntTotal>`);
      // Re-enveloped and re-signed by whoever altered it: the envelope verifies, the document does not.
      const e = await refused(envelope([altered]), 422, 'document_altered');
      expect(e.details).toMatchObject({ documents: [{ index: 0, tipoDte: 33, folio: 1, code: 'document_altered' }] });
      // Altered inside the supplier's envelope: its signature breaks first.
      const inPlace = edit(envelope([facturaXml]), /<MntTotal>(\d+)<\/MntTotal>/, (_m, n) => `<MntTotal>${Number(n) + 1000}</MntTotal>`);
      await refused(inPlace, 422, 'envelope_signature_invalid');
    });

    it('a wrong receptor: the envelope, or its document, addressed to another company', async () => {
      const e = await refused(envelope([facturaXml], { rutReceptor: '77777777-7' }), 422, 'receptor_mismatch');
      expect(e.message).toContain('RutReceptor');
      const d = await refused(envelope([toOtherXml]), 422, 'receptor_mismatch');
      expect(d.details).toMatchObject({ documents: [{ code: 'receptor_mismatch' }] });
    });

    it('a bad signature: the envelope, or the document', async () => {
      const sig = (b: Buffer, which: 'first' | 'last') => {
        const s = latin1(b);
        const at = which === 'first' ? s.indexOf('<SignatureValue>') : s.lastIndexOf('<SignatureValue>');
        const i = at + '<SignatureValue>'.length + 10;
        return Buffer.from(s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1), 'latin1');
      };
      await refused(sig(envelope([facturaXml]), 'last'), 422, 'envelope_signature_invalid');
      await refused(envelope([sig(facturaXml, 'first')]), 422, 'document_signature_invalid');
      const unsigned = edit(envelope([facturaXml]), /<\/SetDTE>\s*<Signature[\s\S]*<\/Signature>/, '</SetDTE>');
      await refused(unsigned, 422, 'envelope_schema_invalid');
    });

    it('a folio authorisation (CAF) the SII did not sign', async () => {
      const kit = createTestKit({ fechaAutorizacion: siiDate(new Date()) });
      const base = sampleDteInput(33, 1);
      const forged = kit.build({ ...base, receptor: { ...base.receptor!, rut: rutB } }, new Date()).xml;
      await refused(envelope([forged], { rutEmisor: '76192083-9', signer: kit.certificate.signer }), 422, 'document_caf_invalid');
    });

    it('an XXE payload, billion laughs, a DOCTYPE, deep nesting, UTF-16', async () => {
      const xxe = latin1(envelope([facturaXml])).replace(
        /^(<\?xml[^>]*\?>)/,
        '$1<!DOCTYPE EnvioDTE [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
      );
      await refused(xxe.replace('<RutEnvia>', '<RutEnvia>&xxe;'), 400, 'xml_external_entity_forbidden');
      const lol =
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
        Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('') +
        ']><EnvioDTE>&lol9;</EnvioDTE>';
      await refused(lol, 400, 'xml_entity_expansion_forbidden');
      await refused('<?xml version="1.0"?><!DOCTYPE EnvioDTE><EnvioDTE/>', 400, 'xml_doctype_forbidden');
      await refused(`<EnvioDTE>${'<a>'.repeat(50_000)}${'</a>'.repeat(50_000)}</EnvioDTE>`, 400, 'xml_too_deep');
      await refused(
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(latin1(envelope([facturaXml])), 'utf16le')]),
        400,
        'xml_encoding_unsupported',
      );
    });

    it('a 10 MB upload, a body that is not XML, not an EnvioDTE, or not valid against the schema', async () => {
      await refused(Buffer.alloc(10 * 1024 * 1024, 0x20), 413, 'body_too_large');
      await refused('<EnvioDTE><SetDTE>', 400, 'xml_malformed');
      await refused('not xml at all', 400, 'xml_malformed');
      await refused(facturaXml, 422, 'envelope_invalid');
      await refused(edit(envelope([facturaXml]), /<NroResol>80<\/NroResol>/, ''), 422, 'envelope_schema_invalid');
      await refused('{}', 415, 'unsupported_media_type', { type: 'application/json' });
      const plain = await upload('<EnvioDTE/>', { type: 'text/plain' });
      expect([plain.statusCode, plain.json().error.code]).toEqual([415, 'unsupported_media_type']);
    });

    it('never a 5xx for a truncated, garbled or odd envelope: always a 4xx with a code', async () => {
      const good = latin1(envelope([facturaXml]));
      const bodies: (string | Buffer)[] = [
        ...[0.05, 0.3, 0.5, 0.7, 0.95, 0.999].map((f) => good.slice(0, Math.floor(good.length * f))),
        good.replace(/<DTE /, '<DTE foo="1" '),
        good.replace('<RutEnvia>', '<RutEnvia>&undefined;'),
        good.replace('<SetDTE', '<?xml-stylesheet href="http://attacker.example/s.xsl"?><SetDTE'),
        good.replace(/encoding="ISO-8859-1"/, 'encoding="EBCDIC-US"'),
        good.replace(/<\/SetDTE>/, '<DTE version="1.0"></DTE></SetDTE>'),
        good.replace(/<Documento ID="[^"]*"/, '<Documento'),
        good.replace(/<TED [\s\S]*?<\/TED>/, ''),
        good.replace(/<CAF [\s\S]*?<\/CAF>/, '<CAF version="1.0"></CAF>'),
        '<EnvioBOLETA xmlns="http://www.sii.cl/SiiDte" version="1.0"><SetDTE ID="S"></SetDTE></EnvioBOLETA>',
        '<EnvioDTE xmlns="http://www.sii.cl/SiiDte" version="1.0"><SetDTE ID="S"><Caratula version="1.0"></Caratula></SetDTE></EnvioDTE>',
        Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256).filter((b) => b !== 0)),
        `<a${' x="1"'.repeat(1)}>${'x'.repeat(1024 * 1024)}</a>`,
      ];
      for (const [i, body] of bodies.entries()) {
        const r = await upload(body);
        expect(r.statusCode, `body #${i}: ${r.body.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
        expect(r.statusCode, `body #${i}: ${r.body.slice(0, 300)}`).toBeLessThan(500);
        expect(r.json().error.code, `body #${i}`).toMatch(/^[a-z_]+$/);
      }
    });

    it('needs the tenant certificate to sign its answer', async () => {
      const c = await t.call(buyer.key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant({ rutEmpresa: randomRut() }) });
      expect(c.statusCode, c.body).toBe(201);
      const rut = sii(c.json().rutEmpresa);
      await refused(envelope([facturaXml], { rutReceptor: rut }), 409, 'certificate_not_configured', { tenant: c.json().id });
    });
  });
});
