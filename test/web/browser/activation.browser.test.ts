import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { artifactsDir, axeViolations, launchBrowser, screenshot, type ServerProcess, startServerProcess } from '../../support/browser.ts';
import { makeCert, modernPfx } from '../../support/pfx.ts';
import { uniqueRut } from '../../support/app.ts';

/**
 * The hosted activation page in a real browser against the real server: a phone-sized window with
 * JavaScript turned off completes both steps with a real .pfx; the API then shows both credentials.
 * A second pass with JavaScript on runs axe-core on every step and checks the layout fits a phone.
 */
const PASSWORD = 'Firma-Segura-2026';

describe('hosted activation page in Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;
  let apiKey: string;
  const shots = artifactsDir('activation');
  const cert = makeCert({ rut: '12345678-5', commonName: 'Carolina Muñoz Fuentes' });
  const pfx = modernPfx(cert, PASSWORD);

  const api = async (method: string, url: string, body?: unknown) => {
    const r = await fetch(`${server.baseUrl}${url}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: r.status, json: (await r.json()) as Record<string, unknown> };
  };
  const newLink = async () => {
    const tenant = await api('POST', '/api/v1/tenants', {
      rutEmpresa: uniqueRut(), // each test makes its own tenant: one per RUT and environment in an account
      razonSocial: 'Panadería La Espiga SpA',
      giro: 'Elaboración de pan',
      direccion: 'Av. Matta 1020',
      comuna: 'Santiago',
      ciudad: 'Santiago',
      numeroResolucion: 80,
      fechaResolucion: '2014-08-22',
    });
    expect(tenant.status).toBe(201);
    const link = await api('POST', `/api/v1/tenants/${tenant.json.id as string}/activation-link`);
    expect(link.status).toBe(201);
    return { tenantId: tenant.json.id as string, url: link.json.url as string };
  };

  beforeAll(async () => {
    server = await startServerProcess();
    apiKey = JSON.parse(server.cli(['account', 'create', '--name', 'Browser SaaS', '--email', 'browser@example.com', '--json'])).apiKey;
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('completes both steps without JavaScript on a phone, and the API shows both credentials', async () => {
    const { tenantId, url } = await newLink();
    const context = await browser.newContext({
      javaScriptEnabled: false,
      viewport: { width: 390, height: 844 },
      isMobile: true,
      locale: 'es-CL',
    });
    const page = await context.newPage();
    const problems: string[] = [];
    // Chromium logs every 4xx page as "Failed to load resource"; those statuses are deliberate here.
    page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));

    await page.goto(url);
    await expect(page.locator('h1').textContent()).resolves.toContain('Paso 1 de 3');
    expect(await page.getAttribute('html', 'lang')).toBe('es');
    await screenshot(page, path.join(shots, '01-clave-api.png'));

    // A key the provider refuses: the error sits by the field, which gets focus.
    await page.getByLabel('Clave API de SimpleAPI').fill('sk-invalid-browser');
    await page.getByRole('button', { name: 'Verificar y continuar' }).click();
    await expect(page.locator('#f-apiKey-error').textContent()).resolves.toContain('rechazó');
    expect(await page.getAttribute('#f-apiKey', 'aria-invalid')).toBe('true');
    await screenshot(page, path.join(shots, '01b-clave-api-error.png'));

    await page.getByLabel('Clave API de SimpleAPI').fill('sk-browser-valid-0001');
    await page.getByRole('button', { name: 'Verificar y continuar' }).click();
    await expect(page.locator('h1').textContent()).resolves.toContain('Paso 2 de 3');
    await screenshot(page, path.join(shots, '02-certificado.png'));

    await page
      .getByLabel('Archivo del certificado (.pfx o .p12)')
      .setInputFiles({ name: 'firma.pfx', mimeType: 'application/x-pkcs12', buffer: pfx });
    await page.getByLabel('Contraseña del certificado').fill(PASSWORD);
    await page.getByRole('button', { name: 'Leer el certificado' }).click();
    await expect(page.locator('h1').textContent()).resolves.toContain('Paso 3 de 3: revise y confirme');
    const summary = await page.locator('dl.summary').textContent();
    expect(summary).toContain('Carolina Muñoz Fuentes');
    expect(summary).toContain('12.345.678-5');
    await screenshot(page, path.join(shots, '03-confirmacion.png'));

    await page.getByRole('button', { name: 'Confirmar y activar' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Activación completada');
    await screenshot(page, path.join(shots, '04-listo.png'));

    const status = await api('GET', `/api/v1/tenants/${tenantId}/credentials/status`);
    expect(status.status).toBe(200);
    expect(status.json).toMatchObject({
      apiKey: { configured: true },
      certificates: [{ rutCertificado: '12.345.678-5', nombreTitular: 'Carolina Muñoz Fuentes', esPrincipal: true }],
      ready: true,
    });

    // The used link now shows the one "no longer valid" page.
    const again = await page.goto(url);
    expect(again?.status()).toBe(410);
    await expect(page.locator('h1').textContent()).resolves.toBe('Este enlace ya no es válido');
    await screenshot(page, path.join(shots, '05-enlace-usado.png'));
    expect(problems).toEqual([]);
    await context.close();
  });

  it('passes axe-core on every step and fits a phone screen, with no CSP violation', async () => {
    const { url } = await newLink();
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    const check = async (step: string) => {
      const violations = await axeViolations(page);
      expect(violations, step).toEqual([]);
      const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow, step).toBeLessThanOrEqual(0);
    };
    await page.goto(url);
    await check('step 1');
    await page.getByLabel('Clave API de SimpleAPI').fill('x');
    await page.getByRole('button', { name: 'Verificar y continuar' }).click();
    await check('step 1 with an error');
    await page.getByLabel('Clave API de SimpleAPI').fill('sk-browser-valid-0002');
    await page.getByRole('button', { name: 'Verificar y continuar' }).click();
    await check('step 2');
    await page
      .getByLabel('Archivo del certificado (.pfx o .p12)')
      .setInputFiles({ name: 'f.pfx', mimeType: 'application/x-pkcs12', buffer: pfx });
    await page.getByLabel('Contraseña del certificado').fill('wrong');
    await page.getByRole('button', { name: 'Leer el certificado' }).click();
    await check('step 2 with an error');
    await page
      .getByLabel('Archivo del certificado (.pfx o .p12)')
      .setInputFiles({ name: 'f.pfx', mimeType: 'application/x-pkcs12', buffer: pfx });
    await page.getByLabel('Contraseña del certificado').fill(PASSWORD);
    await page.getByRole('button', { name: 'Leer el certificado' }).click();
    await check('confirmation');
    await page.goto(`${server.baseUrl}/activate/act_unknown`);
    await check('invalid link');
    expect(problems.filter((p) => /Content Security Policy/i.test(p))).toEqual([]);
    await context.close();
  });
});
