import { buildEnvelope, formatRutDotted } from '../../src/dte/index.ts';
import type { TestApp } from './app.ts';
import { dteBody, readyTenant, requestFolios, testCertificate } from './issuing.ts';

/**
 * What a supplier sends a tenant: its signed DTEs in an EnvioDTE addressed to the receptor
 * (Caratula RutReceptor), signed with the test certificate, as the received module expects it.
 */
export function supplierEnvelope(t: Pick<TestApp, 'clock'>, o: { dtes: Buffer[]; rutEmisor: string; rutReceptor: string }): Buffer {
  return buildEnvelope({
    dtes: o.dtes,
    rutEmisor: o.rutEmisor,
    rutReceptor: o.rutReceptor,
    fechaResolucion: '2014-08-22',
    numeroResolucion: 80,
    signer: testCertificate().cert.signer,
    now: t.clock.now(),
  }).xml;
}

/** POST …/received with the envelope's bytes as they are. */
export function uploadReceived(t: Pick<TestApp, 'call'>, key: string, tenantId: string, envelope: Buffer, query = '') {
  return t.call(key, {
    method: 'POST',
    url: `/api/v1/tenants/${tenantId}/received${query}`,
    payload: envelope,
    headers: { 'content-type': 'application/xml' },
  });
}

/**
 * `n` facturas a supplier (its own account and tenant) issued to the buyer's tenant and the buyer
 * received: the buyer's received-document ids, each open for an acceptance or a claim.
 */
export async function receivedFacturas(t: TestApp, buyerKey: string, buyerTenant: string, n: number): Promise<string[]> {
  const supplier = await t.account('Supplier');
  const tenantS = await readyTenant(t, supplier.key);
  const rutOf = async (key: string, id: string) =>
    ((await t.call(key, { method: 'GET', url: `/api/v1/tenants/${id}` })).json().rutEmpresa as string).replace(/\./g, '');
  const rutS = await rutOf(supplier.key, tenantS);
  const rutB = await rutOf(buyerKey, buyerTenant);
  await requestFolios(t, supplier.key, tenantS, 33, n);
  const xmls: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const body = dteBody(33, { receptor: { ...(dteBody(33).receptor as object), rut: formatRutDotted(rutB) } }, t.clock.now());
    const c = await t.call(supplier.key, { method: 'POST', url: `/api/v1/tenants/${tenantS}/dte`, payload: body });
    if (c.statusCode !== 201) throw new Error(`supplier DTE: ${c.statusCode} ${c.body}`);
    xmls.push((await t.call(supplier.key, { method: 'GET', url: `/api/v1/tenants/${tenantS}/dte/${c.json().id}/xml` })).rawPayload);
  }
  const r = await uploadReceived(t, buyerKey, buyerTenant, supplierEnvelope(t, { dtes: xmls, rutEmisor: rutS, rutReceptor: rutB }));
  if (r.statusCode !== 201) throw new Error(`received: ${r.statusCode} ${r.body}`);
  return r.json().envio.documents.map((d: { receivedDteId: string }) => d.receivedDteId);
}
