import { afterAll, beforeAll, expect, it } from 'vitest';
import { DecryptionError } from '../../../src/secrets/envelope.ts';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, validTenant, type TestApp } from '../../support/app.ts';
import { certificateForm, makeCert, modernPfx, ymd } from '../../support/pfx.ts';

/**
 * Stored credentials tampered with in the databases fail closed: a flipped bit, or a tenant's
 * ciphertext or secret swapped into another tenant's row, raises DecryptionError — never another
 * tenant's certificate or key, never garbage.
 */
describeEachDb('tampered credentials fail closed', (backend) => {
  let t: TestApp;
  let accountId: string;
  const tenants: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(backend);
    const acc = await t.account();
    accountId = acc.accountId;
    for (const pw of ['pw-a', 'pw-b']) {
      const id = (await t.call(acc.key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id;
      const cert = makeCert({ rut: '12345678-5' });
      const form = certificateForm(
        { password: pw, rutCertificado: '12345678-5', nombreTitular: 'T', fechaVencimiento: ymd(cert.notAfter) },
        { data: modernPfx(cert, pw) },
      );
      expect(
        (
          await t.call(acc.key, {
            method: 'POST',
            url: `/api/v1/tenants/${id}/credentials/certificate`,
            payload: form.payload,
            headers: form.headers,
          })
        ).statusCode,
      ).toBe(201);
      expect(
        (
          await t.call(acc.key, {
            method: 'POST',
            url: `/api/v1/tenants/${id}/credentials/api-key`,
            payload: { apiKey: `sk-valid-${pw}-key` },
          })
        ).statusCode,
      ).toBe(200);
      tenants.push(id);
    }
  });
  afterAll(() => t.close());

  const [a, b] = [() => tenants[0]!, () => tenants[1]!];
  const signing = (tenantId: string) => t.ctx.services.credentials.getSigningMaterial(t.ctx.db, accountId, tenantId);
  const apiKey = (tenantId: string) => t.ctx.services.credentials.getProviderApiKey(accountId, tenantId);

  it('reads both intact', async () => {
    expect((await signing(a())).pfxPassword).toBe('pw-a');
    expect(await apiKey(b())).toBe('sk-valid-pw-b-key');
  });

  it("a .pfx ciphertext copied into another tenant's certificate row does not decrypt", async () => {
    const q = 'select pfx_ciphertext from tenant_certificates where tenant_id = $1';
    const original = (await t.tdb.db.query<{ pfx_ciphertext: Buffer }>(q, [a()])).rows[0]!.pfx_ciphertext;
    await t.tdb.db.query(`update tenant_certificates set pfx_ciphertext = (${q.replace('$1', '$2')}) where tenant_id = $1`, [a(), b()]);
    await expect(signing(a())).rejects.toBeInstanceOf(DecryptionError);
    await t.tdb.db.query('update tenant_certificates set pfx_ciphertext = $2 where tenant_id = $1', [a(), original]);
    expect((await signing(a())).pfxPassword).toBe('pw-a');
  });

  it('a flipped bit anywhere in a stored .pfx fails closed', async () => {
    const original = (
      await t.tdb.db.query<{ pfx_ciphertext: Buffer }>('select pfx_ciphertext from tenant_certificates where tenant_id = $1', [a()])
    ).rows[0]!.pfx_ciphertext;
    for (const offset of [5, 20, 40, 70, 90, original.length - 1]) {
      const bad = Buffer.from(original);
      bad[offset]! ^= 0x01;
      await t.tdb.db.query('update tenant_certificates set pfx_ciphertext = $2 where tenant_id = $1', [a(), bad]);
      await expect(signing(a())).rejects.toBeInstanceOf(DecryptionError);
    }
    await t.tdb.db.query('update tenant_certificates set pfx_ciphertext = $2 where tenant_id = $1', [a(), original]);
  });

  it("a password or API key moved to another tenant's secret does not decrypt, even with its aad", async () => {
    const refs = async (tenantId: string, kind: string) =>
      (
        await t.sdb.db.query<{ ref: string; ciphertext: Buffer; aad: string }>(
          'select ref, ciphertext, aad from secrets where ref like $1',
          [`tenant/${tenantId}/${kind}/%`],
        )
      ).rows[0]!;
    for (const kind of ['pfx-password', 'provider-api-key']) {
      const ra = await refs(a(), kind);
      const rb = await refs(b(), kind);
      await t.sdb.db.query('update secrets set ciphertext = $2, aad = $3 where ref = $1', [ra.ref, rb.ciphertext, rb.aad]);
      await expect(kind === 'pfx-password' ? signing(a()) : apiKey(a())).rejects.toBeInstanceOf(DecryptionError);
      await t.sdb.db.query('update secrets set ciphertext = $2, aad = $3 where ref = $1', [ra.ref, ra.ciphertext, ra.aad]);
    }
    expect(await apiKey(a())).toBe('sk-valid-pw-a-key');
  });

  it("pointing a tenant's row at another tenant's secret fails closed", async () => {
    const pw = (id: string) =>
      t.tdb.db.query<{ password_ref: string }>('select password_ref from tenant_certificates where tenant_id = $1', [id]);
    const [pa, pb] = [(await pw(a())).rows[0]!.password_ref, (await pw(b())).rows[0]!.password_ref];
    await t.tdb.db.query('update tenant_certificates set password_ref = $2 where tenant_id = $1', [a(), pb]);
    await expect(signing(a())).rejects.toBeInstanceOf(DecryptionError);
    await t.tdb.db.query('update tenant_certificates set password_ref = $2 where tenant_id = $1', [a(), pa]);
    const rb = (await t.tdb.db.query<{ secret_ref: string }>('select secret_ref from tenant_api_keys where tenant_id = $1', [b()])).rows[0]!
      .secret_ref;
    await t.tdb.db.query('update tenant_api_keys set secret_ref = $2 where tenant_id = $1', [a(), rb]);
    await expect(apiKey(a())).rejects.toBeInstanceOf(DecryptionError);
  });
});
