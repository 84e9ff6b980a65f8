import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import { describeEachDb } from '../../support/db.ts';
import { failResponseWriteOnce } from '../../support/idempotency.ts';
import { CERT_PASSWORD, testCertificate } from '../../support/issuing.ts';
import { certificateForm, ymd } from '../../support/pfx.ts';

/**
 * A certificate upload is bound to its Idempotency-Key in the transaction that stores it
 * (src/http/plugins/idempotency.ts). Fault injection: the write that stores the response after
 * commit fails (the client gets a 5xx); the retry returns the stored certificate (not 409
 * certificate_duplicate), and the tenant holds one.
 */
describeEachDb('Idempotency-Key on certificate upload, with the response write failing after commit', (backend) => {
  let t: TestApp;
  let key: string;
  let tenantId: string;

  beforeAll(async () => {
    t = await startTestApp(backend);
    ({ key } = await t.account());
    tenantId = (await t.call(key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id;
  });
  afterAll(() => t?.close());

  it('answers the retry with the first certificate and stores one', async () => {
    const { cert, pfx } = testCertificate();
    const form = certificateForm(
      {
        password: CERT_PASSWORD,
        rutCertificado: '12.345.678-5',
        nombreTitular: 'Firmante de Prueba',
        fechaVencimiento: ymd(cert.notAfter),
        esPrincipal: 'true',
      },
      { data: pfx },
    );
    const req = {
      method: 'POST' as const,
      url: `/api/v1/tenants/${tenantId}/credentials/certificate`,
      payload: form.payload,
      headers: { ...form.headers, 'idempotency-key': 'cert-1' },
    };
    const { failed, result: first } = await failResponseWriteOnce(t, () => t.call(key, req));
    expect(failed).toBe(1);
    expect(first.statusCode).toBeGreaterThanOrEqual(500);

    const retry = await t.call(key, req);
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    const status = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}/credentials/status` })).json();
    expect(status.certificates).toHaveLength(1);
    expect(retry.json()).toEqual(status.certificates[0]);

    const again = await t.call(key, req);
    expect(again.statusCode).toBe(201);
    expect(again.json().id).toBe(status.certificates[0].id);
  });
});
