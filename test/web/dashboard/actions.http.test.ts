import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../support/db.ts';
import {
  CERT_PASSWORD,
  dteBody,
  randomRut,
  requestFolios,
  startIssuingApp,
  testCertificate,
  waitFinal,
  type IssuingApp,
} from '../../support/issuing.ts';
import { validTenant } from '../../support/app.ts';
import { ymd } from '../../support/pfx.ts';
import { DashboardClient, textOf } from './client.ts';

/**
 * The dashboard's actions (issue 18) through the real app with its background worker and the
 * emulator: credentials uploaded from the company page, folios requested, a document sent and
 * e-mailed again, credit notes issued from it, the search and its CSV export. Every POST is a
 * form with the page's CSRF token and answers 303; every refusal is a page with the error in
 * Spanish and the API's status, never a 500.
 */
describeEachDb('dashboard actions', (backend) => {
  let t: IssuingApp;
  let c: DashboardClient;
  let key: string;
  let accountId: string;
  let tenantId: string;

  beforeAll(async () => {
    t = await startIssuingApp(backend);
    c = new DashboardClient(t.app);
    await c.signUp('Acciones SpA');
    accountId = (await t.tdb.db.query<{ id: string }>(`select id from accounts where name = 'Acciones SpA'`)).rows[0]!.id;
    key = (await t.ctx.services.apiKeys.create(accountId, { name: 'tests' })).key;
    tenantId = (await t.ctx.services.tenants.create(accountId, validTenant({ rutEmpresa: randomRut(), acteco: [620200] }))).id;
  }, 60_000);
  afterAll(() => t?.close());

  /** A multipart form as a browser posts it, with the session cookie and the last page's CSRF token. */
  const postMultipart = async (url: string, fields: Record<string, string>, file?: { name: string; data: Buffer }) => {
    const boundary = '----dash' + Math.random().toString(16).slice(2);
    const parts: Buffer[] = [];
    for (const [k, v] of Object.entries({ _csrf: c.csrf, ...fields }))
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
    if (file)
      parts.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="firma.pfx"\r\nContent-Type: application/x-pkcs12\r\n\r\n`,
        ),
        file.data,
        Buffer.from('\r\n'),
      );
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    return t.app.inject({
      method: 'POST',
      url,
      remoteAddress: c.ip,
      payload: Buffer.concat(parts),
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
  };

  it('refuses a folio request for a company without credentials, in Spanish', async () => {
    const page = await c.get(`/tenants/${tenantId}`);
    expect(page.body).toContain(`href="/tenants/${tenantId}/folios/request"`);
    expect(page.body).toContain(`href="/tenants/${tenantId}/credentials"`);
    const form = await c.get(`/tenants/${tenantId}/folios/request`);
    expect(textOf(form.body)).toContain('necesita su clave API del proveedor y un certificado');
    const r = await c.post(`/tenants/${tenantId}/folios/request`, { tipoDte: '33', cantidad: '5' });
    expect(r.statusCode).toBe(409);
    expect(textOf(r.body)).toContain('La empresa aún no tiene su clave API del proveedor y un certificado');
  });

  it('uploads the API key and the certificate directly, never echoing a secret', async () => {
    const url = `/tenants/${tenantId}/credentials`;
    await c.get(url);
    const empty = await c.post(`${url}/api-key`, { apiKey: '' });
    expect(empty.statusCode).toBe(400);
    expect(textOf(empty.body)).toContain('Completa «Clave API de SimpleAPI».');
    const bad = await c.post(`${url}/api-key`, { apiKey: 'sk-invalid-key-000' });
    expect(bad.statusCode).toBe(422);
    expect(textOf(bad.body)).toContain('El proveedor rechazó la clave API');
    expect(bad.body).not.toContain('sk-invalid-key-000');
    const ok = await c.post(`${url}/api-key`, { apiKey: 'sk-dashboard-valid-0001' });
    expect([ok.statusCode, ok.headers.location]).toEqual([303, `${url}?done=api-key`]);
    const after = await c.get(`${url}?done=api-key`);
    expect(textOf(after.body)).toContain('Clave API verificada y guardada.');
    expect(after.body).not.toContain('sk-dashboard-valid-0001');

    const { cert, pfx } = testCertificate();
    const fields = {
      rutCertificado: '12.345.678-5',
      nombreTitular: 'Firmante de Prueba',
      fechaVencimiento: ymd(cert.notAfter),
      esPrincipal: 'true',
    };
    const missing = await postMultipart(`${url}/certificate`, { ...fields, password: CERT_PASSWORD });
    expect(missing.statusCode).toBe(400);
    expect(textOf(missing.body)).toContain('Completa «Archivo del certificado (.pfx o .p12)».');
    const wrong = await postMultipart(`${url}/certificate`, { ...fields, password: 'no-es-la-clave' }, { name: 'file', data: pfx });
    expect(wrong.statusCode).toBe(422);
    expect(textOf(wrong.body)).toContain('La contraseña no abre el certificado.');
    expect(wrong.body).toContain('value="Firmante de Prueba"'); // the form keeps what is not secret…
    expect(wrong.body).not.toContain('no-es-la-clave'); // …and never the password
    const up = await postMultipart(`${url}/certificate`, { ...fields, password: CERT_PASSWORD }, { name: 'file', data: pfx });
    expect([up.statusCode, up.headers.location]).toEqual([303, `${url}?done=certificate`]);
    expect(textOf((await c.get(`${url}?done=certificate`)).body)).toContain('Certificado guardado.');
    const tenant = await t.ctx.services.tenants.get(accountId, tenantId);
    expect(tenant.status).toBe('active');
    // Without the page's CSRF token the upload is refused before it is read.
    const forged = await t.app.inject({
      method: 'POST',
      url: `${url}/api-key`,
      remoteAddress: c.ip,
      payload: 'apiKey=sk-dashboard-valid-0002',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    expect(forged.statusCode).toBe(403);
  }, 60_000);

  it('requests folios from the company page and shows the range and the stock', async () => {
    const url = `/tenants/${tenantId}/folios/request`;
    await c.get(url);
    const bad = await c.post(url, { tipoDte: '33', cantidad: '0' });
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body)).toContain('«Cantidad de folios» debe ser un número entero entre 1 y 1000.');
    const formToken = /name="formToken" value="([A-Za-z0-9_-]{22})"/.exec(bad.body)![1]!;
    const r = await c.post(url, { tipoDte: '33', cantidad: '5', formToken });
    expect(r.statusCode).toBe(303);
    // The same form again (a reload of the POST): the same request, no second CAF.
    expect((await c.post(url, { tipoDte: '33', cantidad: '5', formToken })).headers.location).toBe(r.headers.location);
    expect(r.headers.location).toMatch(new RegExp(`^${url}\\?request=[0-9a-f-]{36}$`));
    const page = textOf((await c.get(r.headers.location as string)).body);
    expect(page).toContain('Folios autorizados para 33 · Factura electrónica: del 1 al 5.');
    expect(page).toMatch(/33 · Factura electrónica 5 Stock bajo 0 5 10/);
    // Another account's request id reads as nothing (no banner), never as that account's request.
    expect(textOf((await c.get(`${url}?request=5b1b6c1e-0000-4000-8000-000000000000`)).body)).not.toContain('Folios autorizados');
    for (const tipo of [61, 39]) await requestFolios(t, key, tenantId, tipo, 10);
  }, 60_000);

  let facturaId = '';
  it('sends a document to the SII from its page, once', async () => {
    const body = dteBody(33, {
      receptor: {
        rut: '77.777.777-7',
        razonSocial: 'Cliente Ñandú Ltda.',
        giro: 'Comercio',
        direccion: 'Calle 1',
        comuna: 'Ñuñoa',
        correo: 'compras@cliente.example',
      },
    });
    facturaId = (await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: body })).json().id;
    const url = `/tenants/${tenantId}/documents/${facturaId}`;
    const page = await c.get(url);
    expect(page.body).toContain(`action="${url}/send"`);
    expect(page.body).not.toContain(`${url}/credit-note`); // not accepted yet
    const r = await c.post(`${url}/send`);
    expect([r.statusCode, r.headers.location]).toEqual([303, `${url}?done=sent`]);
    expect(textOf((await c.get(`${url}?done=sent`)).body)).toMatch(/Documento (enviado al SII \(Track ID \d+\)|en cola de envío)/);
    const again = await c.post(`${url}/send`);
    expect(again.statusCode).toBe(409);
    expect(textOf(again.body)).toContain('Este documento ya fue enviado al SII.');
    expect((await waitFinal(t, key, facturaId)).status).toBe('accepted');
    const accepted = await c.get(url);
    expect(accepted.body).not.toContain(`action="${url}/send"`);
    expect(accepted.body).toContain(`href="${url}/resend"`);
    expect(accepted.body).toContain(`href="${url}/credit-note"`);
  }, 90_000);

  it('e-mails the document to its receptor again after a confirmation', async () => {
    const url = `/tenants/${tenantId}/documents/${facturaId}`;
    const before = (await t.ctx.services.dteDeliveries.list({ account_id: accountId, id: tenantId }, facturaId)).data.length;
    const confirm = await c.get(`${url}/resend`);
    expect(confirm.body).toContain('value="compras@cliente.example"');
    expect(confirm.body).toContain('name="confirmed"');
    const unticked = await c.post(`${url}/resend`, { to: 'compras@cliente.example' });
    expect(unticked.statusCode).toBe(400);
    expect(textOf(unticked.body)).toContain('Marca la casilla para confirmar.');
    const badTo = await c.post(`${url}/resend`, { to: 'no es un correo', confirmed: 'yes' });
    expect(badTo.statusCode).toBe(400);
    expect(textOf(badTo.body)).toContain('Ese correo electrónico no es válido.');
    const r = await c.post(`${url}/resend`, { to: 'otra@cliente.example', confirmed: 'yes' });
    expect([r.statusCode, r.headers.location]).toEqual([303, `${url}?done=resent#deliveries`]);
    expect(textOf((await c.get(`${url}?done=resent`)).body)).toContain('Reenvío en cola.');
    const after = (await t.ctx.services.dteDeliveries.list({ account_id: accountId, id: tenantId }, facturaId)).data;
    expect(after).toHaveLength(before + 1);
  }, 30_000);

  it('issues a credit note that cancels the document, for its whole total', async () => {
    const url = `/tenants/${tenantId}/documents/${facturaId}`;
    const form = await c.get(`${url}/credit-note`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('name="codRef" value="1" checked');
    const unconfirmed = await c.post(`${url}/credit-note`, { codRef: '1' });
    expect(unconfirmed.statusCode).toBe(400);
    expect(textOf(unconfirmed.body)).toContain('Marca la casilla para confirmar.');
    const r = await c.post(`${url}/credit-note`, { codRef: '1', razonRef: '', confirmed: 'yes' });
    expect(r.statusCode).toBe(303);
    const m = /^\/tenants\/[0-9a-f-]+\/documents\/([0-9a-f-]{36})\?done=credit-note$/.exec(r.headers.location as string);
    expect(m).not.toBeNull();
    const source = await t.ctx.services.dte.get({ account_id: accountId, id: tenantId }, facturaId);
    const note = await t.ctx.services.dte.get({ account_id: accountId, id: tenantId }, m![1]!);
    expect([note.tipoDte, note.montoTotal, note.status]).toEqual([61, source.montoTotal, 'created']);
    expect(note.referencias).toEqual([
      expect.objectContaining({
        tipoDocRef: '33',
        folioRef: String(source.folio),
        fechaRef: source.fechaEmision,
        codRef: 1,
        razonRef: 'Anula documento de referencia',
      }),
    ]);
    expect(note.receptor.rut).toBe(source.receptor.rut);
    const noteBody = (await c.get(r.headers.location as string)).body;
    const page = textOf(noteBody);
    expect(page).toContain(`Nota de crédito N° ${note.folio} emitida.`);
    // Its reference, linked to the factura it cancels.
    expect(noteBody).toContain(`<a href="${url}">${source.folio}</a>`);
    expect(page).toContain('Referencias');
    expect(page).toContain('Anula Anula documento de referencia');
    // The same pages in English.
    expect(textOf((await c.get(`${r.headers.location as string}&lang=en`)).body)).toContain(`Credit note No. ${note.folio} issued.`);
    const english = textOf((await c.get(`${url}/credit-note`)).body);
    expect(english).toContain('Cancels the document (its whole total)');
    expect(textOf((await c.post(`${url}/credit-note`, { codRef: '1' })).body)).toContain('Tick the box to confirm.');
    await c.get(`${url}?lang=es`);
  }, 30_000);

  it('issues a credit note that corrects amounts, with the quantities and prices chosen', async () => {
    const url = `/tenants/${tenantId}/documents/${facturaId}`;
    await c.get(`${url}/credit-note`);
    const none = await c.post(`${url}/credit-note`, { codRef: '3', cantidad_0: '0', cantidad_1: '0', cantidad_2: '0', confirmed: 'yes' });
    expect(none.statusCode).toBe(400);
    expect(textOf(none.body)).toContain('Indica al menos una línea con cantidad mayor que 0.');
    const nan = await c.post(`${url}/credit-note`, { codRef: '3', cantidad_0: 'dos', precio_0: '1000', confirmed: 'yes' });
    expect(nan.statusCode).toBe(400);
    expect(textOf(nan.body)).toContain('«Cantidad, línea 1» debe ser un número');
    expect(nan.body).toContain('value="dos"'); // what was typed stays in the form
    const formToken = /name="formToken" value="([A-Za-z0-9_-]{22})"/.exec(nan.body)![1]!;
    const fields = {
      codRef: '3',
      razonRef: 'Descuento por volumen',
      cantidad_0: '1',
      precio_0: '10000',
      cantidad_1: '0',
      precio_1: '12990.5',
      cantidad_2: '1,5',
      precio_2: '2000',
      confirmed: 'yes',
      formToken,
    };
    const count61 = async () =>
      (await t.tdb.db.query<{ n: string }>('select count(*) as n from dtes where tenant_id = $1 and tipo_dte = 61', [tenantId])).rows[0]!.n;
    const before = await count61();
    // A double click: the same form twice at once, and once more later. One note, one folio.
    const [r, twice] = await Promise.all([c.post(`${url}/credit-note`, fields), c.post(`${url}/credit-note`, fields)]);
    const thrice = await c.post(`${url}/credit-note`, fields);
    expect([r.statusCode, twice.statusCode, thrice.statusCode]).toEqual([303, 303, 303]);
    expect(twice.headers.location).toBe(r.headers.location);
    expect(thrice.headers.location).toBe(r.headers.location);
    expect(Number(await count61())).toBe(Number(before) + 1);
    const id = /documents\/([0-9a-f-]{36})\?/.exec(r.headers.location as string)![1]!;
    const note = await t.ctx.services.dte.get({ account_id: accountId, id: tenantId }, id);
    // 10 000 taxed + 3 000 exempt (the third line of the factura is exempt): IVA 1 900.
    expect(note.detalle.map((l) => [l.nombre, l.cantidad, l.montoItem, l.exento])).toEqual([
      ['Servicio de desarrollo', 1, 10000, false],
      ['Capacitación', 1.5, 3000, true],
    ]);
    expect([note.montoNeto, note.iva, note.montoExento, note.montoTotal]).toEqual([10000, 1900, 3000, 14900]);
    expect(note.referencias[0]).toMatchObject({ codRef: 3, razonRef: 'Descuento por volumen' });
  }, 30_000);

  it('asks for a receptor when crediting a boleta to the final consumer', async () => {
    const boletaId = (await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: dteBody(39) })).json()
      .id as string;
    const url = `/tenants/${tenantId}/documents/${boletaId}`;
    await c.get(url);
    await c.post(`${url}/send`);
    expect((await waitFinal(t, key, boletaId)).status).toBe('accepted');
    const page = await c.get(url);
    expect(page.body).not.toContain(`${url}/resend`); // boletas are not e-mailed
    const form = await c.get(`${url}/credit-note`);
    expect(form.body).toContain('name="rut"');
    const noRut = await c.post(`${url}/credit-note`, { codRef: '1', confirmed: 'yes' });
    expect(noRut.statusCode).toBe(400);
    expect(textOf(noRut.body)).toContain('Completa «RUT».');
    const r = await c.post(`${url}/credit-note`, { codRef: '1', rut: '11.111.111-1', razonSocial: 'Juana Pérez', confirmed: 'yes' });
    expect(r.statusCode).toBe(303);
    const id = /documents\/([0-9a-f-]{36})\?/.exec(r.headers.location as string)![1]!;
    const boleta = await t.ctx.services.dte.get({ account_id: accountId, id: tenantId }, boletaId);
    const note = await t.ctx.services.dte.get({ account_id: accountId, id: tenantId }, id);
    expect([note.tipoDte, note.montoTotal, note.montoBruto, note.receptor.razonSocial]).toEqual([
      61,
      boleta.montoTotal,
      true,
      'Juana Pérez',
    ]);
  }, 90_000);

  it('searches documents by folio, receptor RUT, dates, state and type, keeping the filters', async () => {
    const base = `/tenants/${tenantId}/documents`;
    const source = await t.ctx.services.dte.get({ account_id: accountId, id: tenantId }, facturaId);
    const rows = async (qs: string) => {
      const r = await c.get(`${base}?${qs}`);
      expect(r.statusCode).toBe(200);
      return [...r.body.matchAll(new RegExp(`href="${base}/([0-9a-f-]{36})"`, 'g'))].map((x) => x[1]);
    };
    expect(await rows(`folio=${source.folio}&tipoDte=33`)).toEqual([facturaId]);
    expect((await rows(`folio=${source.folio}`)).length).toBeGreaterThanOrEqual(2); // the factura and the 61 with folio 1
    expect(await rows('receptorRut=77.777.777-7&tipoDte=33')).toEqual([facturaId]);
    expect((await rows('receptorRut=77777777-7')).length).toBe(3); // the factura and its two notes
    expect(await rows('receptorRut=11111111-1')).toHaveLength(1);
    expect(await rows(`desde=${source.fechaEmision}&hasta=${source.fechaEmision}&tipoDte=33`)).toEqual([facturaId]);
    expect(await rows('desde=2001-01-01&hasta=2001-12-31')).toEqual([]);
    expect(await rows('status=created&tipoDte=61')).toHaveLength(3);
    const page = await c.get(`${base}?receptorRut=77.777.777-7&status=accepted`);
    expect(page.body).toContain('value="77.777.777-7"');
    expect(page.body).toContain(`href="${base}.csv?status=accepted&amp;receptorRut=77.777.777-7"`);
    const bad = await c.get(`${base}?receptorRut=77.777.777-1&desde=2026-02-30&folio=uno`);
    expect(bad.statusCode).toBe(400);
    const text = textOf(bad.body);
    expect(text).toContain('El RUT no es válido');
    expect(text).toContain('Emitidos desde: La fecha no es válida');
    expect(text).toContain('«Folio» debe ser un número entero, sin puntos.');
  }, 30_000);

  it('pages a search of more than 50 documents keeping its filters, in the list and in the CSV', async () => {
    const other = (await t.ctx.services.tenants.create(accountId, validTenant({ rutEmpresa: randomRut() }))).id;
    // 120 stored documents (only what the list reads): 60 accepted for 76.086.428-5, 60 others.
    await t.tdb.db.query(
      `insert into dtes (id, account_id, tenant_id, tipo_dte, folio, status, fecha_emision, receptor, detalle, monto_neto, monto_exento,
         iva, monto_total, xml, created_at, updated_at)
       select gen_random_uuid(), $1, $2, 33, n, case when n % 2 = 0 then 'accepted' else 'rejected' end, date '2026-11-01',
         jsonb_build_object('rut', case when n % 2 = 0 then '76086428-5' else '77777777-7' end, 'razonSocial', 'Cliente ' || n),
         '[]'::jsonb, 1000, 0, 190, 1190, '\\x00'::bytea, timestamptz '2026-11-01' + n * interval '1 minute', now()
       from generate_series(1, 120) as n`,
      [accountId, other],
    );
    const base = `/tenants/${other}/documents`;
    const first = await c.get(`${base}?status=accepted&receptorRut=76.086.428-5`);
    const folios = (body: string) =>
      [...body.matchAll(/<a href="\/tenants\/[^"]+\/documents\/[0-9a-f-]{36}">(\d+)<\/a>/g)].map((m) => Number(m[1]));
    expect(folios(first.body)).toHaveLength(50);
    const next = /<a href="([^"]+)" rel="next">/.exec(first.body)![1]!.replace(/&amp;/g, '&');
    expect(next).toMatch(/status=accepted/);
    expect(next).toMatch(/receptorRut=76\.086\.428-5/);
    const second = folios((await c.get(next)).body);
    expect(second).toHaveLength(10);
    expect([...folios(first.body), ...second].every((f) => f % 2 === 0)).toBe(true);
    expect(new Set([...folios(first.body), ...second]).size).toBe(60);
    // The CSV has every page of the search.
    const csv = await c.get(`${base}.csv?status=accepted&receptorRut=76.086.428-5`);
    expect(csv.rawPayload.toString('utf8').trim().split('\r\n')).toHaveLength(61);
  });

  it('exports the search as CSV for Excel: BOM, stable columns, integers, formula guard', async () => {
    const evil = dteBody(33, {
      receptor: { rut: '76.086.428-5', razonSocial: '=HYPERLINK("http://x";"y")', giro: 'Comercio', direccion: 'Calle 1', comuna: 'Ñuñoa' },
    });
    const created = await t.call(key, { method: 'POST', url: `/api/v1/tenants/${tenantId}/dte`, payload: evil });
    expect(created.statusCode).toBe(201);
    const r = await c.get(`/tenants/${tenantId}/documents.csv?tipoDte=33`);
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('text/csv; charset=utf-8');
    const rut = (await t.ctx.services.tenants.get(accountId, tenantId)).rutEmpresa.replace(/\./g, '');
    expect(r.headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="documentos-${rut}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`));
    expect(r.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const lines = r.rawPayload.toString('utf8').slice(1).split('\r\n');
    expect(lines[0]).toBe(
      'id;tipoDte;folio;fechaEmision;receptorRut;receptorRazonSocial;montoNeto;montoExento;iva;montoTotal;moneda;status;siiEstado;trackId;createdAt',
    );
    expect(lines.at(-1)).toBe('');
    const data = lines.slice(1, -1);
    expect(data).toHaveLength(2); // both facturas, newest first
    expect(data[0]).toContain(`"'=HYPERLINK(""http://x"";""y"")"`);
    const factura = await t.ctx.services.dte.get({ account_id: accountId, id: tenantId }, facturaId);
    expect(data[1]!.split(';').slice(0, 12)).toEqual([
      facturaId,
      '33',
      String(factura.folio),
      factura.fechaEmision,
      '77777777-7',
      'Cliente Ñandú Ltda.',
      String(factura.montoNeto),
      String(factura.montoExento),
      String(factura.iva),
      String(factura.montoTotal),
      'PESO CL',
      'accepted',
    ]);
    expect((await c.get(`/tenants/${tenantId}/documents.csv?desde=ayer`)).statusCode).toBe(400);
  }, 30_000);

  it("answers 404 for another account's tenant or document, and never runs the action", async () => {
    const other = await t.account('Otra Cuenta');
    const foreign = (await t.ctx.services.tenants.create(other.accountId, validTenant({ rutEmpresa: randomRut() }))).id;
    await c.get('/');
    expect((await c.post(`/tenants/${foreign}/folios/request`, { tipoDte: '33', cantidad: '5' })).statusCode).toBe(404);
    expect((await c.post(`/tenants/${foreign}/credentials/api-key`, { apiKey: 'sk-dashboard-valid-0003' })).statusCode).toBe(404);
    expect((await c.get(`/tenants/${foreign}/documents.csv`)).statusCode).toBe(404);
    expect((await c.post(`/tenants/${tenantId}/documents/5b1b6c1e-0000-4000-8000-000000000000/send`)).statusCode).toBe(404);
    expect((await c.get(`/tenants/${tenantId}/documents/5b1b6c1e-0000-4000-8000-000000000000/credit-note`)).statusCode).toBe(404);
    expect((await t.ctx.services.credentials.status(other.accountId, foreign)).apiKey.configured).toBe(false);
  });
});
