import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../../src/cli/index.ts';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { createContext } from '../../../src/context.ts';
import { generateKeySpec } from '../../../src/secrets/envelope.ts';
import { keyFilePath, loadKeyrings } from '../../../src/secrets/keyring-files.ts';
import { keyStatus, pruneKeys, rotateKeys } from '../../../src/secrets/keys-admin.ts';
import { describeEachDb } from '../../support/db.ts';
import { startTestApp, testConfig, validTenant, type TestApp } from '../../support/app.ts';
import { PageClient } from '../../support/page-client.ts';
import { copyServerData } from '../../support/server-data.ts';
import { certificateForm, makeCert, modernPfx, ymd } from '../../support/pfx.ts';

const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe('keyrings of the embedded default', () => {
  it('creates one key file per store on first start (0600 in a 0700 folder), says so, and reuses them', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keys-'));
    const config = testConfig({ DATA_DIR: path.join(dir, 'data'), KEYS_DIR: path.join(dir, 'keys') });
    const log: string[] = [];
    const first = loadKeyrings(config, (m) => log.push(m));
    expect(log.filter((m) => m.startsWith('Created'))).toHaveLength(2);
    for (const s of ['data', 'secrets'] as const) {
      expect(mode(keyFilePath(config.keysDir, s))).toBe(0o600);
      expect(first[s].file).toBe(keyFilePath(config.keysDir, s));
    }
    expect(mode(config.keysDir)).toBe(0o700);
    expect(first.data.keyring.current.key.equals(first.secrets.keyring.current.key)).toBe(false);
    const again = loadKeyrings(config, (m) => log.push(m));
    expect(again.data.keyring.current.key.equals(first.data.keyring.current.key)).toBe(true);
    expect(log.filter((m) => m.startsWith('Created'))).toHaveLength(2);
    fs.chmodSync(keyFilePath(config.keysDir, 'data'), 0o644);
    loadKeyrings(config, (m) => log.push(m));
    expect(log.at(-1)).toMatch(/readable by other users/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('uses keys from the environment when set, and refuses missing keys with a database URL', () => {
    const config = testConfig({
      DATA_ENCRYPTION_KEY: generateKeySpec('d9'),
      SECRETS_ENCRYPTION_KEY: generateKeySpec('s9'),
      KEYS_DIR: '/nonexistent/keys',
    });
    const k = loadKeyrings(config);
    expect([k.data.keyring.current.id, k.data.file, k.secrets.keyring.current.id]).toEqual(['d9', undefined, 's9']);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x/y', DATA_ENCRYPTION_KEY: generateKeySpec() })).toThrow(ConfigError);
    expect(() => loadConfig({ SECRETS_DATABASE_URL: 'postgres://x/y' })).toThrow(/SECRETS_ENCRYPTION_KEY/);
    expect(() => loadConfig({ SECRETS_DATABASE_SCHEMA: 'Bad-Name' })).toThrow(/SECRETS_DATABASE_SCHEMA/);
  });
});

describeEachDb('key rotation of both stores', (backend) => {
  let t: TestApp;
  let dir: string;
  let accountId: string;
  let tenantId: string;
  const cert = makeCert({ rut: '12345678-5' });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rotate-'));
    const config = testConfig({ KEYS_DIR: path.join(dir, 'keys') });
    t = await startTestApp(backend, {
      keyrings: loadKeyrings(config),
      env: { KEYS_DIR: path.join(dir, 'keys'), PAGE_RATE_LIMIT_BURST: '100' },
    });
    const acc = await t.account();
    accountId = acc.accountId;
    tenantId = (await t.call(acc.key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id;
    await t.call(acc.key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/credentials/api-key`,
      payload: { apiKey: 'sk-rotate-valid-1' },
    });
    const form = certificateForm(
      { password: 'pw-rot', rutCertificado: '12345678-5', nombreTitular: 'T', fechaVencimiento: ymd(cert.notAfter) },
      { data: modernPfx(cert, 'pw-rot') },
    );
    await t.call(acc.key, {
      method: 'POST',
      url: `/api/v1/tenants/${tenantId}/credentials/certificate`,
      payload: form.payload,
      headers: form.headers,
    });
    // A half-done activation: a staged .pfx on the link and staged secrets.
    const other = (await t.call(acc.key, { method: 'POST', url: '/api/v1/tenants', payload: validTenant() })).json().id;
    const token = (await t.call(acc.key, { method: 'POST', url: `/api/v1/tenants/${other}/activation-link` })).json().token;
    const c = new PageClient(t.app);
    await c.get(`/activate/${token}`);
    await c.postForm(`/activate/${token}/api-key`, { _csrf: c.csrf(), apiKey: 'sk-rotate-valid-2' });
    await c.get(`/activate/${token}`);
    await c.postMultipart(
      `/activate/${token}/certificate`,
      { _csrf: c.csrf(), password: 'pw-rot' },
      { name: 'file', filename: 'f.pfx', data: modernPfx(makeCert({ rut: '12345678-5' }), 'pw-rot') },
    );
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('re-wraps every ciphertext of both stores under new keys, then drops the old ones', async () => {
    const before = await keyStatus(t.ctx);
    expect(before.data!.ciphertextsByKey).toEqual({ k1: 2 }); // tenant certificate + staged .pfx
    expect(before.secrets!.ciphertextsByKey).toEqual({ k1: 4 }); // two API keys, two passwords

    const r = await rotateKeys(t.ctx, { stores: ['data', 'secrets'], addKey: true });
    expect(r.added).toEqual({ data: 'k2', secrets: 'k2' });
    // Other modules' encrypted columns are in the registry too (empty here).
    expect(r.report.data.rewrapped).toMatchObject({ 'tenant_certificates.pfx_ciphertext': 1, 'activation_links.staged_pfx': 1 });
    expect(r.report.secrets.rewrapped).toBe(4);
    expect(r.status.data!.ciphertextsByKey).toEqual({ k2: 2 });
    expect(r.status.secrets!.ciphertextsByKey).toEqual({ k2: 4 });
    expect(r.status.data!.keyIds).toEqual(['k2', 'k1']);

    const pruned = await pruneKeys(t.ctx, ['data', 'secrets']);
    expect(pruned.removed).toEqual({ data: ['k1'], secrets: ['k1'] });
    for (const s of ['data', 'secrets'] as const) {
      const file = keyFilePath(path.join(dir, 'keys'), s);
      expect(fs.readFileSync(file, 'utf8')).not.toMatch(/^k1:/m);
      expect(mode(file)).toBe(0o600);
    }

    // A process started afresh from the files (only k2 left) reads everything.
    const fresh = createContext({
      config: t.ctx.config,
      db: t.ctx.db,
      clock: t.clock,
      secretsDb: t.sdb.db,
      keyrings: loadKeyrings(testConfig({ KEYS_DIR: path.join(dir, 'keys') })),
    });
    expect(await fresh.services.credentials.getProviderApiKey(accountId, tenantId)).toBe('sk-rotate-valid-1');
    const m = await fresh.services.credentials.getSigningMaterial(t.ctx.db, accountId, tenantId);
    expect(m.pfxPassword).toBe('pw-rot');
    expect(m.certificateDer.equals(cert.certificateDer)).toBe(true);
  });

  it('with keys from the environment: rotate re-wraps under the first key of the setting', async () => {
    // Simulate DATA_ENCRYPTION_KEY="k3:new,k2:current": replace the keyring, no file involved.
    const current = t.ctx.keyrings.data.keyring;
    const spec = `${generateKeySpec('k3')},k2:${current.byId.get('k2')!.toString('base64')}`;
    const { parseKeyring } = await import('../../../src/secrets/envelope.ts');
    const envKeyrings = { ...t.ctx.keyrings, data: { keyring: current, file: undefined } };
    Object.assign(current, parseKeyring(spec));
    const r = await rotateKeys({ ...t.ctx, keyrings: envKeyrings }, { stores: ['data'], addKey: true });
    expect(r.added).toEqual({});
    expect(r.status.data!.ciphertextsByKey).toEqual({ k3: 2 });
    expect(r.report.secrets.rewrapped).toBe(0);
  });
});

describe('npx dte keys …', () => {
  const saved = { ...process.env };
  let dir: string;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-keys-'));
    Object.assign(process.env, {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      BASE_URL: 'http://127.0.0.1:3999',
      APP_URL: 'http://127.0.0.1:3999',
      DATA_DIR: path.join(dir, 'data'),
      KEYS_DIR: path.join(dir, 'keys'),
    });
    delete process.env.DATABASE_URL;
    delete process.env.DATA_ENCRYPTION_KEY;
    delete process.env.SECRETS_ENCRYPTION_KEY;
    // The CLI works on a server's existing data, never on a directory it would create (src/cli):
    // a copy of what a server's first start made (test/support/server-data.ts).
    await copyServerData(process.env.DATA_DIR!, process.env.KEYS_DIR!);
  });
  afterAll(() => {
    // Restored in place: test files share their worker process (vitest.config.ts, isolate: false),
    // and replacing process.env with a plain object would stop it reaching child processes' getenv.
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('status, rotate and prune work against the embedded stores', async () => {
    const out: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((m: unknown) => void out.push(String(m)));
    const errors: string[] = [];
    const err = vi.spyOn(console, 'error').mockImplementation((m: unknown) => void errors.push(String(m)));
    try {
      expect(await runCli(['keys', 'status']), errors.join('\n')).toBe(0);
      const status = JSON.parse(out.pop()!);
      expect(status.data.currentKeyId).toBe('k1');
      expect(status.secrets.source).toMatch(/^file /);
      expect(await runCli(['keys', 'rotate'])).toBe(0);
      const rotated = JSON.parse(out.pop()!);
      expect(rotated.added).toEqual({ data: 'k2', secrets: 'k2' });
      expect(await runCli(['keys', 'prune', '--store', 'secrets'])).toBe(0);
      expect(JSON.parse(out.pop()!).removed).toEqual({ secrets: ['k1'] });
      expect(await runCli(['keys', 'rotate', '--store', 'nope'])).toBe(1);
    } finally {
      spy.mockRestore();
      err.mockRestore();
    }
  });
});
