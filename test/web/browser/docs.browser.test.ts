import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { artifactsDir, launchBrowser, screenshot, type ServerProcess, startServerProcess } from '../../support/browser.ts';

/**
 * The API reference at /docs in Chromium against the real server: the page renders the operation
 * list from the bundled renderer with nothing fetched from another origin, no console error and no
 * CSP violation; an operation shows its generated curl sample, and its TypeScript SDK sample when
 * chosen, beside a response example. Screenshots in test-artifacts/docs/.
 */
describe('API reference (/docs) in Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;
  const shots = artifactsDir('docs');

  beforeAll(async () => {
    server = await startServerProcess();
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('renders the operations offline, with no console error or CSP violation, and shows a curl sample', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    const foreign: string[] = [];
    const origin = new URL(server.baseUrl).origin;
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('request', (r) => {
      const u = r.url();
      if (/^https?:/.test(u) && new URL(u).origin !== origin) foreign.push(u);
    });
    // Any request leaving the machine is refused, as it would be offline.
    await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
    // CSP violations are events in the page, not console messages: collect them.
    await page.addInitScript({
      content:
        "window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => " +
        "window.__csp.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile + ':' + e.lineNumber));",
    });
    const cspViolations = async () => (await page.evaluate('window.__csp')) as string[];

    const res = await page.goto(`${server.baseUrl}/docs`);
    expect(res?.status()).toBe(200);
    expect(page.url()).toBe(`${server.baseUrl}/docs/`);
    // The rendered operation list: the sidebar names operations of several groups.
    const operation = page.getByText('Create an API key', { exact: false }).first();
    await operation.waitFor({ timeout: 30_000 }).catch(async (e: unknown) => {
      await page.screenshot({ path: path.join(shots, 'docs-failed.png') });
      const csp = await cspViolations();
      throw new Error(`the operation list did not render: ${JSON.stringify({ problems, foreign, csp })}`, { cause: e });
    });
    await screenshot(page, path.join(shots, 'docs-top.png'), { fullPage: false });
    await page.getByText('Pagination', { exact: true }).first().scrollIntoViewIfNeeded();
    await screenshot(page, path.join(shots, 'docs-introduction.png'), { fullPage: false });

    // An operation with its example body (from the schema's examples) and the curl sample.
    await page.goto(`${server.baseUrl}/docs/#tag/dte/POST/api/v1/tenants/{tenantId}/dte`);
    await page.getByText('Authorization: Bearer', { exact: false }).first().waitFor({ timeout: 30_000 });
    await page.getByText('Servicio de soporte', { exact: false }).first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(500);
    await screenshot(page, path.join(shots, 'docs-operation.png'), { fullPage: false });
    // Its responses, each described, the errors with their codes.
    await page.getByText('This route: tenant_not_ready', { exact: false }).first().scrollIntoViewIfNeeded();
    await screenshot(page, path.join(shots, 'docs-responses.png'), { fullPage: false });

    // The TypeScript SDK sample is offered beside curl, and responses show example values (not "string").
    await page.goto(`${server.baseUrl}/docs/#tag/tenants/GET/api/v1/tenants`);
    const listSection = page.locator('section', { has: page.getByRole('heading', { name: 'List tenants, newest first' }) }).last();
    await listSection.getByText('Servicios Ejemplo SpA', { exact: false }).first().waitFor({ timeout: 30_000 });
    await listSection.locator('button:has-text("Shell Curl")').first().click();
    await page.keyboard.type('TypeScript SDK');
    await page.keyboard.press('Enter');
    await listSection.getByText("dte.paginate('/api/v1/tenants'", { exact: false }).first().waitFor({ timeout: 30_000 });
    await listSection.scrollIntoViewIfNeeded();
    await screenshot(page, path.join(shots, 'docs-sdk-sample.png'), { fullPage: false });

    // "Test request" calls this server (no proxy) with the key typed into the page.
    const { apiKey } = JSON.parse(server.cli(['account', 'create', '--name', 'Docs SaaS', '--email', 'docs@example.com', '--json'])) as {
      apiKey: string;
    };
    await page.goto(`${server.baseUrl}/docs/`);
    await page.getByPlaceholder('Token').first().fill(apiKey);
    // The first operation's client: "Create an API key", sent with the key typed above.
    await page.getByRole('button', { name: 'Test Request' }).first().click();
    const answered = page.waitForResponse((r) => r.url().startsWith(`${server.baseUrl}/api/v1/`), { timeout: 30_000 });
    await page.getByRole('button', { name: /^Send/ }).first().click();
    const reply = await answered.catch(async (e: unknown) => {
      await page.screenshot({ path: path.join(shots, 'docs-test-request-failed.png') });
      throw e;
    });
    expect(reply.request().headers().authorization).toBe(`Bearer ${apiKey}`);
    expect(reply.status()).toBe(201);
    await page.getByText('201 Created').first().waitFor({ timeout: 30_000 });
    await screenshot(page, path.join(shots, 'docs-test-request.png'), { fullPage: false });

    expect(await cspViolations()).toEqual([]);
    expect(problems).toEqual([]);
    expect(foreign).toEqual([]);
    await context.close();
  }, 120_000);
});
