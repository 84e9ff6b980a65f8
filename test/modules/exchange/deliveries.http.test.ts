import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../support/db.ts';
import { dteBody, readyTenant, requestFolios, startIssuingApp, waitFinal, type IssuingApp } from '../../support/issuing.ts';
import { DashboardClient, textOf } from '../../web/dashboard/client.ts';

/**
 * Outbound exchange on the embedded default (no SMTP_URL): a document accepted through the
 * in-process emulator is delivered to the local mailbox, listed on the document over the API and
 * on the dashboard; a receptor without correo gets a `skipped` entry, a boleta nothing; resends.
 */
const ENV = { EXCHANGE_RETRY_SCHEDULE: '0,100ms,100ms', PAGE_RATE_LIMIT_BURST: '100000', LOGIN_RATE_LIMIT_BURST: '1000' };

interface DeliveryJson {
  id: string;
  status: string;
  trigger: string;
  to: string | null;
  attempts: number;
  maxAttempts: number;
  transport: string | null;
  messageId: string | null;
  skipReason: string | null;
  lastError: { code: string; message: string } | null;
  sentAt: string | null;
}

describeEachDb('outbound exchange: deliveries over HTTP, local mailbox', (backend) => {
  let t: IssuingApp;
  let key: string;
  let accountId: string;
  let tenantId: string;
  let dash: DashboardClient;
  const ids: Record<string, string> = {};

  const deliveries = async (dteId: string, tenant = tenantId, k = key) =>
    t.call(k, { method: 'GET', url: `/api/v1/tenants/${tenant}/dte/${dteId}/deliveries` });

  /** The document's deliveries once none is pending (the job runs in the background). */
  const settled = async (dteId: string): Promise<DeliveryJson[]> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const r = await deliveries(dteId);
      expect(r.statusCode, r.body).toBe(200);
      const data = r.json().data as DeliveryJson[];
      if (data.length > 0 && data.every((d) => d.status !== 'pending')) return data;
      if (Date.now() > deadline) throw new Error(`deliveries still pending: ${r.body}`);
      await new Promise((res) => setTimeout(res, 50));
    }
  };

  beforeAll(async () => {
    t = await startIssuingApp(backend, { env: ENV });
    dash = new DashboardClient(t.app);
    const email = await dash.signUp('Intercambio SpA');
    accountId = (await t.ctx.services.accounts.findByEmail(email))!.id;
    key = (await t.ctx.services.apiKeys.create(accountId, { name: 'tests' })).key;
    tenantId = await readyTenant(t, key);
    await requestFolios(t, key, tenantId, 33, 5);
    await requestFolios(t, key, tenantId, 39, 5);
    const create = async (name: string, tipo: 33 | 39, receptor?: Record<string, unknown>) => {
      const body = dteBody(tipo);
      if (receptor) body.receptor = { ...(body.receptor as object), ...receptor };
      const r = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: body });
      expect(r.statusCode, r.body).toBe(201);
      ids[name] = r.json().id;
    };
    await create('withCorreo', 33, { correo: 'dte@receptor.example.cl' });
    await create('withoutCorreo', 33);
    await create('badCorreo', 33, { correo: 'contabilidad en el sitio web' });
    await create('boleta', 39, { rut: '66.666.666-6', correo: 'cliente@example.cl' });
    await create('unsent', 33, { correo: 'dte@receptor.example.cl' });
    const sent = await t.call(key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/dte/send`,
      payload: { dteIds: [ids.withCorreo, ids.withoutCorreo, ids.badCorreo, ids.boleta] },
    });
    expect(sent.statusCode, sent.body).toBe(202);
    for (const n of ['withCorreo', 'withoutCorreo', 'badCorreo', 'boleta'])
      expect((await waitFinal(t, key, ids[n]!)).status).toBe('accepted');
  });
  afterAll(() => t?.close());

  it('e-mails an accepted factura to the local mailbox: the EnvioDTE addressed to the receptor and the PDF', async () => {
    const [d, ...rest] = await settled(ids.withCorreo!);
    expect(rest).toEqual([]);
    expect(d).toMatchObject({
      trigger: 'accepted',
      status: 'sent',
      to: 'dte@receptor.example.cl',
      transport: 'mailbox',
      attempts: 1,
      maxAttempts: 3,
      lastError: null,
      skipReason: null,
      messageId: `<${d!.id}@localhost>`,
    });
    expect(Date.parse(d!.sentAt!)).not.toBeNaN();

    const page = await t.ctx.services.exchange.mailbox(accountId, { limit: 10 });
    expect(page.data).toHaveLength(1);
    const m = page.data[0]!;
    expect(m).toMatchObject({
      deliveryId: d!.id,
      about: { kind: 'dte', id: ids.withCorreo },
      to: 'dte@receptor.example.cl',
      from: 'DTE <dte@localhost>',
    });
    expect(m.subject).toBe('Factura electrónica N° 1 de Servicios Ejemplo SpA');
    expect(m.attachments.map((a) => [a.filename.replace(/_\d+-[\dK]_/, '_RUT_'), a.contentType])).toEqual([
      ['EnvioDTE_RUT_T33_F1.xml', 'application/xml'],
      ['DTE-T33-F1.pdf', 'application/pdf'],
    ]);
    const xml = await t.ctx.services.exchange.mailboxAttachment(accountId, m.id, 0);
    const text = xml.content.toString('latin1');
    expect(text).toContain('<RutReceptor>77777777-7</RutReceptor>');
    expect(text).toMatch(/<EnvioDTE [^>]*version="1.0"/);
    const pdf = await t.ctx.services.exchange.mailboxAttachment(accountId, m.id, 1);
    expect(pdf.content.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const raw = (await t.ctx.services.exchange.mailboxRaw(accountId, m.id)).toString('utf8');
    expect(raw).toContain(`Message-ID: <${d!.id}@localhost>`);
    expect(raw).toContain('To: dte@receptor.example.cl');
  });

  it('records a skipped delivery for a receptor without correo, and none for a boleta', async () => {
    const [d] = await settled(ids.withoutCorreo!);
    expect(d).toMatchObject({ trigger: 'accepted', status: 'skipped', skipReason: 'receptor_email_missing', to: null, attempts: 0 });
    const [bad] = await settled(ids.badCorreo!);
    expect(bad).toMatchObject({ status: 'skipped', skipReason: 'receptor_email_invalid', to: 'contabilidad en el sitio web' });
    const b = await deliveries(ids.boleta!);
    expect(b.statusCode).toBe(200);
    expect(b.json()).toEqual({ data: [] });
    expect((await deliveries(ids.unsent!)).json()).toEqual({ data: [] });
  });

  it('resends on request, to the receptor or another address; refuses what cannot be delivered', async () => {
    const url = (id: string) => `/api/v1/tenants/${tenantId}/dte/${id}/deliveries`;
    // No body at all is a resend to the receptor's correo.
    const again = await t.call(key, { method: 'POST', url: url(ids.withCorreo!) });
    expect(again.statusCode, again.body).toBe(202);
    expect(again.json()).toMatchObject({ trigger: 'resend', status: 'pending', to: 'dte@receptor.example.cl', attempts: 0 });
    const other = await t.call(key, { method: 'POST', url: url(ids.withoutCorreo!), payload: { to: 'intercambio@otro.example.cl' } });
    expect(other.statusCode, other.body).toBe(202);
    const list = await settled(ids.withCorreo!);
    expect(list.map((d) => [d.trigger, d.status])).toEqual([
      ['accepted', 'sent'],
      ['resend', 'sent'],
    ]);
    expect((await settled(ids.withoutCorreo!)).map((d) => [d.status, d.to])).toEqual([
      ['skipped', null],
      ['sent', 'intercambio@otro.example.cl'],
    ]);

    // A retried resend (same Idempotency-Key) is the same delivery, not a second e-mail.
    const keyed = () =>
      t.call(key, { method: 'POST', url: url(ids.withCorreo!), payload: {}, headers: { 'idempotency-key': 'resend-withCorreo-1' } });
    const first = await keyed();
    expect(first.statusCode).toBe(202);
    expect((await keyed()).json().id).toBe(first.json().id);
    expect((await settled(ids.withCorreo!)).length).toBe(3);

    const refused = async (id: string, payload: Record<string, unknown>, status: number, code: string) => {
      const r = await t.call(key, { method: 'POST', url: url(id), payload });
      expect(r.statusCode, r.body).toBe(status);
      expect(r.json().error.code).toBe(code);
    };
    await refused(ids.boleta!, {}, 409, 'delivery_not_applicable');
    await refused(ids.unsent!, {}, 409, 'dte_not_accepted');
    await refused(ids.withoutCorreo!, {}, 409, 'receptor_email_missing');
    await refused(ids.withCorreo!, { to: 'not an address' }, 400, 'invalid_field');
    await refused(ids.badCorreo!, {}, 409, 'receptor_email_missing');
    await refused(ids.withCorreo!, { cc: 'x@example.cl' }, 400, 'invalid_field');
  });

  it('answers 404 for another tenant, another account, or an unknown document', async () => {
    const other = await t.account('Otra cuenta');
    const otherTenant = await readyTenant(t, other.key);
    expect((await deliveries(ids.withCorreo!, tenantId, other.key)).statusCode).toBe(404);
    expect((await deliveries(ids.withCorreo!, otherTenant, other.key)).json().error.code).toBe('dte_not_found');
    const sameAccountTenant = await readyTenant(t, key);
    expect((await deliveries(ids.withCorreo!, sameAccountTenant)).json().error.code).toBe('dte_not_found');
    expect((await deliveries('not-a-uuid')).statusCode).toBe(404);
    const post = await t.call(other.key, {
      method: 'POST',
      url: `/api/v1/tenants/${otherTenant}/dte/${ids.withCorreo}/deliveries`,
      payload: {},
    });
    expect(post.statusCode).toBe(404);
    expect(
      (await t.call(undefined, { method: 'GET', url: `/api/v1/tenants/${tenantId}/dte/${ids.withCorreo}/deliveries` })).statusCode,
    ).toBe(401);
  });

  it('shows the deliveries on the document page and the messages in the dashboard mailbox', async () => {
    const doc = await dash.get(`/tenants/${tenantId}/documents/${ids.withCorreo}`);
    expect(doc.statusCode).toBe(200);
    const text = textOf(doc.body);
    expect(text).toContain('Envíos al receptor');
    expect(text).toContain('dte@receptor.example.cl');
    const link = /href="(\/mailbox\/[0-9a-f-]{36})"/.exec(doc.body)?.[1];
    expect(link).toBeDefined();

    const list = await dash.get('/mailbox');
    expect(list.statusCode).toBe(200);
    expect(textOf(list.body)).toContain('Buzón local');
    expect(list.body).toContain(`href="${link}"`);

    const message = await dash.get(link!);
    expect(message.statusCode).toBe(200);
    expect(textOf(message.body)).toMatch(/EnvioDTE_\d+-[\dK]_T33_F1\.xml/);
    const attachment = await dash.get(`${link}/attachments/1`);
    expect(attachment.statusCode).toBe(200);
    expect(attachment.headers['content-type']).toBe('application/pdf');
    expect(attachment.headers['content-disposition']).toBe('attachment; filename="DTE-T33-F1.pdf"');
    const eml = await dash.get(`${link}/raw`);
    expect(eml.headers['content-type']).toMatch(/^message\/rfc822/);
    expect((await dash.get(`${link}/attachments/7`)).statusCode).toBe(404);

    // Another account's dashboard sees neither the message nor its attachments.
    const stranger = new DashboardClient(t.app, '198.51.100.99');
    await stranger.signUp('Ajena');
    expect((await stranger.get(link!)).statusCode).toBe(404);
    expect((await stranger.get(`${link}/attachments/0`)).statusCode).toBe(404);
    expect(textOf((await stranger.get('/mailbox')).body)).toContain('El buzón está vacío.');
  });
});
