import { simpleParser } from 'mailparser';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { artifactsDir, axeViolations, launchBrowser, screenshot, type ServerProcess, startServerProcess } from '../../support/browser.ts';

/**
 * Sign-up with SMTP configured, in Chromium against the server process: the "check your e-mail"
 * page (screenshotted, axe-checked), the confirmation e-mail caught by an SMTP server in the test,
 * its link opened in the browser, which lands logged in on the overview. Screenshots in
 * test-artifacts/signup-confirmation/.
 */
describe('sign-up with e-mail confirmation in Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  let smtpServer: SMTPServer;
  const mails: { to: string[]; text: string }[] = [];
  const shots = artifactsDir('signup-confirmation');
  const email = `titular-${Date.now()}@example.com`;

  const check = async (name: string) => {
    await screenshot(page, path.join(shots, `${name}.png`));
    const violations = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(violations, `${name}: ${JSON.stringify(violations)}`).toEqual([]);
  };

  beforeAll(async () => {
    smtpServer = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, cb) {
        void simpleParser(stream).then((m) => {
          mails.push({ to: session.envelope.rcptTo.map((r) => r.address), text: m.text ?? '' });
          cb();
        }, cb);
      },
    });
    const port = await new Promise<number>((resolve) =>
      smtpServer.listen(0, '127.0.0.1', () => resolve((smtpServer.server.address() as AddressInfo).port)),
    );
    server = await startServerProcess({ SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_FROM: 'Panel DTE <no-reply@dte.example.cl>' });
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'es-CL' })).newPage();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise<void>((resolve) => (smtpServer ? smtpServer.close(() => resolve()) : resolve()));
  });

  it('shows "check your e-mail", and the e-mailed link logs in', async () => {
    await page.goto(`${server.baseUrl}/signup`);
    await page.getByLabel('Nombre de tu empresa o SaaS').fill('Facturas Simples SpA');
    await page.getByLabel('Correo electrónico').fill(email);
    await page.getByLabel('Contraseña').fill('una frase de paso bien larga');
    await page.getByRole('button', { name: 'Crear cuenta' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Revisa tu correo');
    await expect(page.locator('.notice').textContent()).resolves.toContain(`Te enviamos un correo a ${email} para confirmar`);
    await check('01-revisa-tu-correo');

    const deadline = Date.now() + 15_000;
    while (!mails.some((m) => m.to.includes(email))) {
      if (Date.now() > deadline) throw new Error('no confirmation e-mail');
      await new Promise((r) => setTimeout(r, 100));
    }
    const link = /(http:\/\/\S+\/signup\/confirm\?token=[A-Za-z0-9_-]+)/.exec(mails.find((m) => m.to.includes(email))!.text)![1]!;
    expect(link.startsWith(`${server.baseUrl}/signup/confirm?token=`)).toBe(true);
    await page.goto(link);
    await expect(page.locator('h1').textContent()).resolves.toBe('Confirma tu cuenta');
    await check('02a-confirma');
    await page.getByRole('button', { name: 'Confirmar y entrar' }).click();
    await page.waitForURL(`${server.baseUrl}/`);
    expect(page.url()).toBe(`${server.baseUrl}/`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Resumen');
    await check('02-resumen');

    // The same link again: a clear page, not a login.
    await page.goto(link);
    await page.getByRole('button', { name: 'Confirmar y entrar' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('No pudimos confirmar tu cuenta');
    await check('03-enlace-usado');
    expect(server.log()).not.toContain(email);
    expect(server.log()).not.toContain(link.split('token=')[1]!);
  });
});
