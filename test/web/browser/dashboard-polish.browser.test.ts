import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { artifactsDir, axeViolations, launchBrowser, screenshot, type ServerProcess, startServerProcess } from '../../support/browser.ts';

/**
 * The dashboard's traps (issue 18) in Chromium against the real server: reloading after "Crear clave" or "Generar enlace" creates nothing,
 * revoking asks first, a form shows all its errors in Spanish, the activation page names who
 * asks, RUTs stay on one line on a 375 px phone, timestamps carry seconds, and there is a favicon.
 * The confirmation step also runs with JavaScript off (it must not need it); axe runs on the rest.
 * Screenshots: test-artifacts/dashboard-polish/.
 */
const PASSWORD = 'una frase de paso bien larga';
const LONG_NAME = 'Sociedad Comercializadora de Productos Panaderos del Sur Limitada';

describe('dashboard polish in Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const shots = artifactsDir('dashboard-polish');
  let tenantUrl = '';
  let link = '';

  const check = async (name: string, p: Page = page) => {
    await screenshot(p, path.join(shots, `${name}.png`));
    const violations = (await axeViolations(p)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(violations, `${name}: ${JSON.stringify(violations)}`).toEqual([]);
  };
  const h1 = (p: Page = page) => p.locator('h1').textContent();
  /** Every `.rut` on the page sits on one line: one box, no taller than a line of its text. */
  const rutsOnOneLine = (p: Page) =>
    p.evaluate(`[...document.querySelectorAll('.rut')].map((el) => ({
      text: el.textContent,
      boxes: el.getClientRects().length,
      height: el.getBoundingClientRect().height,
      lineHeight: parseFloat(getComputedStyle(el).fontSize) * 1.8,
    }))`) as Promise<{ text: string; boxes: number; height: number; lineHeight: number }[]>;

  beforeAll(async () => {
    server = await startServerProcess();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1100, height: 900 }, locale: 'es-CL' });
    page = await context.newPage();
    await page.goto(`${server.baseUrl}/signup`);
    await page.getByLabel('Nombre de tu empresa o SaaS').fill('Facturín SaaS');
    await page.getByLabel('Correo electrónico').fill(`polish-${Date.now()}@example.com`);
    await page.getByLabel('Contraseña').fill(PASSWORD);
    await page.getByRole('button', { name: 'Crear cuenta' }).click();
    await expect(h1()).resolves.toBe('Resumen');
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('shows every error of a form at once, in Spanish, beside its field, and keeps what was typed', async () => {
    await page.goto(`${server.baseUrl}/tenants/new`);
    await page.getByLabel('RUT de la empresa').fill('76.192.083-1');
    await page.getByLabel('Razón social').fill(LONG_NAME);
    await page.getByLabel('Número de resolución SII').fill('abc');
    await page.getByLabel('Correo de contacto (opcional)').fill('no-es-correo');
    await page.getByRole('button', { name: 'Crear empresa' }).click();
    const summary = page.locator('.error-summary li');
    // RUT, número and correo wrong; giro, dirección, comuna, ciudad and fecha empty: eight at once.
    await expect(summary.count()).resolves.toBe(8);
    const all = (await summary.allTextContents()).join(' | ');
    for (const m of ['El RUT no es válido', 'Completa este campo.', 'Escribe un número entero', 'Ese correo']) expect(all).toContain(m);
    expect(all).not.toMatch(/must|required|is not/);
    for (const f of ['rutEmpresa', 'giro', 'direccion', 'comuna', 'ciudad', 'numeroResolucion', 'fechaResolucion', 'email']) {
      const input = page.locator(`#f-${f}`);
      await expect(input.getAttribute('aria-invalid')).resolves.toBe('true');
      const describedBy = (await input.getAttribute('aria-describedby'))!.split(' ');
      expect(describedBy).toContain(`f-${f}-error`);
      await expect(page.locator(`#f-${f}-error`).isVisible()).resolves.toBe(true);
    }
    await expect(page.getByLabel('Razón social').inputValue()).resolves.toBe(LONG_NAME);
    await expect(page.getByLabel('Número de resolución SII').inputValue()).resolves.toBe('abc');
    await check('01-empresa-errores');

    await page.getByLabel('RUT de la empresa').fill('76.192.083-9');
    await page.getByLabel('Giro').fill('Elaboración de pan');
    await page.getByLabel('Dirección').fill('Av. Matta 1020');
    await page.getByLabel('Comuna').fill('Santiago');
    await page.getByLabel('Ciudad').fill('Santiago');
    await page.getByLabel('Número de resolución SII').fill('80');
    await page.getByLabel('Fecha de resolución').fill('2014-08-22');
    await page.getByLabel('Correo de contacto (opcional)').fill('');
    await page.getByRole('button', { name: 'Crear empresa' }).click();
    await expect(h1()).resolves.toBe(LONG_NAME);
    tenantUrl = page.url().split('?')[0]!;
  }, 60_000);

  it('creates an API key once: reloading the page that shows it creates no other', async () => {
    await page.goto(`${server.baseUrl}/settings/api-keys`);
    await page.getByLabel('Nombre (opcional)').fill('ERP');
    await page.getByRole('button', { name: 'Crear clave' }).click();
    const key = await page.locator('#new-api-key').inputValue();
    expect(key).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/);
    await check('02-clave-creada');
    for (let i = 0; i < 2; i++) {
      const r = await page.reload();
      expect(r?.status()).toBe(200);
      expect(r?.request().method()).toBe('GET');
      expect(await page.content()).not.toContain(key);
      await expect(page.locator('#keys tbody tr').count()).resolves.toBe(1);
    }
    await expect(page.locator('.success').textContent()).resolves.toContain('La clave ya se mostró');
    await check('03-clave-recargada');
    const me = await fetch(`${server.baseUrl}/api/v1/account`, { headers: { authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);

    // Revoking asks first, and works without JavaScript; the confirmation page itself revokes nothing.
    const noJs = await browser.newContext({ javaScriptEnabled: false, storageState: await context.storageState() });
    const p = await noJs.newPage();
    await p.goto(`${server.baseUrl}/settings/api-keys`);
    await p.getByRole('link', { name: /^Revocar sk_live_/ }).click();
    await expect(h1(p)).resolves.toBe('Revocar clave API');
    await expect(p.locator('main').textContent()).resolves.toContain('dejarán de funcionar de inmediato');
    await screenshot(p, path.join(shots, '04-confirmar-revocacion-sin-js.png'));
    expect((await fetch(`${server.baseUrl}/api/v1/account`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    await p.getByRole('link', { name: 'Cancelar' }).click();
    await expect(p.locator('#keys tbody tr').count()).resolves.toBe(1);
    await p.getByRole('link', { name: /^Revocar sk_live_/ }).click();
    await p.getByRole('button', { name: 'Revocar' }).click();
    await expect(p.locator('.success').textContent()).resolves.toBe('Clave revocada.');
    await noJs.close();
    expect((await fetch(`${server.baseUrl}/api/v1/account`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
    // The same confirmation page with JavaScript, checked by axe.
    await page.goto(`${server.baseUrl}/settings/api-keys`);
    await page.getByLabel('Nombre (opcional)').fill('otra');
    await page.getByRole('button', { name: 'Crear clave' }).click();
    await page.getByRole('link', { name: /^Revocar sk_live_/ }).click();
    await check('04-confirmar-revocacion');
  }, 60_000);

  it('generates an activation link once: a reload keeps the link copied working; replacing it asks first', async () => {
    await page.goto(tenantUrl);
    await page.getByRole('button', { name: 'Generar enlace de activación' }).click();
    link = await page.locator('#activation-url').inputValue();
    expect(link).toMatch(/\/activate\/act_[A-Za-z0-9_-]{43}$/);
    await check('05-enlace-generado');
    await page.reload();
    expect(await page.content()).not.toContain(link);
    await expect(page.locator('main .success').first().textContent()).resolves.toContain('El enlace ya se mostró');
    const open = await fetch(link);
    expect(open.status).toBe(200); // still the pending link, not replaced by the reload
    // A pending link is replaced only through the confirmation page.
    await page.getByRole('link', { name: 'Generar un enlace nuevo' }).click();
    await expect(h1()).resolves.toBe('Generar un enlace de activación nuevo');
    await check('06-confirmar-enlace-nuevo');
    await page.getByRole('link', { name: 'Cancelar' }).click();
    expect((await fetch(link)).status).toBe(200);
  }, 60_000);

  it('names the account asking for the credentials on the activation page, with the company and its RUT on one line at 375 px', async () => {
    const phone = await browser.newContext({ viewport: { width: 375, height: 812 }, isMobile: true });
    const p = await phone.newPage();
    await p.goto(link);
    const requester = await p.locator('.requester').textContent();
    expect(requester).toContain('Solicitado por Facturín SaaS');
    expect(requester).toContain(LONG_NAME);
    expect(requester).toContain('76.192.083-9');
    const ruts = await rutsOnOneLine(p);
    expect(ruts.length).toBeGreaterThan(0);
    for (const r of ruts) expect(r.boxes, `${r.text}`).toBe(1);
    expect(await p.evaluate('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
    await check('07-activacion-solicitante-375', p);
    await phone.close();
  }, 60_000);

  it('keeps RUTs on one line on a 375 px phone, and writes timestamps with seconds', async () => {
    const phone = await browser.newContext({
      viewport: { width: 375, height: 812 },
      isMobile: true,
      storageState: await context.storageState(),
    });
    const p = await phone.newPage();
    for (const [name, url] of [
      ['08-movil-empresa', tenantUrl.replace(server.baseUrl, '')],
      ['09-movil-empresas', '/tenants'],
      ['10-movil-resumen', '/'],
    ] as const) {
      await p.goto(`${server.baseUrl}${url}`);
      expect(await p.evaluate('document.documentElement.scrollWidth - window.innerWidth'), name).toBeLessThanOrEqual(0);
      const ruts = await rutsOnOneLine(p);
      expect(ruts.length, name).toBeGreaterThan(0);
      for (const r of ruts) {
        expect(r.boxes, `${name} ${r.text}`).toBe(1);
        expect(r.height, `${name} ${r.text}`).toBeLessThanOrEqual(r.lineHeight);
      }
      await check(name, p);
    }
    await p.goto(`${server.baseUrl}/tenants`);
    await expect(p.locator('#tenants tbody tr td').last().textContent()).resolves.toMatch(/\d{2}:\d{2}:\d{2}/);
    await phone.close();
  }, 60_000);

  it('has a favicon: linked from the dashboard, the activation page and /docs, and at /favicon.ico without a session', async () => {
    for (const url of ['/', link.replace(server.baseUrl, '')]) {
      await page.goto(`${server.baseUrl}${url}`);
      await expect(page.locator('link[rel="icon"]').getAttribute('href')).resolves.toBe('/assets/favicon.svg');
    }
    const anonymous = await browser.newContext();
    const p = await anonymous.newPage();
    await p.goto(`${server.baseUrl}/docs/`);
    await expect(p.locator('link[rel="icon"]').first().getAttribute('href')).resolves.toBe('/assets/favicon.svg');
    for (const [url, type] of [
      ['/favicon.ico', 'image/x-icon'],
      ['/assets/favicon.svg', 'image/svg+xml'],
    ] as const) {
      const r = await p.request.get(`${server.baseUrl}${url}`, { maxRedirects: 0 });
      expect([r.status(), r.headers()['content-type']]).toEqual([200, type]);
    }
    // The icon as the browser draws it.
    await p.goto(`${server.baseUrl}/assets/favicon.svg`);
    await p.setViewportSize({ width: 64, height: 64 });
    await screenshot(p, path.join(shots, '11-favicon.png'), { fullPage: false });
    await anonymous.close();
  }, 60_000);
});
