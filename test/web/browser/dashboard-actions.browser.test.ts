import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  artifactsDir,
  axeViolations,
  launchBrowser,
  ROOT,
  screenshot,
  type ServerProcess,
  startServerProcess,
} from '../../support/browser.ts';
import { dteBody } from '../../support/issuing.ts';
import { makeCert, modernPfx, ymd } from '../../support/pfx.ts';

/**
 * The dashboard's actions (issue 18) in Chromium against the real server process and its
 * emulator: the account holder uploads a company's credentials directly, requests folios, sends a
 * document issued through the API to the SII, e-mails it again after a confirmation, issues a
 * credit note from it and sends that too, searches the documents and exports them as CSV.
 * Every page is screenshotted (test-artifacts/dashboard-actions/) and checked with axe-core.
 */
const PASSWORD = 'una frase de paso bien larga';
const PFX_PASSWORD = 'Firma-Segura-2026';

describe('dashboard actions in Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let apiKey = '';
  let tenantUrl = '';
  let facturaUrl = '';
  const shots = artifactsDir('dashboard-actions');
  const problems: string[] = [];
  const cert = makeCert({ rut: '12345678-5', commonName: 'Carolina Muñoz Fuentes' });
  const pfx = modernPfx(cert, PFX_PASSWORD);

  const check = async (name: string, p: Page = page) => {
    await screenshot(p, path.join(shots, `${name}.png`));
    const violations = (await axeViolations(p)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(violations, `${name}: ${JSON.stringify(violations)}`).toEqual([]);
  };
  const h1 = () => page.locator('h1').textContent();
  const flash = () => page.locator('main > .success, main > .notice').first().textContent();
  const api = async (method: string, url: string, body?: unknown) => {
    const r = await fetch(`${server.baseUrl}${url}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: r.status, json: (await r.json()) as Record<string, unknown> };
  };
  const until = async (what: string, fn: () => Promise<boolean>, timeoutMs = 60_000) => {
    const end = Date.now() + timeoutMs;
    while (!(await fn())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  };

  beforeAll(async () => {
    server = await startServerProcess({ EMULATOR_DELAY: '0', FOLIO_REQUEST_WAIT: '20s', DTE_SEND_WAIT: '20s' });
    const email = `acciones-${Date.now()}@example.com`;
    apiKey = JSON.parse(server.cli(['account', 'create', '--name', 'Acciones SpA', '--email', email, '--json'])).apiKey;
    execFileSync(process.execPath, ['bin/dte.js', 'account', 'set-password', '--email', email], {
      cwd: ROOT,
      env: server.env,
      input: `${PASSWORD}\n`,
      encoding: 'utf8',
    });
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'es-CL', acceptDownloads: true });
    page = await context.newPage();
    page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${server.baseUrl}/login`);
    await page.getByLabel('Correo electrónico').fill(email);
    await page.getByLabel('Contraseña').fill(PASSWORD);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await expect(h1()).resolves.toBe('Resumen');
    const tenant = await api('POST', '/api/v1/tenants', {
      rutEmpresa: '76.192.083-9',
      razonSocial: 'Panadería La Espiga SpA',
      giro: 'Elaboración de pan',
      direccion: 'Av. Matta 1020',
      comuna: 'Santiago',
      ciudad: 'Santiago',
      numeroResolucion: 80,
      fechaResolucion: '2014-08-22',
      acteco: [620200],
      ambiente: 'certificacion',
    });
    expect(tenant.status).toBe(201);
    tenantUrl = `${server.baseUrl}/tenants/${tenant.json.id as string}`;
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('uploads the API key and the certificate from the company page', async () => {
    await page.goto(tenantUrl);
    await page.getByRole('link', { name: 'Subir credenciales' }).click();
    await expect(h1()).resolves.toBe('Credenciales de Panadería La Espiga SpA');
    await check('01-credenciales');
    await page.getByLabel('Clave API de SimpleAPI').fill('sk-invalid-key-000');
    await page.getByRole('button', { name: 'Verificar y guardar la clave' }).click();
    await expect(page.locator('#f-apiKey-error').textContent()).resolves.toContain('El proveedor rechazó la clave API');
    await expect(page.getByLabel('Clave API de SimpleAPI').inputValue()).resolves.toBe(''); // never echoed
    await check('02-credenciales-clave-rechazada');
    await page.getByLabel('Clave API de SimpleAPI').fill('sk-dashboard-valid-0001');
    await page.getByRole('button', { name: 'Verificar y guardar la clave' }).click();
    await expect(flash()).resolves.toContain('Clave API verificada y guardada.');
    expect(await page.content()).not.toContain('sk-dashboard-valid-0001');

    const fill = async (password: string) => {
      await page
        .getByLabel('Archivo del certificado (.pfx o .p12)')
        .setInputFiles({ name: 'firma.pfx', mimeType: 'application/x-pkcs12', buffer: pfx });
      await page.getByLabel('Contraseña del certificado').fill(password);
      await page.getByLabel('RUT del titular').fill('12.345.678-5');
      await page.getByLabel('Nombre del titular').fill('Carolina Muñoz Fuentes');
      await page.getByLabel('Fecha de vencimiento').fill(ymd(cert.notAfter));
    };
    await fill('no-es-la-clave');
    await page.getByRole('button', { name: 'Subir certificado' }).click();
    await expect(page.locator('#f-password-error').textContent()).resolves.toContain('La contraseña no abre el certificado.');
    await expect(page.getByLabel('Nombre del titular').inputValue()).resolves.toBe('Carolina Muñoz Fuentes');
    await check('03-credenciales-certificado-error');
    await fill(PFX_PASSWORD);
    await page.getByRole('button', { name: 'Subir certificado' }).click();
    await expect(flash()).resolves.toContain('Certificado guardado.');
    await expect(page.locator('#certificate').textContent()).resolves.toContain('Carolina Muñoz Fuentes');
    await check('04-credenciales-listas');
    await page.getByRole('link', { name: '← Panadería La Espiga SpA' }).click();
    await expect(page.locator('.row .badge').first().textContent()).resolves.toBe('Activa');
  }, 90_000);

  it('requests folios and shows the range and the stock', async () => {
    await page.goto(tenantUrl);
    await page.getByRole('link', { name: 'Solicitar folios' }).click();
    await check('05-folios-formulario');
    await page.getByLabel('Cantidad de folios').fill('0');
    await page.getByRole('button', { name: 'Solicitar al SII' }).click();
    await expect(page.locator('#f-cantidad-error').textContent()).resolves.toContain('entre 1 y 1000');
    await check('06-folios-error');
    await page.getByLabel('Tipo').selectOption('33');
    await page.getByLabel('Cantidad de folios').fill('20');
    await page.getByRole('button', { name: 'Solicitar al SII' }).click();
    await expect(flash()).resolves.toContain('Folios autorizados para 33 · Factura electrónica: del 1 al 20.');
    await expect(page.locator('#folios tbody').textContent()).resolves.toContain('33 · Factura electrónica');
    await check('07-folios-autorizados');
    await page.getByLabel('Tipo').selectOption('61');
    await page.getByLabel('Cantidad de folios').fill('10');
    await page.getByRole('button', { name: 'Solicitar al SII' }).click();
    await expect(flash()).resolves.toContain('Nota de crédito: del 1 al 10.');
  }, 90_000);

  it('sends a document to the SII and e-mails it again after a confirmation', async () => {
    const tenantId = tenantUrl.split('/').pop()!;
    for (const [i, razonSocial] of ['Cliente Ñandú Ltda.', 'Otro Cliente SpA'].entries()) {
      const created = await api(
        'POST',
        `/api/v1/tenants/${tenantId}/dte`,
        dteBody(33, {
          receptor: {
            rut: i === 0 ? '77.777.777-7' : '76.086.428-5',
            razonSocial,
            giro: 'Comercio',
            direccion: 'Calle 1',
            comuna: 'Ñuñoa',
            correo: 'compras@cliente.example',
          },
        }),
      );
      expect(created.status).toBe(201);
      if (i === 0) facturaUrl = `${tenantUrl}/documents/${created.json.id as string}`;
    }
    await page.goto(facturaUrl);
    await check('08-documento-creado');
    await page.getByRole('button', { name: 'Enviar al SII' }).click();
    await expect(flash()).resolves.toMatch(/Documento (enviado al SII \(Track ID \d+\)|en cola de envío)/);
    await check('09-documento-enviado');
    await until('the document to be accepted', async () => {
      await page.goto(facturaUrl);
      return (await page.locator('main .badge').first().textContent()) === 'Aceptado';
    });
    await page.getByRole('link', { name: 'Reenviar correo al receptor' }).click();
    await expect(h1()).resolves.toBe('Reenviar el documento al receptor');
    await expect(page.getByLabel('Enviar a').inputValue()).resolves.toBe('compras@cliente.example');
    await check('10-reenvio-confirmar');
    await page.getByRole('button', { name: 'Reenviar correo' }).click();
    await expect(page.locator('#f-confirmed-error').textContent()).resolves.toContain('Marca la casilla para confirmar.');
    await check('11-reenvio-sin-confirmar');
    await page.getByLabel('Entiendo y quiero continuar').check();
    await page.getByRole('button', { name: 'Reenviar correo' }).click();
    await expect(flash()).resolves.toContain('Reenvío en cola.');
    await until('the second delivery to show', async () => {
      await page.reload();
      return (await page.locator('#deliveries tbody tr').count()) >= 2;
    });
    await check('12-reenviado');
  }, 120_000);

  it('issues a credit note from the document, corrects amounts, and sends it', async () => {
    await page.goto(facturaUrl);
    await page.getByRole('link', { name: 'Emitir nota de crédito' }).click();
    await expect(h1()).resolves.toMatch(/^Nota de crédito para Factura electrónica N° \d+$/);
    await check('13-nota-credito-formulario');
    await page.getByLabel('Corrige montos (solo lo que se acredita)').check();
    await page.getByLabel('Razón (opcional)').fill('Descuento por volumen');
    await page.getByLabel('Cantidad, línea 1').fill('1');
    await page.getByLabel('Precio unitario, línea 1').fill('10000');
    await page.getByLabel('Cantidad, línea 2').fill('0');
    await page.getByLabel('Cantidad, línea 3').fill('0');
    await page.getByRole('button', { name: 'Emitir nota de crédito' }).click();
    await expect(page.locator('#f-confirmed-error').textContent()).resolves.toContain('Marca la casilla para confirmar.');
    await expect(page.getByLabel('Precio unitario, línea 1').inputValue()).resolves.toBe('10000');
    await check('14-nota-credito-sin-confirmar');
    await page.getByLabel('Confirmo que quiero emitir esta nota de crédito', { exact: false }).check();
    await page.getByRole('button', { name: 'Emitir nota de crédito' }).click();
    await expect(h1()).resolves.toBe('Nota de crédito N° 1');
    await expect(flash()).resolves.toContain('Nota de crédito N° 1 emitida.');
    const amounts = await page.locator('#amounts').textContent();
    expect(amounts).toContain('$10.000');
    expect(amounts).toContain('$11.900');
    await check('15-nota-credito-emitida');
    await page.getByRole('button', { name: 'Enviar al SII' }).click();
    await expect(flash()).resolves.toMatch(/Documento (enviado|en cola)/);
    await until('the credit note to be accepted', async () => {
      await page.reload();
      return (await page.locator('main .badge').first().textContent()) === 'Aceptado';
    });
    await check('16-nota-credito-aceptada');
  }, 120_000);

  it('searches the documents and exports the search as CSV', async () => {
    await page.goto(`${tenantUrl}/documents`);
    await expect(page.locator('#documents tbody tr').count()).resolves.toBe(3);
    await check('17-documentos');
    await page.getByLabel('RUT del receptor').fill('77.777.777-7');
    await page.getByLabel('Tipo de documento').selectOption('33');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await expect(page.locator('#documents tbody tr').count()).resolves.toBe(1);
    expect(page.url()).toContain('receptorRut=77.777.777-7');
    await check('18-documentos-filtrados');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Exportar CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^documentos-76192083-9-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = fs.readFileSync((await download.path())!);
    expect(csv.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const lines = csv.toString('utf8').slice(1).trim().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(';Cliente Ñandú Ltda.;');
    // A date input cannot hold 30 February; a link or a typed URL can.
    const bad = new URL(page.url());
    bad.searchParams.set('desde', '2026-02-30');
    await page.goto(bad.toString());
    await expect(page.locator('#f-desde-error').textContent()).resolves.toContain('La fecha no es válida');
    await check('19-documentos-filtro-error');
    await page.getByRole('link', { name: 'Limpiar filtros' }).click();
    await expect(page.locator('#documents tbody tr').count()).resolves.toBe(3);
  }, 60_000);

  it('fits a phone screen, and ran without script errors', async () => {
    const phone = await browser.newContext({
      viewport: { width: 360, height: 740 },
      isMobile: true,
      storageState: await context.storageState(),
    });
    const p = await phone.newPage();
    for (const [name, url] of [
      ['20-movil-documentos', `${tenantUrl}/documents`],
      ['21-movil-nota-credito', `${facturaUrl}/credit-note`],
      ['22-movil-credenciales', `${tenantUrl}/credentials`],
    ] as const) {
      await p.goto(url);
      const overflow = await p.evaluate('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow, name).toBeLessThanOrEqual(0);
      await check(name, p);
    }
    await phone.close();
    expect(problems).toEqual([]);
    // No secret typed into the pages reached the server's log.
    for (const secret of ['sk-dashboard-valid-0001', 'sk-invalid-key-000', PFX_PASSWORD]) expect(server.log()).not.toContain(secret);
  }, 60_000);
});
