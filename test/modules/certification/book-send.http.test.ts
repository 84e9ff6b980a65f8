import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { siiDate } from '../../../src/dte/index.ts';
import { BOOK_POLL_QUEUE, createBookSend } from '../../../src/modules/certification/index.ts';
import { systemClock } from '../../../src/lib/clock.ts';
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

  it('a claim left by a dead process lapses: the next send takes it over and uploads the file it kept; a live one is not touched', async () => {
    const tenant = await readyTenant(t, key, { provider: 'sii', ambiente: 'certificacion' });
    const set = await uploadSet(key, tenant);
    const db = t.ctx.db;
    const { rows } = await db.query<{ account_id: string }>('select account_id from certification_sets where id = $1', [set]);
    const accountId = rows[0]!.account_id;
    // The file the dead process built and kept before its upload (a valid purchase book, FolioNotificacion 4242).
    const xml = await t.call(key, { method: 'GET', url: `${bookUrl(tenant, set, 'compras')}/xml?folioNotificacion=4242` });
    expect(xml.statusCode, xml.body).toBe(200);
    const kept = xml.rawPayload;
    const claim = async (folio: number, leaseUntil: Date, bookXml: Buffer | null) => {
      const id = crypto.randomUUID();
      await db.query(
        `insert into certification_book_sends
           (id, account_id, tenant_id, set_id, kind, folio_notificacion, status, lease_holder, lease_until, book_xml, sent_at, updated_at)
         values ($1, $2, $3, $4, 'compras', $5, 'uploading', 'dead-process', $6, $7, now(), now())`,
        [id, accountId, tenant, set, folio, leaseUntil, bookXml],
      );
      return id;
    };
    const row = async (id: string) =>
      (
        await db.query<{ status: string; track_id: string | null; lease_holder: string | null; book_xml: Uint8Array | null }>(
          'select status, track_id, lease_holder, book_xml from certification_book_sends where id = $1',
          [id],
        )
      ).rows[0]!;

    // A live lease: the send steps back, uploads nothing, and the claim stays the other's.
    const live = await claim(4343, new Date(Date.now() + 3_600_000), null);
    const busy = await t.call(key, {
      method: 'POST',
      url: `${bookUrl(tenant, set, 'compras')}/send`,
      payload: { folioNotificacion: 4343 },
    });
    expect(busy.statusCode, busy.body).toBe(409);
    expect(busy.json().error.code).toBe('certification_book_send_in_progress');
    expect(await row(live)).toMatchObject({ status: 'uploading', track_id: null, lease_holder: 'dead-process' });

    // An expired lease: taken over, the kept bytes uploaded, the review followed by the poll job.
    const dead = await claim(4242, new Date(Date.now() - 1_000), kept);
    const r = await t.call(key, { method: 'POST', url: `${bookUrl(tenant, set, 'compras')}/send`, payload: { folioNotificacion: 4242 } });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().trackId).toMatch(/^\d+$/);
    const after = await row(dead);
    expect(after).toMatchObject({ track_id: r.json().trackId, lease_holder: null });
    expect(Buffer.from(after.book_xml!).equals(kept)).toBe(true);
    let shown;
    for (let i = 0; i < 100; i++) {
      shown = (await t.call(key, { method: 'GET', url: `/api/v1/tenants/${tenant}/certification/sets/${set}` })).json();
      if (shown.books.find((b: { kind: string }) => b.kind === 'compras').envio?.status !== 'pending') break;
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(shown.books).toEqual([
      { kind: 'ventas', envio: null },
      { kind: 'compras', envio: expect.objectContaining({ trackId: r.json().trackId, status: 'accepted', estado: 'LOK' }) },
      { kind: 'guias', envio: null },
    ]);
    // Asked again: the recorded send answers, nothing is uploaded.
    const again = await t.call(key, {
      method: 'POST',
      url: `${bookUrl(tenant, set, 'compras')}/send`,
      payload: { folioNotificacion: 4242 },
    });
    expect(again.json()).toMatchObject({ trackId: r.json().trackId, status: 'accepted' });
  }, 120_000);

  it('a send whose claim was taken over while it uploaded records nothing and leaves the claim to its holder', async () => {
    const tenant = await readyTenant(t, key, { provider: 'sii', ambiente: 'certificacion' });
    const set = await uploadSet(key, tenant);
    const db = t.ctx.db;
    const accountId = (await db.query<{ account_id: string }>('select account_id from tenants where id = $1', [tenant])).rows[0]!
      .account_id;
    const row = await t.ctx.services.tenants.getRow(accountId, tenant);
    let uploads = 0;
    // The provider is slow: while it uploads, another send takes the claim over (as after a lapsed lease).
    const sends = createBookSend({
      db,
      clock: systemClock,
      credentials: { getProviderCredentials: async () => ({ via: 'sii' }) as never },
      getTenant: async () => row,
      provider: {
        uploadBook: async () => {
          uploads++;
          await db.query(
            `update certification_book_sends set lease_holder = 'other-send', lease_until = now() + interval '1 hour' where set_id = $1`,
            [set],
          );
          return { trackId: '123', estado: '0', glosa: 'Upload OK' } as never;
        },
        bookStatus: async () => ({ trackId: '123', estado: 'LOK', glosa: 'Libro Aceptado', outcome: 'accepted' }),
      },
    });
    const r = sends.send(row, {
      setId: set,
      kind: 'compras',
      folioNotificacion: 5151,
      build: async () => Buffer.from('<LibroCompraVenta/>'),
    });
    await expect(r).rejects.toMatchObject({ code: 'certification_book_send_in_progress' });
    expect(uploads).toBe(1);
    const after = (
      await db.query<{ status: string; track_id: string | null; lease_holder: string }>(
        'select status, track_id, lease_holder from certification_book_sends where set_id = $1',
        [set],
      )
    ).rows;
    expect(after).toEqual([{ status: 'uploading', track_id: null, lease_holder: 'other-send' }]);
    // Nothing queued for it either: no poll job names a send of this set.
    const polls = await db.query(`select 1 from jobs where queue = $1 and payload->>'accountId' = $2`, [BOOK_POLL_QUEUE, accountId]);
    expect(polls.rows).toEqual([]);
  }, 60_000);

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
