import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { validTenant } from '../../support/app.ts';
import { artifactsDir, axeViolations, launchBrowser, screenshot, type ServerProcess, startServerProcess } from '../../support/browser.ts';

/**
 * The audit log page in Chromium against the real server (docs/audit.md): the owner makes a key on
 * the dashboard, the key makes and changes a company through the API, and the page lists both
 * actors' changes, filters them, and links the CSV with the same filters; it passes axe.
 * Screenshots: test-artifacts/audit/.
 */
const PASSWORD = 'una frase de paso bien larga';

describe('audit log page in Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;
  let owner: Page;
  let email: string;
  const shots = artifactsDir('audit');

  const check = async (p: Page, name: string) => {
    await screenshot(p, path.join(shots, `${name}.png`));
    const violations = (await axeViolations(p)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(violations, `${name}: ${JSON.stringify(violations)}`).toEqual([]);
  };

  beforeAll(async () => {
    server = await startServerProcess();
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'es-CL' });
    owner = await context.newPage();
    email = `audit-${Date.now()}@example.com`;
    await owner.goto(`${server.baseUrl}/signup`);
    await owner.getByLabel('Nombre de tu empresa o SaaS').fill('Auditada SpA');
    await owner.getByLabel('Correo electrónico').fill(email);
    await owner.getByLabel('Contraseña').fill(PASSWORD);
    await owner.getByRole('button', { name: 'Crear cuenta' }).click();
    await expect(owner.locator('h1').textContent()).resolves.toBe('Resumen');
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('lists who did what from the dashboard and the API, filters it, and links the CSV', async () => {
    await owner.goto(`${server.baseUrl}/settings/api-keys`);
    await owner.getByLabel('Nombre').fill('integración');
    await owner.getByRole('button', { name: 'Crear clave' }).click();
    const key = await owner.locator('#new-api-key').inputValue();
    const api = (method: string, url: string, body: unknown) =>
      fetch(`${server.baseUrl}${url}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': 'erp-sync/2.1' },
        body: JSON.stringify(body),
      });
    const created = await api('POST', '/api/v1/tenants', validTenant({ razonSocial: 'Comercial Andes SpA' }));
    expect(created.status).toBe(201);
    const tenant = (await created.json()) as { id: string };
    expect((await api('PATCH', `/api/v1/tenants/${tenant.id}`, { giro: 'Venta de repuestos' })).status).toBe(200);

    // The navigation leads there.
    await owner.goto(`${server.baseUrl}/`);
    await owner.locator('nav a[href="/settings/audit"]').click();
    await expect(owner.locator('h1').textContent()).resolves.toBe('Registro de auditoría');
    const rows = owner.locator('#events tbody tr');
    await expect(rows.count()).resolves.toBe(3);
    const text = (await owner.locator('#events').innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('tenant.updated');
    expect(text).toContain('tenant.created');
    expect(text).toContain('api_key.created');
    expect(text).toContain(email);
    expect(text).toMatch(/sk_live_\S+ \(clave API\)/);
    expect(text).not.toContain(key);
    await check(owner, '01-audit-all');

    await owner.getByLabel('Acción').fill('tenant.');
    await owner.getByRole('button', { name: 'Filtrar' }).click();
    await expect(rows.count()).resolves.toBe(2);
    const csv = await owner.getByRole('link', { name: 'Exportar CSV' }).getAttribute('href');
    expect(csv).toBe('/settings/audit.csv?action=tenant.');
    const file = await owner.request.get(`${server.baseUrl}${csv}`);
    expect(file.headers()['content-type']).toMatch(/^text\/csv/);
    expect((await file.text()).trim().split('\r\n')).toHaveLength(3);
    await check(owner, '02-audit-filtered');

    // English, same page.
    await owner.goto(`${server.baseUrl}/settings/audit?lang=en`);
    await expect(owner.locator('h1').textContent()).resolves.toBe('Audit log');
    await check(owner, '03-audit-en');
  });
});
