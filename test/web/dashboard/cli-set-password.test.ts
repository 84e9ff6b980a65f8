import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, startServerProcess, type ServerProcess } from '../../support/browser.ts';
import { copyServerData } from '../../support/server-data.ts';

/**
 * `npx dte account set-password --email E`: the password comes from stdin (or a prompt), never
 * from argv; it works on the embedded database directly, and through the admin socket while the
 * server holds that database, ending the account's open sessions.
 */
describe('dte account set-password', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-setpw-'));
  // A clean environment: the test runner's own variables (vitest sets BASE_URL) are not settings.
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: os.tmpdir(),
    DATA_DIR: path.join(dir, 'data'),
    KEYS_DIR: path.join(dir, 'keys'),
    LOG_LEVEL: 'silent',
  };
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const dte = (args: string[], input: string | undefined, e = env) =>
    spawnSync(process.execPath, ['bin/dte.js', ...args], { cwd: ROOT, env: e, input, encoding: 'utf8' });

  /** Logs in through the real pages; returns the session cookie, or the status when refused. */
  const logIn = async (base: string, email: string, password: string) => {
    const page = await fetch(`${base}/login`);
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const r = await fetch(`${base}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
    });
    return {
      status: r.status,
      cookie: r.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; '),
    };
  };

  it('sets the password on the embedded database, reading it from stdin only', async () => {
    // The data a server made on its first start (the CLI never creates a database of its own): a
    // copy of one (test/support/server-data.ts).
    await copyServerData(env.DATA_DIR!, env.KEYS_DIR!);
    const created = JSON.parse(
      execFileSync(process.execPath, ['bin/dte.js', 'account', 'create', '--name', 'CLI SaaS', '--email', 'cli@example.com', '--json'], {
        cwd: ROOT,
        env,
        encoding: 'utf8',
      }),
    );
    expect(created.account.email).toBe('cli@example.com');

    const argv = dte(['account', 'set-password', '--email', 'cli@example.com', '--password', 'una clave bien larga'], '');
    expect(argv.status).not.toBe(0);
    expect(argv.stderr).toContain("Unknown option '--password'");

    const short = dte(['account', 'set-password', '--email', 'cli@example.com'], 'corta\n');
    expect(short.status).toBe(1);
    expect(short.stderr).toContain('password_too_short');

    const unknown = dte(['account', 'set-password', '--email', 'nadie@example.com'], 'una clave bien larga\n');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('account_not_found');

    const ok = dte(['account', 'set-password', '--email', 'cli@example.com'], 'una clave bien larga\n');
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('Password set for cli@example.com');
    expect(ok.stdout + ok.stderr).not.toContain('una clave bien larga');
  }, 150_000); // five CLI runs, each opening the embedded database: 88–92 s were seen on a loaded machine

  it('works through the admin socket while the server runs, and ends open sessions', async () => {
    server = await startServerProcess({ DATA_DIR: env.DATA_DIR!, KEYS_DIR: env.KEYS_DIR! });
    const first = await logIn(server.baseUrl, 'cli@example.com', 'una clave bien larga');
    expect(first.status).toBe(303);
    expect((await fetch(`${server.baseUrl}/tenants`, { headers: { cookie: first.cookie }, redirect: 'manual' })).status).toBe(200);

    // The CLI's own environment has no PORT or BASE_URL: its hints still name the running server.
    const viaSocket = dte(['account', 'set-password', '--email', 'cli@example.com'], 'otra clave todavía más larga\n');
    expect(viaSocket.status, viaSocket.stderr).toBe(0);
    expect(viaSocket.stdout).toContain('1 open session(s) ended');
    expect(viaSocket.stdout).toContain(`Log in at ${server.baseUrl}/login`);
    const created = dte(['account', 'create', '--name', 'Hint SaaS', '--email', 'hint@example.com'], undefined);
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(new RegExp(`curl -H "Authorization: Bearer sk_live_[\\w-]+" ${server.baseUrl}/api/v1/account`));

    const stale = await fetch(`${server.baseUrl}/tenants`, { headers: { cookie: first.cookie }, redirect: 'manual' });
    expect(stale.status).toBe(303);
    expect((await logIn(server.baseUrl, 'cli@example.com', 'una clave bien larga')).status).toBe(401);
    expect((await logIn(server.baseUrl, 'cli@example.com', 'otra clave todavía más larga')).status).toBe(303);
    expect(server.log()).not.toContain('otra clave');
  }, 120_000);
});
