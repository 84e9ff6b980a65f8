import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { launch, ROOT, until } from './launch.ts';
import { freePort } from './ports.ts';
import { copyServerData } from './server-data.ts';

/**
 * Browser tests: Debian's Chromium driven by playwright-core, and the real service as a child
 * process on a free port. Screenshots go to test-artifacts/ (gitignored).
 * CHROMIUM_PATH overrides the browser binary (default /usr/bin/chromium).
 */
export { ROOT };

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
}

/**
 * The browser tests' screenshots (what a person sees, for a person to look at: no test reads
 * them) are taken only when TEST_SCREENSHOTS=1, as `npm run test:screenshots` sets: a full-page
 * PNG costs Chromium ~0.25 s of CPU, a sixth of a browser file's (docs/performance.md, "Eighth
 * round"). Screenshots of a failure are taken whatever the setting.
 */
export const SCREENSHOTS = process.env.TEST_SCREENSHOTS === '1';

/** A screenshot into test-artifacts/ (the whole page unless `fullPage: false`), when SCREENSHOTS. */
export async function screenshot(page: Page, file: string, o: { fullPage?: boolean } = {}): Promise<void> {
  if (SCREENSHOTS) await page.screenshot({ path: file, fullPage: o.fullPage ?? true });
}

/** test-artifacts/<name>/, created empty when this run saves screenshots (kept as it is otherwise). */
export function artifactsDir(name: string): string {
  const dir = path.join(ROOT, 'test-artifacts', name);
  if (SCREENSHOTS) fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

let axeCode: string | undefined;
const axeSource = () => (axeCode ??= fs.readFileSync(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8'));

/** Runs axe-core in the page (through the DevTools protocol, so the page's CSP does not block it). */
export async function axeViolations(page: Page): Promise<{ id: string; impact: string | null; help: string; nodes: number }[]> {
  // Once per document: a page checked again before it navigates keeps axe from the first check.
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(axeSource());
  const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as {
    violations: { id: string; impact: string | null; help: string; nodes: unknown[] }[];
  };
  return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
}

export interface ServerProcess {
  baseUrl: string;
  proc: ChildProcess;
  env: Record<string, string>;
  log(): string;
  /** Runs `dte …` (bin/dte.js) against this server's data; returns stdout. */
  cli(args: string[]): string;
  stop(): Promise<void>;
}

/** `node src/main.ts` with its own data and key folders, embedded databases, on a free port. */
export async function startServerProcess(extraEnv: Record<string, string> = {}): Promise<ServerProcess> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-server-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    BASE_URL: baseUrl,
    APP_URL: baseUrl,
    DATA_DIR: path.join(dir, 'data'),
    KEYS_DIR: path.join(dir, 'keys'),
    ...extraEnv,
  };
  delete env.DATABASE_URL;
  delete env.DATA_ENCRYPTION_KEY;
  delete env.SECRETS_ENCRYPTION_KEY;
  // A copy of a first start's data and keys (server-data.ts), unless the caller brings its own.
  if (!extraEnv.DATA_DIR && !extraEnv.KEYS_DIR) await copyServerData(env.DATA_DIR!, env.KEYS_DIR!);
  // Started as the other test servers are (launch.ts: npm start's Node flags, output kept).
  const p = launch(['src/main.ts'], env);
  try {
    await until('the server', p, async () => (p.log().includes('listening on') ? true : undefined), 60_000);
  } catch (e) {
    await p.kill();
    throw e;
  }
  return {
    baseUrl,
    proc: p.proc,
    env,
    log: p.log,
    cli: (args) => execFileSync(process.execPath, ['bin/dte.js', ...args], { cwd: ROOT, env, encoding: 'utf8' }),
    async stop() {
      await p.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
