import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { artifactsDir, axeViolations, launchBrowser, screenshot, type ServerProcess, startServerProcess } from '../../support/browser.ts';

/**
 * Teams in Chromium against the real server (issue 29; docs/dashboard.md "Members and roles"):
 * the owner invites an operator and a developer (no SMTP_URL: the link is shown once), each
 * accepts in a browser of their own, sees the pages of their role and gets the 403 page for the
 * others; the members page, the roles table and the acceptance page pass axe.
 * Screenshots: test-artifacts/teams/.
 */
const PASSWORD = 'una frase de paso bien larga';

describe('teams in Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;
  let owner: Page;
  const shots = artifactsDir('teams');

  const check = async (p: Page, name: string) => {
    await screenshot(p, path.join(shots, `${name}.png`));
    const violations = (await axeViolations(p)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(violations, `${name}: ${JSON.stringify(violations)}`).toEqual([]);
  };

  /** The owner invites `email` with `role` and returns the link the page shows once. */
  const invite = async (email: string, roleLabel: string) => {
    await owner.goto(`${server.baseUrl}/settings/members`);
    await owner.getByLabel('Correo de la persona').fill(email);
    await owner.getByLabel('Rol', { exact: true }).selectOption({ label: roleLabel });
    await owner.getByRole('button', { name: 'Invitar' }).click();
    const link = await owner.locator('#invitation-link-value').inputValue();
    expect(link).toContain('/invitations/accept?token=');
    return link;
  };

  /** A new browser accepts the link, choosing a name and a password. */
  const accept = async (link: string, name: string, shot: string) => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, locale: 'es-CL' });
    const p = await context.newPage();
    await p.goto(link);
    await check(p, shot);
    await p.getByLabel('Tu nombre').fill(name);
    await p.getByLabel('Contraseña').fill(PASSWORD);
    await p.getByRole('button', { name: 'Aceptar y entrar' }).click();
    await expect(p.locator('h1').textContent()).resolves.toBe('Resumen');
    return p;
  };

  beforeAll(async () => {
    server = await startServerProcess();
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, locale: 'es-CL' });
    owner = await context.newPage();
    await owner.goto(`${server.baseUrl}/signup`);
    await owner.getByLabel('Nombre de tu empresa o SaaS').fill('Equipo Facturín');
    await owner.getByLabel('Correo electrónico').fill(`teams-${Date.now()}@example.com`);
    await owner.getByLabel('Contraseña').fill(PASSWORD);
    await owner.getByRole('button', { name: 'Crear cuenta' }).click();
    await expect(owner.locator('h1').textContent()).resolves.toBe('Resumen');
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('invites, accepts, and gives each role its pages and the 403 page for the others', async () => {
    const operatorLink = await invite(`operadora-${Date.now()}@example.com`, 'Operador');
    await check(owner, '01-members-invited');
    // Shown once: reloading the page shows the link no more.
    await owner.reload();
    await expect(owner.locator('#invitation-link-value').count()).resolves.toBe(0);
    const developerLink = await invite(`dev-${Date.now()}@example.com`, 'Desarrollador');

    const operator = await accept(operatorLink, 'Olga Operadora', '02-accept-operator');
    await check(operator, '03-operator-overview');
    // The navigation has no API keys for an operator, and the page itself is refused.
    await expect(operator.locator('nav a[href="/settings/api-keys"]').count()).resolves.toBe(0);
    const refused = await operator.goto(`${server.baseUrl}/settings/api-keys`);
    expect(refused?.status()).toBe(403);
    await expect(operator.locator('main').textContent()).resolves.toContain('Tu rol (Operador) no permite esta acción');
    await expect(operator.locator('main').textContent()).resolves.toContain('Propietario, Administrador, Desarrollador o Solo lectura');
    await check(operator, '04-operator-403-api-keys');
    // An operator creates companies.
    const tenantForm = await operator.goto(`${server.baseUrl}/tenants/new`);
    expect(tenantForm?.status()).toBe(200);

    const developer = await accept(developerLink, 'Diego Desarrollador', '05-accept-developer');
    const keys = await developer.goto(`${server.baseUrl}/settings/api-keys`);
    expect(keys?.status()).toBe(200);
    const noTenants = await developer.goto(`${server.baseUrl}/tenants/new`);
    expect(noTenants?.status()).toBe(403);
    await expect(developer.locator('main').textContent()).resolves.toContain('Tu rol (Desarrollador) no permite esta acción');
    await check(developer, '06-developer-403-new-company');
    // A developer sees the members but cannot manage them: no invitation form, no role selects.
    await developer.goto(`${server.baseUrl}/settings/members`);
    await expect(developer.getByRole('button', { name: 'Invitar' }).count()).resolves.toBe(0);
    await expect(developer.locator('select[name="role"]').count()).resolves.toBe(0);
    await check(developer, '07-developer-members');

    // The owner sees both members and changes the developer to read-only.
    await owner.goto(`${server.baseUrl}/settings/members`);
    await owner.getByLabel(/Cambiar rol: dev-/).selectOption({ label: 'Solo lectura' });
    await owner.getByRole('button', { name: /Guardar: dev-/ }).click();
    await expect(owner.locator('main').textContent()).resolves.toContain('ahora es Solo lectura');
    await check(owner, '08-owner-members-after-role-change');
    // The role applies at the developer's next request.
    const now = await developer.goto(`${server.baseUrl}/settings/api-keys/00000000-0000-4000-8000-000000000000/revoke`);
    expect(now?.status()).toBe(403);

    // An English page says the same in English.
    await operator.goto(`${server.baseUrl}/webhooks?lang=en`);
    const webhook = await operator.goto(`${server.baseUrl}/settings/api-keys`);
    expect(webhook?.status()).toBe(403);
    await expect(operator.locator('main').textContent()).resolves.toContain('Your role (Operator) does not allow this action.');
    await check(operator, '09-operator-403-english');

    // A used link says so.
    const reused = await operator.goto(operatorLink);
    expect(reused?.status()).toBe(404);
    await check(operator, '10-invitation-used');
  }, 240_000);
});
