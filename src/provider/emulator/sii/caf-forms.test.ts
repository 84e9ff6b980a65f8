import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCaf } from '../../../dte/index.ts';
import { manualClock } from '../../../lib/clock.ts';
import { openTestDb, type TestDb } from '../../../../test/support/db.ts';
import { makeCert, modernPfx } from '../../../../test/support/pfx.ts';
import { httpsTransport, type FormRequest } from '../../sii/caf-forms.ts';
import { parseErrorPage, parseForm, parseHistory } from '../../sii/caf-forms.html.ts';
import { createEmulatorCore, type EmulatorCore } from '../emulator.ts';
import { ephemeralSiiKey } from '../sii-key.ts';
import { emulatorStore } from '../store.ts';
import { CAF_FORM_CODES, HISTORY_PAGE_SIZE, NEW_ISSUER_MAX_AUTOR, startCafFormsListener } from './caf-forms.ts';

/** The emulator's CAF forms answered to raw form posts (over HTTPS, with a client certificate). */
const PASSWORD = 'clave-del-pfx';
let tdb: TestDb;
let core: EmulatorCore;
let listener: Awaited<ReturnType<typeof startCafFormsListener>>;
let transport: ReturnType<typeof httpsTransport>;
let cookie = '';
const clock = manualClock('2026-03-02T12:30:00.000Z');

const post = async (path: string, form: Record<string, string | number>, withCookie = true) => {
  const body = new URLSearchParams(Object.entries(form).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const r: FormRequest = {
    url: `${listener.origin}${path}`,
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(withCookie && cookie ? { Cookie: cookie } : {}) },
    body,
  };
  const res = await transport.send(r);
  return { ...res, html: res.body.toString('latin1') };
};

/** The form of a type as the reload fills it. */
const typeForm = async (rut: string, dv: string, tipo: number) =>
  (await post('/cvc_cgi/dte/of_solicita_folios_dcto', { RUT_EMP: rut, DV_EMP: dv, COD_DOCTO: tipo })).html;

beforeAll(async () => {
  tdb = await openTestDb('pglite');
  core = createEmulatorCore({ db: tdb.db, clock, siiKey: ephemeralSiiKey(), processingDelayMs: 0 });
  listener = await startCafFormsListener(core);
  const cert = makeCert({ rut: '12345678-5', commonName: 'Firmante de Prueba' });
  transport = httpsTransport({ identity: { pfx: modernPfx(cert, PASSWORD), passphrase: PASSWORD }, ca: [listener.ca], timeoutMs: 10_000 });
  const login = await post('/cgi_AUT2000/CAutInicio.cgi?https://x/cvc_cgi/dte/of_solicita_folios', {
    referencia: 'https://x/cvc_cgi/dte/of_solicita_folios',
  });
  expect(login.status).toBe(302);
  expect(login.location).toBe('/cvc_cgi/dte/of_solicita_folios');
  cookie = login.setCookie.map((c) => c.split(';')[0]).join('; ');
  expect(cookie).toMatch(/TOKEN=\w+; CSESSIONID=\w+/);
});
afterAll(async () => {
  transport?.close();
  await listener?.close();
  await tdb?.close();
});

describe("the emulator's CAF forms", () => {
  it('a page asked without a session offers no form', async () => {
    const r = await post('/cvc_cgi/dte/of_solicita_folios_dcto', { RUT_EMP: '76192083', DV_EMP: '9', ACEPTAR: 'Continuar' }, false);
    expect(parseForm(r.html)).toBeUndefined();
  });

  it('fills the type fields only with COD_DOCTO; a grant without them is ST-SEG-DTE-21-2', async () => {
    const blank = parseForm(
      (await post('/cvc_cgi/dte/of_solicita_folios_dcto', { RUT_EMP: '76192083', DV_EMP: '9', ACEPTAR: 'Continuar' })).html,
    )!;
    expect(blank.action).toBe('/cvc_cgi/dte/of_confirma_folio');
    expect(blank.fields).toMatchObject({ FACTOR: '', MAX_AUTOR: '', FOLIOS_DISP: '' });
    const filled = parseForm(await typeForm('76192083', '9', 33))!;
    expect(filled.fields).toMatchObject({ COD_DOCTO: '33', MAX_AUTOR: String(NEW_ISSUER_MAX_AUTOR), FOLIOS_DISP: '0', AFECTO_IVA: 'S' });
    expect(filled.fields.FACTOR).not.toBe('');
    // The request posted straight from the blank form: the confirmation carries the empty fields, the grant refuses them.
    const confirm = parseForm((await post('/cvc_cgi/dte/of_confirma_folio', { ...blank.fields, COD_DOCTO: 33, CANT_DOCTOS: 2 })).html)!;
    const refused = await post(confirm.action, confirm.fields);
    expect(parseErrorPage(refused.html)?.code).toBe(CAF_FORM_CODES.typeFieldsMissing);
    expect(await emulatorStore.cafHistory(tdb.db, '76192083-9', 33)).toEqual([]);
  });

  it('more than MAX_AUTOR is the LIBRUD page; MAX_AUTOR grows with the documents received', async () => {
    const f = parseForm(await typeForm('76086428', '5', 61))!;
    const over = await post('/cvc_cgi/dte/of_confirma_folio', {
      ...f.fields,
      CANT_DOCTOS: NEW_ISSUER_MAX_AUTOR + 1,
      ACEPTAR: 'Solicitar Numeración',
    });
    expect(parseErrorPage(over.html)?.code).toBe(CAF_FORM_CODES.overLimit);
    await tdb.db.query(
      `insert into emu_documents (rut_emisor, tipo_dte, folio, digest, track_id, estado, glosa, received_at)
       values ('76086428-5', 61, 1, 'x', 1, 'DOK', '', now()), ('76086428-5', 61, 2, 'y', 1, 'DOK', '', now())`,
    );
    expect(parseForm(await typeForm('76086428', '5', 61))!.fields.MAX_AUTOR).toBe(String(NEW_ISSUER_MAX_AUTOR + 2));
  });

  it('the first CAF of a type needs "Confirmar Folio Inicial"; the download answers the same file again; the history lists it', async () => {
    const f = parseForm(await typeForm('77777777', '7', 56))!;
    const confirm = parseForm(
      (await post('/cvc_cgi/dte/of_confirma_folio', { ...f.fields, CANT_DOCTOS: 3, ACEPTAR: 'Solicitar Numeración' })).html,
    )!;
    expect(confirm.fields).toMatchObject({ ACEPTAR: 'Confirmar Folio Inicial', FOLIO_INICIAL: '1' });
    const again = parseForm((await post(confirm.action, { ...confirm.fields, ACEPTAR: 'Obtener Folios' })).html)!;
    expect(again.action).toBe(confirm.action);
    const comprobante = parseForm((await post(confirm.action, confirm.fields)).html)!;
    expect(comprobante).toMatchObject({
      action: '/cvc_cgi/dte/of_genera_archivo',
      fields: { FOLIO_INI: '1', FOLIO_FIN: '3', FECHA: '2026-03-02', ACEPTAR: 'AQUI' },
    });
    const a = await post(comprobante.action, comprobante.fields);
    const b = await post(comprobante.action, { ...comprobante.fields, FECHA: '02-03-2026' });
    expect(parseCaf(a.body)).toMatchObject({ tipoDte: 56, desde: 1, hasta: 3 });
    expect(b.body.equals(a.body)).toBe(true);
    expect(parseErrorPage((await post(comprobante.action, { ...comprobante.fields, FOLIO_FIN: 4 })).html)).toBeDefined();

    // A second CAF of the type: an ordinary confirmation.
    const f2 = parseForm(await typeForm('77777777', '7', 56))!;
    const c2 = parseForm(
      (await post('/cvc_cgi/dte/of_confirma_folio', { ...f2.fields, CANT_DOCTOS: 2, ACEPTAR: 'Solicitar Numeración' })).html,
    )!;
    expect(c2.fields).toMatchObject({ ACEPTAR: 'Obtener Folios', FOLIO_INICIAL: '4' });
    await post(c2.action, c2.fields);
    const h = parseHistory(
      (await post('/cvc_cgi/dte/of_consulta2_folio', { RUT_EMP: '77777777', DV_EMP: '7', COD_DOCTO: 56, PAGINA: 1, ACEPTAR: 'Consultar' }))
        .html,
    );
    expect(h).toEqual({
      enabled: true,
      ranges: [
        { fecha: '2026-03-02', cantidad: 2, desde: 4, hasta: 5, mandatario: 'Firmante de Prueba' },
        { fecha: '2026-03-02', cantidad: 3, desde: 1, hasta: 3, mandatario: 'Firmante de Prueba' },
      ],
    });
  });

  it(`the history pages ${HISTORY_PAGE_SIZE} rows at a time; a type the company may not stamp is not enabled`, async () => {
    for (let i = 0; i < HISTORY_PAGE_SIZE + 2; i++) await core.grantCaf('96790240-3', 33, 1, 'Otro');
    const page = async (n: number) =>
      parseHistory(
        (
          await post('/cvc_cgi/dte/of_consulta2_folio', {
            RUT_EMP: '96790240',
            DV_EMP: '3',
            COD_DOCTO: 33,
            PAGINA: n,
            ACEPTAR: 'Consultar',
          })
        ).html,
      );
    expect((await page(1)).ranges).toHaveLength(HISTORY_PAGE_SIZE);
    expect((await page(2)).ranges.map((r) => r.desde)).toEqual([2, 1]);
    expect((await page(3)).ranges).toEqual([]);
    expect(
      parseHistory((await post('/cvc_cgi/dte/of_consulta2_folio', { RUT_EMP: '96790240', DV_EMP: '3', COD_DOCTO: 35, PAGINA: 1 })).html)
        .enabled,
    ).toBe(false);
  });
});
