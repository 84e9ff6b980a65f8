import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { artifactsDir, axeViolations, launchBrowser, screenshot, type ServerProcess, startServerProcess } from '../../support/browser.ts';

/**
 * Test mode in Chromium against the real server (issue 29; docs/dashboard.md "Test mode"): the
 * holder switches to test data with the header's switch, sees the strip on every page, creates a
 * `sk_test_` key (which the API takes) and a test company that live mode does not list, and comes
 * back to live data with the strip's button; in English and at 320 px too. Every page passes axe.
 * Screenshots: test-artifacts/testmode/.
 */
const PASSWORD = 'una frase de paso bien larga';
const STRIP = 'Modo de prueba: estás viendo datos de prueba; nada llega al SII.';

describe('test mode in Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  const shots = artifactsDir('testmode');

  const check = async (name: string, p: Page = page) => {
    await screenshot(p, path.join(shots, `${name}.png`));
    const violations = (await axeViolations(p)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(violations, `${name}: ${JSON.stringify(violations)}`).toEqual([]);
  };
  const strip = () => page.locator('#test-mode-strip');
  const modeSwitch = () => page.getByRole('switch', { name: 'Datos de prueba' });

  beforeAll(async () => {
    server = await startServerProcess();
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 }, locale: 'es-CL' });
    page = await context.newPage();
    await page.goto(`${server.baseUrl}/signup`);
    await page.getByLabel('Nombre de tu empresa o SaaS').fill('Pruebas Facturín');
    await page.getByLabel('Correo electrónico').fill(`testmode-${Date.now()}@example.com`);
    await page.getByLabel('Contraseña').fill(PASSWORD);
    await page.getByRole('button', { name: 'Crear cuenta' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Resumen');
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('switches to test data, shows the strip, creates a test key and a test company, and switches back', async () => {
    // Live first: no strip, the switch is off.
    await expect(strip().count()).resolves.toBe(0);
    await expect(modeSwitch().getAttribute('aria-checked')).resolves.toBe('false');
    await check('01-live-overview');

    // The switch, from the API keys page: the same page, now on test data.
    await page.goto(`${server.baseUrl}/settings/api-keys`);
    await modeSwitch().click();
    await page.waitForURL(`${server.baseUrl}/settings/api-keys`);
    await expect(strip().textContent()).resolves.toContain(STRIP);
    await expect(modeSwitch().getAttribute('aria-checked')).resolves.toBe('true');
    await expect(page.locator('#keys-mode').textContent()).resolves.toContain('claves de prueba');
    await check('02-test-api-keys');

    await page.getByLabel('Nombre (opcional)').fill('integración de prueba');
    await page.getByRole('button', { name: 'Crear clave' }).click();
    const key = await page.locator('#new-api-key').inputValue();
    expect(key).toMatch(/^sk_test_[A-Za-z0-9_-]{43}$/);
    await expect(strip().isVisible()).resolves.toBe(true);
    await check('03-test-key-created');
    // The API takes it.
    const listed = await fetch(`${server.baseUrl}/api/v1/tenants`, { headers: { authorization: `Bearer ${key}` } });
    expect(listed.status).toBe(200);

    // A company made in test mode.
    await page.goto(`${server.baseUrl}/tenants/new`);
    await expect(strip().isVisible()).resolves.toBe(true);
    await page.getByLabel('RUT de la empresa').fill('76.192.083-9');
    await page.getByLabel('Razón social').fill('Empresa De Prueba SpA');
    await page.getByLabel('Giro').fill('Desarrollo de software');
    await page.getByLabel('Dirección').fill('Av. Providencia 1234');
    await page.getByLabel('Comuna').fill('Providencia');
    await page.getByLabel('Ciudad').fill('Santiago');
    await page.getByLabel('Número de resolución SII').fill('80');
    await page.getByLabel('Fecha de resolución').fill('2014-08-22');
    await page.getByLabel('Códigos de actividad económica (opcional)').fill('620200');
    await page.getByRole('button', { name: 'Crear empresa' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Empresa De Prueba SpA');
    await check('04-test-company');
    await page.goto(`${server.baseUrl}/tenants`);
    await expect(page.locator('main').textContent()).resolves.toContain('Empresa De Prueba SpA');
    await check('05-test-companies');

    // The members page: the same team, and the roles table says what test mode adds.
    await page.goto(`${server.baseUrl}/settings/members`);
    await expect(page.locator('#roles').textContent()).resolves.toContain('solo en modo de prueba');
    await check('05b-test-members');

    // English.
    await page.goto(`${server.baseUrl}/?lang=en`);
    await expect(strip().textContent()).resolves.toContain('Test mode — you are viewing test data; nothing reaches the SII.');
    await check('06-test-overview-english');
    await page.goto(`${server.baseUrl}/?lang=es`);

    // A narrow screen: the strip and the switch still fit.
    await page.setViewportSize({ width: 320, height: 700 });
    await page.goto(`${server.baseUrl}/tenants`);
    await check('07-test-companies-320px');
    expect(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1100, height: 800 });

    // Back to live with the strip's button: the test company and key are not there.
    await page.getByRole('button', { name: 'Volver a los datos reales' }).click();
    await page.waitForURL(`${server.baseUrl}/tenants`);
    await expect(strip().count()).resolves.toBe(0);
    await expect(page.locator('main').textContent()).resolves.not.toContain('Empresa De Prueba SpA');
    await check('08-live-companies');
    await page.goto(`${server.baseUrl}/settings/api-keys`);
    await expect(page.locator('main').textContent()).resolves.not.toContain('integración de prueba');
    await expect(page.locator('main').textContent()).resolves.toContain('claves reales');
    await check('09-live-api-keys');
  }, 240_000);
});
