import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { siiDate } from '../../../src/dte/index.ts';
import { describeEachDb } from '../../support/db.ts';
import { readyTenant, requestFolios, startIssuingApp, waitFinal, type IssuingApp } from '../../support/issuing.ts';

/**
 * Sending the set's books to the SII (docs/certification.md, "Books: sending"): a direct tenant
 * (provider "sii") on the embedded emulator makes set 01's documents, sends them, sends its three
 * books and reads LOK for each; the same book again is the first send; a SimpleAPI tenant is told
 * to upload by hand; another account's set does not exist.
 */
const set01 = readFileSync(new URL('../../fixtures/certification/SIISetDePruebas-01.txt', import.meta.url));
const FECHA = siiDate(new Date());

describeEachDb('certification books sent to the SII', (backend) => {
  let t: IssuingApp;
  let key: string;
  let tenantId: string;
  let setId: string;

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    ({ key } = await t.account());
  }, 120_000);
  afterAll(() => t?.close());

  const uploadSet = async (k: string, tenant: string) => {
    const up = await t.call(k, {
      method: 'POST',
      url: `/api/v1/tenants/${tenant}/certification/sets`,
      payload: set01,
      headers: { 'content-type': 'text/plain' },
    });
    expect(up.statusCode, up.body).toBe(201);
    return up.json().id as string;
  };
  const bookUrl = (tenant: string, set: string, kind: string) => `/api/v1/tenants/${tenant}/certification/sets/${set}/books/${kind}`;

  it('a direct tenant sends set 01, then its three books: LOK each; the same book again is the first send', async () => {
    tenantId = await readyTenant(t, key, { provider: 'sii', ambiente: 'certificacion' });
    for (const [tipo, n] of Object.entries({ 33: 5, 34: 5, 52: 5, 56: 5, 61: 10 })) await requestFolios(t, key, tenantId, Number(tipo), n);
    setId = await uploadSet(key, tenantId);
    const made = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/certification/sets/${setId}/documents`,
      payload: { fechaEmision: FECHA },
    });
    expect(made.statusCode, made.body).toBe(201);
    const sent = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/certification/sets/${setId}/send` });
    expect(sent.statusCode, sent.body).toBeLessThan(300);
    const cases = ((made.json().set ?? made.json()).cases as { dteId: string | null }[]).filter((c) => c.dteId);
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) expect((await waitFinal(t, key, c.dteId!)).status).toMatch(/^accepted/);
    const trackIds: Record<string, string> = {};

    for (const [kind, body] of [
      ['ventas', {}],
      ['compras', {}],
      ['guias', { facturaFolio: 1 }],
    ] as const) {
      const r = await t.call(key, { method: 'POST', url: `${bookUrl(tenantId, setId, kind)}/send`, payload: body });
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json()).toMatchObject({ trackId: expect.stringMatching(/^\d+$/) });
      trackIds[kind] = r.json().trackId;
      let book;
      for (let i = 0; i < 100; i++) {
        book = (
          await t.call(key, { method: 'GET', url: `${bookUrl(tenantId, setId, kind)}${kind === 'guias' ? '?facturaFolio=1' : ''}` })
        ).json();
        if (book.envio?.status !== 'pending') break;
        await new Promise((res) => setTimeout(res, 100));
      }
      expect(book.envio, kind).toMatchObject({ trackId: r.json().trackId, status: 'accepted', estado: 'LOK', glosa: 'Libro Aceptado' });

      // Again: no second upload, the first send answers.
      const again = await t.call(key, { method: 'POST', url: `${bookUrl(tenantId, setId, kind)}/send`, payload: body });
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toMatchObject({ trackId: r.json().trackId, status: 'accepted' });
    }

    // A new FolioNotificacion is a new upload.
    const fresh = await t.call(key, {
      method: 'POST',
      url: `${bookUrl(tenantId, setId, 'compras')}/send`,
      payload: { folioNotificacion: 99 },
    });
    expect(fresh.statusCode, fresh.body).toBe(200);
    expect(fresh.json().trackId).toMatch(/^\d+$/);
    expect(fresh.json().trackId).not.toBe(trackIds.compras);
  }, 300_000);

  it('a SimpleAPI tenant is told to upload by hand; another account sees no set', async () => {
    const simple = await readyTenant(t, key, { ambiente: 'certificacion' });
    const simpleSet = await uploadSet(key, simple);
    const r = await t.call(key, { method: 'POST', url: `${bookUrl(simple, simpleSet, 'compras')}/send` });
    expect(r.statusCode, r.body).toBe(409);
    expect(r.json().error.code).toBe('certification_book_upload_unsupported');
    expect(r.json().error.message).toMatch(/xml/);

    const other = await t.account();
    const otherTenant = await readyTenant(t, other.key, { provider: 'sii', ambiente: 'certificacion' });
    const x = await t.call(other.key, { method: 'POST', url: `${bookUrl(otherTenant, setId, 'compras')}/send` });
    expect(x.statusCode, x.body).toBe(404);
  }, 120_000);
});
