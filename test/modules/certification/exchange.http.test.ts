import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatRutDotted } from '../../../src/dte/index.ts';
import { describeEachDb } from '../../support/db.ts';
import { checkRespuesta } from '../../support/dte/check-respuesta.ts';
import { flatXml } from '../../support/dte/lines.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, type IssuingApp } from '../../support/issuing.ts';
import { supplierEnvelope } from '../../support/received.ts';
import { readZip } from '../../support/zip.ts';

/**
 * POST …/certification/exchange through the real app (docs/certification.md, "The exchange step"):
 * an EnvioDTE standing for the one the SII sends (another company's signed documents, addressed to
 * the tenant) in; the three signed answers out as one ZIP, each valid against its SII schema with
 * every signature verifying (test/support/dte/check-respuesta.ts); a document addressed to someone
 * else is not received and is rejected; nothing is stored as received; bad envelopes refused.
 */
describeEachDb('certification: the exchange step', (backend) => {
  let t: IssuingApp;
  let key: string;
  let tenantId: string;
  let rutTenant: string;
  let rutSupplier: string;
  let xmls: Buffer[];

  const rutOf = async (k: string, id: string) =>
    ((await t.call(k, { method: 'GET', url: `/api/v1/tenants/${id}` })).json().rutEmpresa as string).replace(/\./g, '');

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
    tenantId = await readyTenant(t, key, { ambiente: 'certificacion' });
    rutTenant = await rutOf(key, tenantId);
    // The SII's test issuer: here another company, its documents signed and stamped as the SII's are.
    const supplier = await t.account('Supplier');
    const tenantS = await readyTenant(t, supplier.key);
    rutSupplier = await rutOf(supplier.key, tenantS);
    await requestFolios(t, supplier.key, tenantS, 33, 3);
    xmls = [];
    for (const rut of [rutTenant, rutTenant, '77777777-7']) {
      const body = dteBody(33, { receptor: { ...(dteBody(33).receptor as object), rut: formatRutDotted(rut) } }, t.clock.now());
      const c = await t.call(supplier.key, { method: 'POST', url: `/api/v1/tenants/${tenantS}/dte`, payload: body });
      expect(c.statusCode, c.body).toBe(201);
      xmls.push((await t.call(supplier.key, { method: 'GET', url: `/api/v1/tenants/${tenantS}/dte/${c.json().id}/xml` })).rawPayload);
    }
  });
  afterAll(() => t?.close());

  const exchange = (payload: Buffer, o: { k?: string; query?: string; type?: string } = {}) =>
    t.call(o.k ?? key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/certification/exchange${o.query ?? ''}`,
      payload,
      headers: { 'content-type': o.type ?? 'application/xml' },
    });

  it('answers the envelope with the three signed files: received, receipts, commercial result', async () => {
    const envelope = supplierEnvelope(t, { dtes: xmls, rutEmisor: rutSupplier, rutReceptor: rutTenant });
    const r = await exchange(envelope, { query: '?nombreEnvio=ENVIO_SII.xml&recinto=Bodega%20central' });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.headers['content-type']).toBe('application/zip');
    expect(r.headers['content-disposition']).toMatch(/^attachment; filename="intercambio-\d{10}\.zip"$/);
    const files = readZip(r.rawPayload);
    expect(files.map((f) => f.name)).toEqual(['1_RecepcionDTE.xml', '2_EnvioRecibos.xml', '3_ResultadoDTE.xml']);
    for (const f of files) {
      const check = checkRespuesta(f.data);
      expect(check.ok, `${f.name}: ${check.output}`).toBe(true);
    }
    const [recepcion, recibos, resultado] = files.map((f) => flatXml(f.data));

    // The tenant answers the issuer of the envelope.
    for (const x of [recepcion!, resultado!])
      expect(x).toContain(`<RutResponde>${rutTenant}</RutResponde><RutRecibe>${rutSupplier}</RutRecibe>`);
    expect(recepcion).toContain('<NmbEnvio>ENVIO_SII.xml</NmbEnvio>');
    expect(recepcion).toContain(
      '<EstadoRecepEnv>0</EstadoRecepEnv><RecepEnvGlosa>Envio Recibido Conforme</RecepEnvGlosa><NroDTE>3</NroDTE>',
    );
    // Folios 1 and 2 are the tenant's: received; folio 3 is addressed to 77777777-7: EstadoRecepDTE 3.
    expect([...recepcion!.matchAll(/<Folio>(\d+)<\/Folio>.*?<EstadoRecepDTE>(\d+)</g)].map((m) => [m[1], m[2]])).toEqual([
      ['1', '0'],
      ['2', '0'],
      ['3', '3'],
    ]);
    // The receipts: the two received documents only, at the recinto given.
    expect([...recibos!.matchAll(/<DocumentoRecibo ID="[^"]+"><TipoDoc>33<\/TipoDoc><Folio>(\d+)</g)].map((m) => m[1])).toEqual(['1', '2']);
    expect(recibos).toContain('<Recinto>Bodega central</Recinto>');
    // The commercial result: both accepted, the third rejected with the reason.
    expect(resultado).toContain('<NroDetalles>3</NroDetalles>');
    expect([...resultado!.matchAll(/<Folio>(\d+)<\/Folio>.*?<EstadoDTE>(\d+)</g)].map((m) => [m[1], m[2]])).toEqual([
      ['1', '0'],
      ['2', '0'],
      ['3', '2'],
    ]);
    expect(resultado).toMatch(/<EstadoDTEGlosa>DTE Rechazado: The DTE is addressed to 77777777-7/);

    // Nothing was kept as a received document.
    const list = await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/received` });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().data).toEqual([]);
  });

  it('refuses what it cannot answer: another company’s envelope, not XML, another account', async () => {
    const elsewhere = await exchange(supplierEnvelope(t, { dtes: xmls, rutEmisor: rutSupplier, rutReceptor: '77777777-7' }));
    expect(elsewhere.statusCode, elsewhere.body).toBe(422);
    expect(elsewhere.json().error.code).toBe('receptor_mismatch');

    const broken = await exchange(Buffer.from('<EnvioDTE><SetDTE>'));
    expect(broken.statusCode).toBe(400);

    const json = await exchange(Buffer.from('{}'), { type: 'application/json' });
    expect(json.statusCode).toBe(415);

    const { key: otherKey } = await t.account();
    const other = await exchange(supplierEnvelope(t, { dtes: xmls, rutEmisor: rutSupplier, rutReceptor: rutTenant }), { k: otherKey });
    expect(other.statusCode).toBe(404);
  });
});
