import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  artifactsDir,
  axeViolations,
  launchBrowser,
  ROOT,
  screenshot,
  type ServerProcess,
  startServerProcess,
} from '../../support/browser.ts';
import { certificateForm, makeCert, modernPfx, ymd } from '../../support/pfx.ts';

/**
 * The certification page (issue 28; docs/dashboard.md "Certification") in Chromium against the
 * real server process and its emulator: a direct company (provider "sii") in certification with
 * its certificate and folios; the account holder opens the page from the company, uploads set 01,
 * makes its documents, sends them, waits for the SII's verdicts, sends the three books and reads
 * their reviews (LOK). Every step is screenshotted (test-artifacts/certification/) and checked with axe-core.
 */
const PASSWORD = 'una frase de paso bien larga';
const PFX_PASSWORD = 'Firma-Segura-2026';
const SET_01 = fs.readFileSync(path.join(ROOT, 'test/fixtures/certification/SIISetDePruebas-01.txt'));

describe('the certification page in Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  let apiKey = '';
  let tenantId = '';
  const shots = artifactsDir('certification');
  const problems: string[] = [];

  const check = async (name: string) => {
    await screenshot(page, path.join(shots, `${name}.png`));
    const violations = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(violations, `${name}: ${JSON.stringify(violations)}`).toEqual([]);
  };
  const h1 = () => page.locator('h1').textContent();
  const flash = () => page.locator('main > .success, main > .notice').first().textContent();
  const stageBadge = (key: string) => page.locator(`#stage-${key} .card-head .badge`).textContent();
  const api = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const raw = Buffer.isBuffer(body);
    const r = await fetch(`${server.baseUrl}${url}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body && !raw ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body ? { body: raw ? body : JSON.stringify(body) } : {}),
    });
    return { status: r.status, json: (await r.json()) as Record<string, unknown> };
  };
  /** Reloads the page until `fn` holds (the SII's answers arrive through background jobs). */
  const untilReloaded = async (what: string, fn: () => Promise<boolean>, timeoutMs = 90_000) => {
    const end = Date.now() + timeoutMs;
    while (!(await fn())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 500));
      await page.reload();
    }
  };

  beforeAll(async () => {
    server = await startServerProcess({ EMULATOR_DELAY: '0', FOLIO_REQUEST_WAIT: '20s', DTE_SEND_WAIT: '20s', DTE_POLL_INITIAL: '200ms' });
    const email = `certificacion-${Date.now()}@example.com`;
    apiKey = JSON.parse(server.cli(['account', 'create', '--name', 'Certificación SpA', '--email', email, '--json'])).apiKey;
    execFileSync(process.execPath, ['bin/dte.js', 'account', 'set-password', '--email', email], {
      cwd: ROOT,
      env: server.env,
      input: `${PASSWORD}\n`,
      encoding: 'utf8',
    });
    const tenant = await api('POST', '/api/v1/tenants', {
      rutEmpresa: '76.192.083-9',
      razonSocial: 'Panadería La Espiga SpA',
      giro: 'Elaboración de pan',
      direccion: 'Av. Matta 1020',
      comuna: 'Santiago',
      ciudad: 'Santiago',
      numeroResolucion: 0,
      fechaResolucion: '2014-08-22',
      acteco: [620200],
      ambiente: 'certificacion',
      provider: 'sii',
    });
    expect(tenant.status, JSON.stringify(tenant.json)).toBe(201);
    tenantId = tenant.json.id as string;
    const cert = makeCert({ rut: '12345678-5', commonName: 'Carolina Muñoz Fuentes' });
    const form = certificateForm(
      {
        password: PFX_PASSWORD,
        rutCertificado: '12.345.678-5',
        nombreTitular: 'Carolina Muñoz Fuentes',
        fechaVencimiento: ymd(cert.notAfter),
        esPrincipal: 'true',
      },
      { data: modernPfx(cert, PFX_PASSWORD) },
    );
    const up = await api('POST', `/api/v1/tenants/${tenantId}/credentials/certificate`, form.payload, form.headers);
    expect(up.status, JSON.stringify(up.json)).toBe(201);
    for (const [tipoDte, cantidad] of [
      [33, 5],
      [34, 5],
      [52, 5],
      [56, 5],
      [61, 10],
    ]) {
      const f = await api('POST', `/api/v1/tenants/${tenantId}/folios/request`, { tipoDte, cantidad });
      expect(f.status, JSON.stringify(f.json)).toBe(201);
    }
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'es-CL' });
    page = await context.newPage();
    page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${server.baseUrl}/login`);
    await page.getByLabel('Correo electrónico').fill(email);
    await page.getByLabel('Contraseña').fill(PASSWORD);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await expect(h1()).resolves.toBe('Resumen');
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('opens from the company: every stage in order, the set the next step, the manual and not-yet stages said so', async () => {
    await page.goto(`${server.baseUrl}/tenants/${tenantId}`);
    await page.getByRole('link', { name: 'Certificación SII' }).click();
    await expect(h1()).resolves.toBe('Certificación de Panadería La Espiga SpA');
    const titles = await page.locator('ol.stages h2').allTextContents();
    expect(titles.map((x) => x.replace(/^Etapa \d+ de \d+: /, ''))).toEqual([
      '1. Postulación',
      '2. Set de pruebas',
      '3. Documentos del set',
      '4. Envío al SII',
      '5. Respuesta del SII a los documentos',
      '6. Libros',
      '7. Declarar avance',
      '8. Simulación',
      '9. Intercambio',
      '10. Muestras impresas',
      '11. Declaración de cumplimiento',
    ]);
    await expect(stageBadge('set')).resolves.toBe('Siguiente paso');
    await expect(stageBadge('postulacion')).resolves.toBe('En el sitio del SII');
    await expect(stageBadge('simulacion')).resolves.toBe('Por la API');
    await check('01-inicio');
    // No file: the form says so in place.
    await page.getByRole('button', { name: 'Subir el set' }).click();
    await expect(page.locator('#f-file-error').textContent()).resolves.toContain('Archivo del set de pruebas');
    // A file that is not a set: the parser's refusal, in Spanish.
    await page
      .getByLabel('Archivo del set de pruebas (.txt)')
      .setInputFiles({ name: 'otro.txt', mimeType: 'text/plain', buffer: Buffer.from('hola\n') });
    await page.getByRole('button', { name: 'Subir el set' }).click();
    await expect(page.locator('#stage-set').textContent()).resolves.toContain('no se puede leer como set de pruebas');
    await check('02-set-ilegible');
  }, 60_000);

  it('uploads set 01, makes its documents, sends them and shows the SII verdict of each case', async () => {
    await page
      .getByLabel('Archivo del set de pruebas (.txt)')
      .setInputFiles({ name: 'SIISetDePruebas-01.txt', mimeType: 'text/plain', buffer: SET_01 });
    await page.getByRole('button', { name: 'Subir el set' }).click();
    await expect(flash()).resolves.toMatch(/^Set leído: \d+ casos en \d+ secciones\.$/);
    await expect(stageBadge('set')).resolves.toBe('Hecho');
    await expect(stageBadge('documents')).resolves.toBe('Siguiente paso');
    await check('03-set-subido');

    await page.getByRole('button', { name: 'Crear los documentos' }).click();
    await expect(flash()).resolves.toMatch(/^Documentos creados: \d+\.$/);
    await expect(stageBadge('documents')).resolves.toBe('Hecho');
    await check('04-documentos');

    await page.getByRole('button', { name: 'Enviar al SII' }).click();
    await expect(flash()).resolves.toMatch(/^Sobres enviados: \d+\.$/);
    await untilReloaded('the verdicts', async () => (await stageBadge('verdicts')) === 'Hecho');
    const summary = await page.locator('#stage-verdicts > p').nth(1).textContent();
    expect(summary).toMatch(/^(\d+) de \1 aceptados\.$/);
    await expect(stageBadge('books')).resolves.toBe('Siguiente paso');
    await check('05-veredictos');
  }, 180_000);

  it('sends the three books and reads their reviews', async () => {
    for (const [kind, label] of [
      ['ventas', 'Enviar libro de ventas'],
      ['compras', 'Enviar libro de compras'],
      ['guias', 'Enviar libro de guías'],
    ] as const) {
      if (kind === 'guias') await page.getByLabel('Folio de la factura que facturó la guía (opcional)').fill('1');
      await page.getByRole('button', { name: label }).click();
      await expect(flash()).resolves.toMatch(/enviado al SII \(track ID \d+\)/);
      expect(kind).toBeTruthy();
    }
    await untilReloaded('the books reviewed', async () => (await stageBadge('books')) === 'Hecho');
    const rows = await page.locator('#stage-books tbody tr').allTextContents();
    expect(rows).toHaveLength(3);
    for (const r of rows) expect(r).toContain('LOK');
    await check('06-libros');
    await page.goto(`${server.baseUrl}/tenants/${tenantId}/certification?lang=en`);
    await expect(h1()).resolves.toBe('Certification of Panadería La Espiga SpA');
    await check('07-english');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.baseUrl}/tenants/${tenantId}/certification?lang=es`);
    await check('08-telefono');
    expect(problems).toEqual([]);
  }, 180_000);
});
