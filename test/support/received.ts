import { buildEnvelope } from '../../src/dte/index.ts';
import type { TestApp } from './app.ts';
import { testCertificate } from './issuing.ts';

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
