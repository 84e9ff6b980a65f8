import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { artifactsDir, axeViolations, launchBrowser, screenshot, type ServerProcess, startServerProcess } from '../../support/browser.ts';
import { dteBody } from '../../support/issuing.ts';
import { makeCert, modernPfx } from '../../support/pfx.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.ts';

/**
 * The dashboard in Chromium against the real server process: an account holder signs up, logs in,
 * creates an API key and uses it, registers a webhook endpoint (a local receiver), creates a
 * company and sends its activation link to a customer, who completes it in a second browser;
 * the company turns active, the webhook delivery shows in Logs → Webhooks; the holder issues a
 * document through the API and reads it in the dashboard, rotates the secret, revokes the key.
 * Every page is screenshotted (test-artifacts/dashboard/) and checked with axe-core.
 */
const PASSWORD = 'una frase de paso bien larga';

/** A small logo: a red disc on transparent ground. */
function logoPng(): Buffer {
  const w = 240;
  const h = 120;
  const p = new PNG({ width: w, height: h });
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) if ((x - 60) ** 2 + (y - 60) ** 2 < 50 ** 2) p.data.set([200, 16, 46, 255], (y * w + x) * 4);
  return PNG.sync.write(p);
}
const PFX_PASSWORD = 'Firma-Segura-2026';

describe('dashboard in Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;
  let receiver: WebhookReceiver;
  let failing: WebhookReceiver;
  let context: BrowserContext;
  let page: Page;
  const shots = artifactsDir('dashboard');
  const problems: string[] = [];
  const checked: string[] = [];
  const cert = makeCert({ rut: '12345678-5', commonName: 'Carolina Muñoz Fuentes' });
  const pfx = modernPfx(cert, PFX_PASSWORD);

  /** Screenshot and axe-core: no serious or critical violation on any page. */
  const check = async (name: string, p: Page = page) => {
    await screenshot(p, path.join(shots, `${name}.png`));
    const violations = (await axeViolations(p)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(violations, `${name}: ${JSON.stringify(violations)}`).toEqual([]);
    checked.push(name);
  };
  const h1 = (p: Page = page) => p.locator('h1').textContent();
  const api = async (key: string, method: string, url: string, body?: unknown) => {
    const r = await fetch(`${server.baseUrl}${url}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: r.status, json: (await r.json()) as Record<string, unknown> };
  };
  const until = async (what: string, fn: () => Promise<boolean>, timeoutMs = 30_000) => {
    const end = Date.now() + timeoutMs;
    while (!(await fn())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    failing = await startWebhookReceiver({ respond: () => ({ status: 500, body: 'receptor caído: base de datos no disponible' }) });
    server = await startServerProcess({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '0,1h,2h,3h,4h',
      EMULATOR_DELAY: '0',
      FOLIO_REQUEST_WAIT: '20s',
      DTE_SEND_WAIT: '20s',
    });
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'es-CL' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    page = await context.newPage();
    // Chromium logs every 4xx page as "Failed to load resource"; those statuses are deliberate here.
    page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
    await failing?.close();
  });

  let apiKey = '';
  let tenantUrl = '';
  let endpointUrl = '';
  let secret = '';
  const email = `titular-${Date.now()}@example.com`;

  it('signs up, logs out and in again', async () => {
    await page.goto(`${server.baseUrl}/`);
    expect(page.url()).toBe(`${server.baseUrl}/login`);
    await page.getByRole('link', { name: 'Crear cuenta' }).click();
    await check('01-registro');
    await page.getByLabel('Nombre de tu empresa o SaaS').fill('Facturas Simples SpA');
    await page.getByLabel('Correo electrónico').fill(email);
    await page.getByLabel('Contraseña').fill('corta');
    await page.getByRole('button', { name: 'Crear cuenta' }).click();
    await expect(page.locator('#f-password-error').textContent()).resolves.toContain('al menos 10 caracteres');
    await check('01b-registro-error');
    await page.getByLabel('Contraseña').fill(PASSWORD);
    await page.getByRole('button', { name: 'Crear cuenta' }).click();
    await expect(h1()).resolves.toBe('Resumen');
    await check('02-resumen-vacio');

    await page.getByRole('button', { name: 'Cerrar sesión' }).click();
    await expect(page.locator('.notice').textContent()).resolves.toContain('Cerraste sesión.');
    await check('03-inicio-sesion');
    await page.getByLabel('Correo electrónico').fill(email);
    await page.getByLabel('Contraseña').fill('no es la clave correcta');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await expect(page.locator('.error-summary').textContent()).resolves.toContain('El correo o la contraseña no son correctos.');
    await check('03b-inicio-sesion-error');
    await page.getByLabel('Contraseña').fill(PASSWORD);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await expect(h1()).resolves.toBe('Resumen');
  }, 120_000);

  it('creates an API key, shown once with a copy button, and the API accepts it', async () => {
    await page.getByRole('link', { name: 'Claves API' }).click();
    await check('04-claves-api');
    await page.getByLabel('Nombre (opcional)').fill('integración ERP');
    await page.getByRole('button', { name: 'Crear clave' }).click();
    const input = page.locator('#new-api-key');
    apiKey = await input.inputValue();
    expect(apiKey).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Copiar' }).click();
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(apiKey);
    await check('05-clave-creada');
    const me = await api(apiKey, 'GET', '/api/v1/account');
    expect(me.status).toBe(200);
    expect(me.json.email).toBe(email);
    // The POST redirected (303) to the page that showed the key once: reloading it creates no
    // other key and shows this one no more.
    expect(page.url()).toBe(`${server.baseUrl}/settings/api-keys?done=created#new-key`);
    await page.reload();
    expect(await page.content()).not.toContain(apiKey);
    await expect(page.locator('.success').textContent()).resolves.toContain('La clave ya se mostró');
    await expect(page.locator('#keys tbody tr').count()).resolves.toBe(1);
  }, 60_000);

  it('registers webhook endpoints and reveals the signing secret', async () => {
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await check('06-webhooks');
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('Descripción (opcional)').fill('Receptor del ERP');
    await page.getByRole('button', { name: 'Agregar endpoint' }).click();
    await expect(page.locator('.success').textContent()).resolves.toContain('Endpoint creado.');
    endpointUrl = page.url().split('?')[0]!;
    expect(await page.content()).not.toMatch(/whsec_[A-Za-z0-9+/]{16}/); // a secret, not the help text's word
    await check('07-webhook-endpoint');
    await page.getByRole('button', { name: 'Mostrar secreto' }).click();
    secret = await page.locator('#webhook-secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    receiver.secret = secret;
    await check('08-webhook-secreto');

    // A second endpoint that always fails, only for document events: its failures show in the overview.
    await page.goto(`${server.baseUrl}/webhooks`);
    await page.getByLabel('URL').fill(failing.url);
    await page.getByLabel('dte.status.changed').check();
    await page.getByRole('button', { name: 'Agregar endpoint' }).click();
    await expect(page.locator('dd').filter({ hasText: 'dte.status.changed' }).first().textContent()).resolves.toBe('dte.status.changed');
  }, 60_000);

  it('creates a company and generates its activation link', async () => {
    await page.getByRole('link', { name: 'Empresas' }).click();
    await check('09-empresas-vacio');
    await page.getByRole('link', { name: 'Nueva empresa' }).click();
    const fill = async (rut: string) => {
      await page.getByLabel('RUT de la empresa').fill(rut);
      await page.getByLabel('Razón social').fill('Panadería La Espiga SpA');
      await page.getByLabel('Giro').fill('Elaboración de pan');
      await page.getByLabel('Dirección').fill('Av. Matta 1020');
      await page.getByLabel('Comuna').fill('Santiago');
      await page.getByLabel('Ciudad').fill('Santiago');
      await page.getByLabel('Número de resolución SII').fill('80');
      await page.getByLabel('Fecha de resolución').fill('2014-08-22');
      await page.getByLabel('Códigos de actividad económica (opcional)').fill('620200');
      await page.getByLabel('Ambiente SII').selectOption('certificacion');
    };
    await fill('76.192.083-1');
    await check('10-empresa-nueva');
    await page.getByRole('button', { name: 'Crear empresa' }).click();
    await expect(page.locator('#f-rutEmpresa-error').textContent()).resolves.toContain('dígito verificador');
    await check('10b-empresa-error');
    await page.getByLabel('RUT de la empresa').fill('76.192.083-9');
    await page.getByRole('button', { name: 'Crear empresa' }).click();
    await expect(h1()).resolves.toBe('Panadería La Espiga SpA');
    tenantUrl = page.url().split('?')[0]!;
    await expect(page.locator('#activation').textContent()).resolves.toContain('Aún no se ha generado ningún enlace.');
    await check('11-empresa');
    await page.getByRole('button', { name: 'Generar enlace de activación' }).click();
    const link = await page.locator('#activation-url').inputValue();
    expect(link).toMatch(new RegExp(`^${server.baseUrl}/activate/act_[A-Za-z0-9_-]{43}$`));
    await page.getByRole('button', { name: 'Copiar' }).click();
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(link);
    await check('12-enlace-activacion');
    // Reloading the page that showed the link generates no other: the link copied still works.
    await page.reload();
    expect(await page.content()).not.toContain(link);
    await page.goto(tenantUrl);
    await expect(page.locator('#activation').textContent()).resolves.toContain('Pendiente');

    // The customer completes activation in another browser (no JavaScript, a phone).
    const customer = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 }, isMobile: true });
    const c = await customer.newPage();
    await c.goto(link);
    await c.getByLabel('Clave API de SimpleAPI').fill('sk-dashboard-valid-0001');
    await c.getByRole('button', { name: 'Verificar y continuar' }).click();
    await c
      .getByLabel('Archivo del certificado (.pfx o .p12)')
      .setInputFiles({ name: 'firma.pfx', mimeType: 'application/x-pkcs12', buffer: pfx });
    await c.getByLabel('Contraseña del certificado').fill(PFX_PASSWORD);
    await c.getByRole('button', { name: 'Leer el certificado' }).click();
    await c.getByRole('button', { name: 'Confirmar y activar' }).click();
    await expect(h1(c)).resolves.toBe('Activación completada');
    await customer.close();

    await page.goto(tenantUrl);
    await expect(page.locator('.row .badge').first().textContent()).resolves.toBe('Activa');
    await expect(page.locator('#activation').textContent()).resolves.toContain('Completado');
    const credentials = await page.locator('#credentials').textContent();
    expect(credentials).toContain('Configurada');
    expect(credentials).toContain('Carolina Muñoz Fuentes');
    expect(credentials).toContain('12.345.678-5');
    await check('13-empresa-activa');
    await page.getByRole('link', { name: '← Empresas' }).click();
    await expect(page.locator('#tenants tbody tr').count()).resolves.toBe(1);
    await check('13b-empresas');
  }, 120_000);

  it('shows the tenant.credentials.updated delivery in Logs → Webhooks', async () => {
    await receiver.waitFor((all) => all.some((d) => d.payload?.event === 'tenant.credentials.updated'), 30_000);
    const delivery = receiver.deliveries.find((d) => d.payload?.event === 'tenant.credentials.updated')!;
    expect(delivery.verified).toBe(true);
    await page.getByRole('link', { name: 'Registros de webhooks' }).click();
    await until('the delivery to show', async () => {
      await page.reload();
      return (
        (await page
          .locator('#messages tbody tr')
          .filter({ hasText: 'tenant.credentials.updated' })
          .filter({ hasText: 'Entregado' })
          .count()) === 1
      );
    });
    const row = page.locator('#messages tbody tr').filter({ hasText: 'tenant.credentials.updated' });
    await expect(row.textContent()).resolves.toMatch(/#1 200 \d+ ms/);
    await check('14-registros-webhooks');
    await row.getByRole('link').first().click();
    await expect(page.locator('#attempts').textContent()).resolves.toContain('200');
    expect(await page.locator('#message').textContent()).toContain(delivery.webhookId);
    await check('15-registro-mensaje');
    await page.getByRole('button', { name: 'Reenviar' }).click();
    await expect(page.locator('.success').textContent()).resolves.toContain('Reenvío en cola.');
    await receiver.waitFor((all) => all.filter((d) => d.webhookId === delivery.webhookId).length === 2, 30_000);
  }, 90_000);

  it('shows folio stock, documents, a document and its XML issued through the API', async () => {
    const tenantId = tenantUrl.split('/').pop()!;
    const folios = await api(apiKey, 'POST', `/api/v1/tenants/${tenantId}/folios/request`, { tipoDte: 33, cantidad: 5 });
    expect(folios.status).toBe(201);
    const created = await api(
      apiKey,
      'POST',
      `/api/v1/tenants/${tenantId}/dte`,
      dteBody(33, {
        receptor: {
          rut: '77.777.777-7',
          razonSocial: 'Cliente <Ejemplo> Ltda',
          giro: 'Comercio',
          direccion: 'Calle 1',
          comuna: 'Ñuñoa',
          ciudad: 'Santiago',
        },
      }),
    );
    expect(created.status).toBe(201);
    const dteId = created.json.id as string;
    const sent = await api(apiKey, 'POST', `/api/v1/tenants/${tenantId}/dte/send`, { dteIds: [dteId] });
    expect([200, 202]).toContain(sent.status);
    await until(
      'the document to be accepted',
      async () => (await api(apiKey, 'GET', `/api/v1/dte/${dteId}/status`)).json.status === 'accepted',
      60_000,
    );

    await page.goto(tenantUrl);
    await expect(page.locator('#folios').textContent()).resolves.toContain('Stock bajo');
    // The logo its printed documents show, uploaded from the company page.
    await page.getByLabel('Archivo del logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: logoPng() });
    await page.getByRole('button', { name: 'Subir logo' }).click();
    await expect(page.locator('.success').textContent()).resolves.toContain('Logo actualizado');
    await expect(page.locator('#logo img').getAttribute('alt')).resolves.toBe('Logo de Panadería La Espiga SpA');
    await check('16a-empresa-logo');
    await page.getByRole('link', { name: 'Documentos' }).click();
    await page.getByLabel('Estado').selectOption('accepted');
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await expect(page.locator('#documents tbody tr').count()).resolves.toBe(1);
    await check('16-documentos');
    await page.locator('#documents tbody a').first().click();
    await expect(h1()).resolves.toContain('Factura electrónica N°');
    const text = await page.locator('main').textContent();
    expect(text).toContain('Cliente <Ejemplo> Ltda');
    expect(text).toContain('Aceptado');
    expect(text).toContain('$12.990,5'); // a unit price keeps its decimals, as on the PDF
    await expect(page.locator('#history tbody tr').count()).resolves.toBeGreaterThanOrEqual(2);
    await check('17-documento');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Descargar XML' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^DTE-T33-F\d+\.xml$/);
    const file = await download.path();
    const xml = (await import('node:fs')).readFileSync(file!);
    expect(xml.toString('latin1')).toMatch(/^<\?xml version="1.0" encoding="ISO-8859-1"\?>/);
    const [pdf] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'PDF cedible' }).click()]);
    expect(pdf.suggestedFilename()).toMatch(/^DTE-T33-F\d+-cedible\.pdf$/);
    const pdfBytes = (await import('node:fs')).readFileSync((await pdf.path())!);
    expect(pdfBytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');

    await page.getByRole('link', { name: 'Resumen' }).click();
    const overview = await page.locator('main').textContent();
    expect(overview).toContain('Panadería La Espiga SpA');
    expect(overview).toContain('Credenciales listas');
    expect(overview).toContain('Stock bajo');
    await until('the failing endpoint to show in the overview', async () => {
      await page.reload();
      return (await page.locator('#overview-failures tbody tr').count()) > 0;
    });
    await expect(page.locator('#overview-failures').textContent()).resolves.toContain('500');
    await check('18-resumen');
  }, 150_000);

  it('rotates the signing secret; the next delivery is signed with the new one', async () => {
    await page.goto(endpointUrl);
    // Rotating ends the current secret: the link opens a confirmation page first.
    await page.getByRole('link', { name: 'Rotar secreto' }).click();
    await expect(h1()).resolves.toBe('Rotar secreto de firma');
    await check('19a-confirmar-rotacion');
    await page.getByRole('button', { name: 'Rotar secreto' }).click();
    await expect(page.locator('.success').textContent()).resolves.toContain('Secreto rotado');
    const rotated = await page.locator('#webhook-secret').inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    receiver.secret = rotated;
    await check('19-secreto-rotado');
    await page.getByLabel('Tipo de evento').selectOption('folio.low');
    await page.getByRole('button', { name: 'Enviar evento de prueba' }).click();
    await expect(page.locator('.success').textContent()).resolves.toContain('Evento de prueba en cola');
    await receiver.waitFor(
      (all) =>
        all.some(
          (d) => d.payload?.event === 'folio.low' && d.verified && d.payload.data.tenantId === '00000000-0000-0000-0000-000000000000',
        ),
      30_000,
    );
    await page.goto(`${endpointUrl}/delete`);
    await check('20-eliminar-endpoint');
  }, 60_000);

  it('edits the company, and shows the pages in English', async () => {
    await page.goto(`${tenantUrl}/edit`);
    await check('21-editar-empresa');
    await page.getByLabel('Giro').fill('Panadería y pastelería');
    await page.getByRole('button', { name: 'Guardar' }).click();
    await expect(page.locator('.success').textContent()).resolves.toBe('Cambios guardados.');
    await page.getByRole('link', { name: 'English' }).click();
    await expect(h1()).resolves.toBe('Panadería La Espiga SpA');
    await expect(page.locator('#details').textContent()).resolves.toContain('Panadería y pastelería');
    await page.getByRole('link', { name: 'Overview' }).click();
    await expect(h1()).resolves.toBe('Overview');
    await check('22-overview-en');
    await page.getByRole('link', { name: 'Español' }).click();
    await expect(h1()).resolves.toBe('Resumen');
  }, 60_000);

  it('revokes the API key, and the API refuses it', async () => {
    await page.getByRole('link', { name: 'Claves API' }).click();
    await page.getByRole('link', { name: /^Revocar sk_live_/ }).click();
    await expect(h1()).resolves.toBe('Revocar clave API');
    await check('23a-confirmar-revocacion');
    expect((await api(apiKey, 'GET', '/api/v1/account')).status).toBe(200); // the confirmation page revoked nothing
    await page.getByRole('button', { name: 'Revocar' }).click();
    await expect(page.locator('.success').textContent()).resolves.toBe('Clave revocada.');
    await check('23-clave-revocada');
    const refused = await api(apiKey, 'GET', '/api/v1/account');
    expect(refused.status).toBe(401);
    expect((refused.json.error as { code: string }).code).toBe('revoked_api_key');
  }, 60_000);

  it('fits a phone screen and ran without script errors or CSP violations', async () => {
    const phone = await browser.newContext({
      viewport: { width: 360, height: 740 },
      isMobile: true,
      storageState: await context.storageState(),
    });
    const p = await phone.newPage();
    for (const [name, url] of [
      ['24-movil-resumen', '/'],
      ['25-movil-empresa', tenantUrl.replace(server.baseUrl, '')],
      ['26-movil-registros', '/logs/webhooks'],
    ] as const) {
      await p.goto(`${server.baseUrl}${url}`);
      const overflow = await p.evaluate('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow, name).toBeLessThanOrEqual(0);
      await check(name, p);
    }
    await phone.close();
    // Another account's (or an unknown) id is the same 404 page.
    const missing = await page.goto(`${server.baseUrl}/tenants/5b1b6c1e-0000-4000-8000-000000000000`);
    expect(missing?.status()).toBe(404);
    await expect(h1()).resolves.toBe('No encontrado');
    await check('27-no-encontrado');
    expect(problems).toEqual([]);
    expect(checked.length).toBeGreaterThanOrEqual(25);
  }, 60_000);
});
