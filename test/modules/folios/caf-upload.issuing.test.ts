import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { siiDate, toSiiRut } from '../../../src/dte/index.ts';
import { describeEachDb } from '../../support/db.ts';
import { createTestCaf, createTestSii } from '../../support/dte/test-caf.ts';
import { dteBody, readyTenant, startIssuingApp, waitFinal, type IssuingApp } from '../../support/issuing.ts';

/**
 * An uploaded CAF from end to end, with the built-in emulator as the SII. The emulator, like the
 * SII, accepts a document only under a CAF it granted to that issuer (CAF-3-519 otherwise): so
 * the honest proof is a CAF the emulator itself granted — fetched from its folio service as a
 * taxpayer downloads one from the SII's site — uploaded, issued with, sent and accepted. A CAF the
 * service trusts (SII_CAF_KEYS) but the emulator never granted is stored and stamps documents,
 * and the SII stage rejects them: what a user of such a key should expect.
 */
describeEachDb('an uploaded CAF, issued with and sent to the emulated SII', (backend) => {
  let t: IssuingApp;
  let key: string;
  let accountId: string;
  let dir: string;
  const own = createTestSii(777);

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'caf-upload-'));
    fs.writeFileSync(path.join(dir, 'caf-777.pem'), own.publicKeyPem);
    t = await startIssuingApp(backend, { env: { SII_CAF_KEYS: `777:${path.join(dir, 'caf-777.pem')}` } });
    ({ key, accountId } = await t.account());
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const rutOf = async (tenantId: string) =>
    (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenantId}` })).json().rutEmpresa as string;
  const upload = (tenantId: string, file: Buffer) => {
    const boundary = `----caf${crypto.randomBytes(8).toString('hex')}`;
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="caf.xml"\r\nContent-Type: text/xml\r\n\r\n`),
      file,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/folios/caf`,
      payload,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
  };
  const createAndSend = async (tenantId: string, tipo: 33 | 39) => {
    const d = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(tipo) });
    expect(d.statusCode, d.body).toBe(201);
    const s = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte/send`, payload: { dteIds: [d.json().id] } });
    expect(s.statusCode, s.body).toBe(202);
    return { folio: d.json().folio as number, final: await waitFinal(t, key, d.json().id) };
  };

  it('a CAF the emulated SII granted, uploaded (not requested through the service): the factura is accepted', async () => {
    const tenantId = await readyTenant(t, key);
    const rut = await rutOf(tenantId);
    // As a taxpayer downloads a CAF from the SII's site: straight from the emulator's folio service.
    const creds = await t.ctx.services.credentials.getProviderCredentials(accountId, tenantId);
    const { cafXml } = await t.ctx.provider.requestCaf(creds, {
      rutEmpresa: toSiiRut(rut),
      tipoDte: 33,
      cantidad: 5,
      ambiente: 'produccion',
    });
    const r = await upload(tenantId, cafXml);
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json()).toMatchObject({ tipoDte: 33, desde: 1, hasta: 5, idk: 666, ambiente: 'produccion', disponibles: 5 });
    // The service never asked for folios itself.
    expect((await t.ctx.db.query('select 1 from folio_requests where tenant_id = $1', [tenantId])).rowCount).toBe(0);
    const { folio, final } = await createAndSend(tenantId, 33);
    expect(folio).toBe(1);
    expect(final).toMatchObject({ status: 'accepted', sii: { estado: 'DOK' } });
  });

  it('a CAF the service trusts but the SII never granted stamps documents, and the SII rejects them', async () => {
    const tenantId = await readyTenant(t, key);
    const file = createTestCaf({ sii: own, rutEmisor: await rutOf(tenantId), tipoDte: 39, fechaAutorizacion: siiDate(new Date()) }).xml;
    expect((await upload(tenantId, file)).statusCode).toBe(201);
    const { folio, final } = await createAndSend(tenantId, 39);
    expect(folio).toBe(1);
    expect(final).toMatchObject({ status: 'rejected', sii: { estado: 'RCH' } });
    // A boleta's envelope answer names the reason: the emulated SII does not know the key that signed the CAF.
    expect(final.sii.glosa).toMatch(/^CAF-3-516 Firma del CAF Incorrecta/);
  });

  it('a folio request whose granted range overlaps an uploaded CAF fails with caf_overlap, storing nothing', async () => {
    const tenantId = await readyTenant(t, key);
    const file = createTestCaf({
      sii: own,
      rutEmisor: await rutOf(tenantId),
      tipoDte: 41,
      desde: 1,
      hasta: 100,
      fechaAutorizacion: siiDate(new Date()),
    }).xml;
    expect((await upload(tenantId, file)).statusCode).toBe(201);
    // The emulator numbers this RUT's type-41 folios from 1: they overlap the uploaded 1–100.
    const r = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/folios/request`,
      payload: { tipoDte: 41, cantidad: 5 },
    });
    expect(r.statusCode, r.body).toBe(409);
    expect(r.json().error).toMatchObject({ code: 'caf_overlap', message: expect.stringMatching(/1–5.*1–100/) });
    const ranges = await t.ctx.db.query('select 1 from folio_ranges where tenant_id = $1', [tenantId]);
    expect(ranges.rowCount).toBe(1);
  });
});
