import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launch, ROOT, startServer, type ServerProc } from '../support/processes.ts';
import { copyServerData } from '../support/server-data.ts';

/**
 * The traps a newcomer fell into (issue 18), each against the real programs:
 * - the server runs with its own DATA_DIR and PORT; `npx dte account create` from another folder
 *   used to make a second ./data and ./keys, create the account there and print a curl hint for
 *   port 3000. Now it refuses, naming the folder it looked in, and creates nothing; pointed at the
 *   server's DATA_DIR (no PORT), it reaches the running server and prints the server's real URL.
 * - a second server on a busy port printed an EADDRINUSE stack trace; now one line naming PORT.
 */
let server: ServerProc;
let elsewhere: string;

beforeAll(async () => {
  server = await startServer({});
  elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-newcomer-'));
}, 90_000);
afterAll(async () => {
  await server?.stop();
  fs.rmSync(elsewhere, { recursive: true, force: true });
});

const dte = async (args: string[], env: Record<string, string>) => {
  const p = launch([path.join(ROOT, 'bin/dte.js'), ...args], { LOG_LEVEL: 'warn', ...env }, { cwd: elsewhere });
  return { code: await p.exited, out: p.log() };
};

it('refuses, naming the folder, when it finds no server data, and creates no ./data or ./keys', async () => {
  const r = await dte(['account', 'create', '--name', 'Newcomer SaaS', '--email', 'new@example.com'], {});
  expect(r.code).toBe(1);
  expect(r.out).toContain(`no server data at ${path.join(elsewhere, 'data')}; start the service with npm start or set DATA_DIR`);
  expect(r.out).not.toMatch(/\n\s+at /);
  expect(fs.readdirSync(elsewhere)).toEqual([]);
}, 60_000);

it("with the server's DATA_DIR and no PORT, creates the account in the running server and prints its real URL", async () => {
  const r = await dte(['account', 'create', '--name', 'Newcomer SaaS', '--email', 'found@example.com'], {
    DATA_DIR: server.env.DATA_DIR!,
    KEYS_DIR: server.env.KEYS_DIR!,
  });
  expect(r.code, r.out).toBe(0);
  expect(server.port).not.toBe(3000);
  const m = /curl -H "Authorization: Bearer (sk_live_[\w-]+)" (\S+)\/api\/v1\/account/.exec(r.out);
  expect(m, r.out).not.toBeNull();
  expect(m![2]).toBe(server.url);
  const account = await fetch(`${server.url}/api/v1/account`, { headers: { authorization: `Bearer ${m![1]}` } });
  expect(account.status).toBe(200);
  expect(((await account.json()) as { email: string }).email).toBe('found@example.com');
  expect(fs.readdirSync(elsewhere)).toEqual([]);
}, 60_000);

it('a second server on a busy port exits non-zero with one line naming PORT, no stack trace', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dte-busy-port-'));
  try {
    // Databases that exist already: the port is what is tested, not a first start's creation.
    await copyServerData(path.join(dir, 'data'), path.join(dir, 'keys'));
    const p = launch(['src/main.ts'], {
      ...server.env,
      DATA_DIR: path.join(dir, 'data'),
      KEYS_DIR: path.join(dir, 'keys'),
    });
    const code = await p.exited;
    expect(code).not.toBe(0);
    expect(p.log()).toContain(`port ${server.port} is in use: set PORT=… or stop the other process`);
    expect(p.log()).not.toMatch(/EADDRINUSE|\n\s+at /);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  // The first server is unharmed.
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
}, 90_000);
