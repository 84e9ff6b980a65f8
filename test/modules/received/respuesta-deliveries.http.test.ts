import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatRutDotted } from '../../../src/dte/index.ts';
import type { Provider } from '../../../src/provider/port.ts';
import { describeEachDb } from '../../support/db.ts';
import { checkRespuesta } from '../../support/dte/check-respuesta.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, type IssuingApp } from '../../support/issuing.ts';
import { supplierEnvelope, uploadReceived } from '../../support/received.ts';

/**
 * The tenant's signed answers e-mailed to the supplier (docs/received.md, "Sending the signed
 * answers"), on the embedded default's local mailbox: the RespuestaEnvioDTE of an upload and the
 * ResultadoDTE / EnvioRecibos of each acceptance or claim go to the supplier's CorreoEmisor (or the
 * request's respuestaA), their bytes attached exactly as served; a supplier without an address gets
 * a skipped delivery; an answer the SII refuses is not sent; deliveries are listed beside the
 * received document and the envío, 404 for another account.
 */
const SUPPLIER_MAIL = 'intercambio@proveedor.example.cl';
// The first attempt waits a little, so an answer the SII refuses in the request is refused before it.
const ENV = { EXCHANGE_RETRY_SCHEDULE: '300ms,100ms,100ms' };

interface DeliveryJson {
  id: string;
  kind: string;
  dteId: string | null;
  respuesta: { tipo: string; receivedEnvioId: string | null; receivedDteId: string | null; n: number | null } | null;
  trigger: string;
  status: string;
  skipReason: string | null;
  to: string | null;
  transport: string | null;
  attempts: number;
  messageId: string | null;
}

type Registro = Provider['registerAcceptance'];

describeEachDb('received: signed answers e-mailed to the supplier (local mailbox)', (backend) => {
  let t: IssuingApp;
  let supplier: { accountId: string; key: string };
  let buyer: { accountId: string; key: string };
  let tenantS: string;
  let tenantB: string;
  let rutS: string;
  let rutB: string;
  let registro: Registro = async () => ({ outcome: 'registered', codigo: 0, descripcion: 'Accion Completada OK' });

  const issue = async (emisor: Record<string, unknown> = {}): Promise<{ id: string; folio: number; xml: Buffer }> => {
    const body = dteBody(33, { receptor: { ...(dteBody(33).receptor as object), rut: formatRutDotted(rutB) }, emisor }, t.clock.now());
    const c = await t.call(supplier.key, { method: 'POST', url: `/api/v1/tenants/${tenantS}/dte`, payload: body });
    expect(c.statusCode, c.body).toBe(201);
    const xml = (await t.call(supplier.key, { method: 'GET', url: `/api/v1/tenants/${tenantS}/dte/${c.json().id}/xml` })).rawPayload;
    return { id: c.json().id, folio: c.json().folio, xml };
  };

  const upload = (xmls: Buffer[], query = '') =>
    uploadReceived(t, buyer.key, tenantB, supplierEnvelope(t, { dtes: xmls, rutEmisor: rutS, rutReceptor: rutB }), query);

  const settled = async (url: string, count = 1): Promise<DeliveryJson[]> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const r = await t.call(buyer.key, { method: 'GET', url });
      expect(r.statusCode, r.body).toBe(200);
      const data = r.json().data as DeliveryJson[];
      if (data.length >= count && data.every((d) => d.status !== 'pending')) return data;
      if (Date.now() > deadline) throw new Error(`deliveries still pending: ${r.body}`);
      await new Promise((res) => setTimeout(res, 50));
    }
  };
  const envioDeliveries = (envioId: string) => settled(`/api/v1/tenants/${tenantB}/received/envios/${envioId}/deliveries`);
  const docDeliveries = (id: string, count: number) => settled(`/api/v1/tenants/${tenantB}/received/${id}/deliveries`, count);

  /** The mailbox message of a delivery and its one attachment. */
  const mailOf = async (deliveryId: string) => {
    const m = (await t.ctx.services.exchange.mailboxOfDeliveries(buyer.accountId, [deliveryId])).get(deliveryId)!;
    expect(m).toBeDefined();
    expect(m.attachments).toHaveLength(1);
    const a = await t.ctx.services.exchange.mailboxAttachment(buyer.accountId, m.id, 0);
    const raw = (await t.ctx.services.exchange.mailboxRaw(buyer.accountId, m.id)).toString('utf8');
    return { m, a, raw };
  };

  beforeAll(async () => {
    t = await startIssuingApp(backend, {
      env: ENV,
      provider: { registerAcceptance: (creds, req) => registro(creds, req) },
    });
    supplier = await t.account('Supplier');
    buyer = await t.account('Buyer');
    tenantS = await readyTenant(t, supplier.key);
    tenantB = await readyTenant(t, buyer.key, { email: 'contabilidad@comprador.example.cl' });
    const rutOf = async (key: string, id: string) =>
      ((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${id}` })).json().rutEmpresa as string).replace(/\./g, '');
    rutS = await rutOf(supplier.key, tenantS);
    rutB = await rutOf(buyer.key, tenantB);
    await requestFolios(t, supplier.key, tenantS, 33, 10);
  });
  afterAll(() => t?.close());

  it("e-mails the upload's RespuestaEnvioDTE to the supplier's CorreoEmisor, its bytes as served", async () => {
    const f = await issue({ correo: SUPPLIER_MAIL });
    const r = await upload([f.xml], '?nombreEnvio=EnvioDTE_prov.xml');
    expect(r.statusCode, r.body).toBe(201);
    const envioId = r.json().envio.id as string;
    const receivedId = r.json().envio.documents[0].receivedDteId as string;
    const doc = (await t.call(buyer.key, { method: 'GET', url: `/api/v1/tenants/${tenantB}/received/${receivedId}` })).json();
    expect(doc.emisor.correo).toBe(SUPPLIER_MAIL);

    const [d, ...more] = await envioDeliveries(envioId);
    expect(more).toEqual([]);
    expect(d).toMatchObject({
      kind: 'respuesta',
      dteId: null,
      respuesta: { tipo: 'RecepcionEnvio', receivedEnvioId: envioId, receivedDteId: null, n: null },
      trigger: 'recepcion',
      status: 'sent',
      to: SUPPLIER_MAIL,
      transport: 'mailbox',
      attempts: 1,
      messageId: `<${d!.id}@localhost>`,
    });
    const { m, a, raw } = await mailOf(d!.id);
    expect(m).toMatchObject({ to: SUPPLIER_MAIL, about: { kind: 'received_envio', id: envioId } });
    expect(m.subject).toBe(`Acuse de recibo del envío: Factura electrónica N° ${f.folio}, emisor RUT ${rutS}`);
    expect(raw).toContain('Reply-To: contabilidad@comprador.example.cl');
    expect(a.filename).toBe(`RespuestaEnvioDTE_${rutB}_${r.json().envio.codEnvio}.xml`);
    expect(a.contentType).toBe('application/xml');
    const served = (await t.call(buyer.key, { method: 'GET', url: `/api/v1/tenants/${tenantB}/received/envios/${envioId}/respuesta` }))
      .rawPayload;
    expect(a.content.equals(served)).toBe(true);
    const check = checkRespuesta(a.content);
    expect(check.ok, check.output).toBe(true);

    // The document itself has no answer yet, so no delivery.
    const none = await t.call(buyer.key, { method: 'GET', url: `/api/v1/tenants/${tenantB}/received/${receivedId}/deliveries` });
    expect(none.json()).toEqual({ data: [] });

    // Acceptance (ACD) → its ResultadoDTE; ERM → its EnvioRecibos; each to the same address.
    const acd = await t.call(buyer.key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantB}/received/${receivedId}/acceptance`,
      payload: { accion: 'ACD' },
    });
    expect(acd.statusCode, acd.body).toBe(200);
    const erm = await t.call(buyer.key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantB}/received/${receivedId}/acceptance`,
      payload: { accion: 'ERM' },
    });
    expect(erm.statusCode, erm.body).toBe(200);
    const [dAcd, dErm, ...rest] = await docDeliveries(receivedId, 2);
    expect(rest).toEqual([]);
    expect(dAcd).toMatchObject({
      trigger: 'accion',
      status: 'sent',
      to: SUPPLIER_MAIL,
      respuesta: { tipo: 'ResultadoDTE', receivedDteId: receivedId, n: 1, receivedEnvioId: null },
    });
    expect(dErm).toMatchObject({ status: 'sent', to: SUPPLIER_MAIL, respuesta: { tipo: 'EnvioRecibos', n: 2 } });
    for (const [dd, n, tipo, subject] of [
      [dAcd!, 1, 'RespuestaDTE', 'Aceptación del contenido (ACD)'],
      [dErm!, 2, 'EnvioRecibos', 'Recibo de mercaderías o servicios (ERM)'],
    ] as const) {
      const got = await mailOf(dd.id);
      expect(got.m.subject).toBe(`${subject}: Factura electrónica N° ${f.folio}, emisor RUT ${rutS}`);
      expect(got.a.filename).toBe(`${tipo}_${rutB}_T33_F${f.folio}.xml`);
      const xml = await t.call(buyer.key, { method: 'GET', url: `/api/v1/tenants/${tenantB}/received/${receivedId}/acceptance/${n}/xml` });
      expect(got.a.content.equals(xml.rawPayload)).toBe(true);
      const c = checkRespuesta(got.a.content);
      expect(c.ok, c.output).toBe(true);
    }
    // Asking the same action again records nothing new and sends nothing again.
    await t.call(buyer.key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantB}/received/${receivedId}/acceptance`,
      payload: { accion: 'ACD' },
    });
    expect(await docDeliveries(receivedId, 2)).toHaveLength(2);
  });

  it('records a skipped delivery when the supplier has no address, and sends to respuestaA when given', async () => {
    const f = await issue();
    const r = await upload([f.xml]);
    expect(r.statusCode, r.body).toBe(201);
    const [d] = await envioDeliveries(r.json().envio.id);
    expect(d).toMatchObject({ status: 'skipped', skipReason: 'supplier_email_missing', to: null, transport: null, attempts: 0 });
    const receivedId = r.json().envio.documents[0].receivedDteId as string;
    const rcd = await t.call(buyer.key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantB}/received/${receivedId}/acceptance`,
      payload: { accion: 'RCD', glosa: 'Precio no corresponde', respuestaA: 'reclamos@proveedor.example.cl' },
    });
    expect(rcd.statusCode, rcd.body).toBe(200);
    const [dr] = await docDeliveries(receivedId, 1);
    expect(dr).toMatchObject({ status: 'sent', to: 'reclamos@proveedor.example.cl', respuesta: { tipo: 'ResultadoDTE', n: 1 } });
    expect((await mailOf(dr!.id)).m.subject).toBe(`Reclamo al contenido (RCD): Factura electrónica N° ${f.folio}, emisor RUT ${rutS}`);

    // The upload's respuestaA wins over the CorreoEmisor.
    const g = await issue({ correo: SUPPLIER_MAIL });
    const r2 = await upload([g.xml], '?respuestaA=acuses%40proveedor.example.cl');
    expect(r2.statusCode, r2.body).toBe(201);
    const [d2] = await envioDeliveries(r2.json().envio.id);
    expect(d2).toMatchObject({ status: 'sent', to: 'acuses@proveedor.example.cl' });
  });

  it('refuses an unusable respuestaA with a 400 and stores nothing', async () => {
    const f = await issue({ correo: SUPPLIER_MAIL });
    const before = (await t.call(buyer.key, { method: 'GET', url: `/api/v1/tenants/${tenantB}/received?limit=100` })).json().data.length;
    for (const q of ['?respuestaA=not-an-address', `?respuestaA=${encodeURIComponent('a@b')}`]) {
      const bad = await upload([f.xml], q);
      expect(bad.statusCode, bad.body).toBe(400);
      expect(['invalid_field', 'invalid_email', 'invalid_parameter']).toContain(bad.json().error.code);
    }
    const after = (await t.call(buyer.key, { method: 'GET', url: `/api/v1/tenants/${tenantB}/received?limit=100` })).json().data.length;
    expect(after).toBe(before);
    const ok = await upload([f.xml]);
    const receivedId = ok.json().envio.documents[0].receivedDteId as string;
    const bad = await t.call(buyer.key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantB}/received/${receivedId}/acceptance`,
      payload: { accion: 'ACD', respuestaA: 'nadie' },
    });
    expect(bad.statusCode, bad.body).toBe(400);
    expect((await t.call(buyer.key, { method: 'GET', url: `/api/v1/tenants/${tenantB}/received/${receivedId}` })).json().acciones).toEqual(
      [],
    );
    expect(await docDeliveries(receivedId, 0)).toEqual([]);
  });

  it('does not send an answer the SII refused', async () => {
    const f = await issue({ correo: SUPPLIER_MAIL });
    const r = await upload([f.xml]);
    const receivedId = r.json().envio.documents[0].receivedDteId as string;
    registro = async () => ({ outcome: 'refused', codigo: 9, descripcion: 'Documento no existe en el SII' });
    const refused = await t.call(buyer.key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantB}/received/${receivedId}/acceptance`,
      payload: { accion: 'ACD' },
    });
    expect(refused.statusCode, refused.body).toBe(422);
    const [d] = await docDeliveries(receivedId, 1);
    expect(d).toMatchObject({ status: 'skipped', skipReason: 'answer_refused_by_sii', to: SUPPLIER_MAIL, attempts: 0 });
    expect((await t.ctx.services.exchange.mailboxOfDeliveries(buyer.accountId, [d!.id])).size).toBe(0);
    registro = async () => ({ outcome: 'registered', codigo: 0, descripcion: 'Accion Completada OK' });
  });

  it("answers 404 for another account's, or an unknown, document or envío", async () => {
    const f = await issue({ correo: SUPPLIER_MAIL });
    const r = await upload([f.xml]);
    const envioId = r.json().envio.id as string;
    const receivedId = r.json().envio.documents[0].receivedDteId as string;
    for (const url of [
      `/api/v1/tenants/${tenantB}/received/envios/${envioId}/deliveries`,
      `/api/v1/tenants/${tenantB}/received/${receivedId}/deliveries`,
    ]) {
      const other = await t.call(supplier.key, { method: 'GET', url });
      expect(other.statusCode).toBe(404);
      const otherTenant = await t.call(supplier.key, { method: 'GET', url: url.replace(tenantB, tenantS) });
      expect(otherTenant.statusCode).toBe(404);
    }
    const unknown = await t.call(buyer.key, { method: 'GET', url: `/api/v1/tenants/${tenantB}/received/not-an-id/deliveries` });
    expect([unknown.statusCode, unknown.json().error.code]).toEqual([404, 'received_dte_not_found']);
    const unknownEnvio = await t.call(buyer.key, {
      method: 'GET',
      url: `/api/v1/tenants/${tenantB}/received/envios/00000000-0000-4000-8000-000000000000/deliveries`,
    });
    expect([unknownEnvio.statusCode, unknownEnvio.json().error.code]).toEqual([404, 'received_envio_not_found']);
  });
});
