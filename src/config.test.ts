import { expect, it } from 'vitest';
import { ConfigError, describeSmtp, loadConfig, parseDuration } from './config.ts';

it('parses defaults into a frozen object', () => {
  const c = loadConfig({});
  expect(c.port).toBe(3000);
  expect(c.provider).toBe('emulator');
  expect(c.activationLinkTtlMs).toBe(7 * 86_400_000);
  expect(c.databasePreparedStatements).toBe(true);
  expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).databasePreparedStatements).toBe(false);
  expect(c.webhooks.retryScheduleMs).toEqual([0, 30_000, 300_000, 1_800_000, 7_200_000]);
  expect(Object.isFrozen(c)).toBe(true);
  expect(Object.isFrozen(c.webhooks.retryScheduleMs)).toBe(true);
});

it.each([
  [{ PORT: 'abc' }, /PORT/],
  [{ PORT: '70000' }, /PORT/],
  [{ PROVIDER: 'other' }, /PROVIDER: expected one of emulator, simpleapi/],
  [{ BASE_URL: 'ftp://x' }, /BASE_URL/],
  [{ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'maybe' }, /WEBHOOK_ALLOW_PRIVATE_NETWORKS/],
  [{ WEBHOOK_RETRY_SCHEDULE: '0,soon' }, /WEBHOOK_RETRY_SCHEDULE/],
  [{ ACTIVATION_LINK_TTL: 'forever' }, /ACTIVATION_LINK_TTL/],
  [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
  [{ DATABASE_PREPARED_STATEMENTS: 'sometimes' }, /DATABASE_PREPARED_STATEMENTS/],
  [{ DATABASE_URL: 'postgres://x/db' }, /DATA_ENCRYPTION_KEY: required when DATABASE_URL is set/],
  [{ SMTP_URL: 'http://mail.example.cl' }, /SMTP_URL: expected smtp:/],
  [{ SMTP_FROM: 'not an address' }, /SMTP_FROM/],
  [{ EXCHANGE_RETRY_SCHEDULE: '0,later' }, /EXCHANGE_RETRY_SCHEDULE/],
  [{ SII_BASE_URL: 'ftp://sii.example' }, /SII_BASE_URL: expected an http\(s\) URL/],
  [{ SII_BASE_URL: 'not a url' }, /SII_BASE_URL/],
])('stops on an invalid setting and names it: %j', (env, message) => {
  expect(() => loadConfig(env)).toThrow(ConfigError);
  expect(() => loadConfig(env)).toThrow(message);
});

it("SII_BASE_URL: unset means the SII's own hosts; set, one http(s) origin without a trailing slash", () => {
  expect(loadConfig({}).sii.baseUrl).toBeUndefined();
  expect(loadConfig({ SII_BASE_URL: '' }).sii.baseUrl).toBeUndefined();
  expect(loadConfig({ SII_BASE_URL: 'http://127.0.0.1:4100/' }).sii.baseUrl).toBe('http://127.0.0.1:4100');
});

it('reads durations', () => {
  expect(parseDuration('7d')).toBe(604_800_000);
  expect(parseDuration('1500')).toBe(1500);
  expect(parseDuration('30s')).toBe(30_000);
  expect(parseDuration('x')).toBeUndefined();
});

it('a bad setting stops the process with the message', async () => {
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync('node_modules/.bin/node', ['src/main.ts'], { env: { ...process.env, PORT: 'nope' }, encoding: 'utf8' });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('Invalid setting PORT');
});

it('reads the outbound e-mail settings and never repeats the SMTP password', () => {
  expect(loadConfig({}).smtp).toEqual({
    url: undefined,
    from: 'DTE <dte@localhost>',
    retryScheduleMs: [0, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000],
  });
  const url = 'smtps://relay:S3cret-pass@smtp.example.cl:465';
  const c = loadConfig({ SMTP_URL: url, SMTP_FROM: 'Facturación <dte@example.cl>', EXCHANGE_RETRY_SCHEDULE: '0,30s' });
  expect(c.smtp).toEqual({ url, from: 'Facturación <dte@example.cl>', retryScheduleMs: [0, 30_000] });
  expect(describeSmtp(url)).toBe('smtps://***@smtp.example.cl:465');
  expect(describeSmtp(undefined)).toMatch(/^local mailbox/);
  // A malformed value may hold the password: the message never echoes it.
  expect(() => loadConfig({ SMTP_URL: 'smtp//relay:S3cret-pass@host' })).toThrow(/^(?!.*S3cret)/s);
  expect(() => loadConfig({ SMTP_URL: 'ftp://relay:S3cret-pass@host' })).toThrow(/^(?!.*S3cret)/s);
});

it('metrics: on by default, off by default in production unless a token is set; a short token is refused unechoed', () => {
  const base = { DATA_DIR: '/tmp/x' };
  expect(loadConfig(base).metrics).toEqual({ enabled: true, token: undefined });
  expect(loadConfig({ ...base, NODE_ENV: 'production' }).metrics.enabled).toBe(false);
  const token = 'a'.repeat(32);
  expect(loadConfig({ ...base, NODE_ENV: 'production', METRICS_TOKEN: token }).metrics).toEqual({ enabled: true, token });
  expect(loadConfig({ ...base, METRICS_ENABLED: 'false', METRICS_TOKEN: token }).metrics.enabled).toBe(false);
  expect(() => loadConfig({ ...base, METRICS_TOKEN: 'short-secret' })).toThrow(/METRICS_TOKEN/);
  try {
    loadConfig({ ...base, METRICS_TOKEN: 'short-secret' });
  } catch (e) {
    expect((e as Error).message).not.toContain('short-secret');
  }
});

it('SII_CAF_KEYS: reads each IDK:path once at start (PEM key or certificate) and stops on what it cannot use', async () => {
  const crypto = await import('node:crypto');
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sii-caf-keys-'));
  try {
    const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 1024 });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const file = (name: string, data: string | Buffer) => {
      fs.writeFileSync(path.join(dir, name), data);
      return path.join(dir, name);
    };
    const keyFile = file('777.pem', pem);
    const certFile = path.join(import.meta.dirname, 'provider/sii-certs/100.cer'); // a certificate works too (here under another IDK)
    expect(loadConfig({}).siiCafKeys).toEqual([]);
    const c = loadConfig({ PROVIDER: 'simpleapi', SII_CAF_KEYS: `777:${keyFile}, 800:${certFile}` });
    expect(c.siiCafKeys.map((k) => [k.idk, k.file])).toEqual([
      [777, keyFile],
      [800, certFile],
    ]);
    expect(c.siiCafKeys[0]!.publicKeyPem).toBe(pem);
    expect(Object.isFrozen(c.siiCafKeys[0])).toBe(true);
    // The emulator's IDK is never free: the built-in emulator serves test mode in every installation.
    expect(() => loadConfig({ PROVIDER: 'simpleapi', SII_CAF_KEYS: `666:${keyFile}` })).toThrow(
      /IDK 666 is the emulator's key \(test mode\)/,
    );

    const missing = path.join(dir, 'missing.pem');
    const refusals: [Record<string, string>, RegExp][] = [
      [{ SII_CAF_KEYS: keyFile }, /SII_CAF_KEYS: expected IDK:path\.pem/],
      [{ SII_CAF_KEYS: `abc:${keyFile}` }, /SII_CAF_KEYS: expected IDK:path\.pem/],
      [{ SII_CAF_KEYS: `777:${missing}` }, new RegExp(`SII_CAF_KEYS: cannot read the key file of IDK 777 at ${missing} \\(ENOENT\\)`)],
      [{ SII_CAF_KEYS: `777:${dir}` }, /SII_CAF_KEYS: cannot read the key file of IDK 777 .*\(EISDIR\)/],
      [{ SII_CAF_KEYS: `100:${keyFile}` }, /SII_CAF_KEYS: IDK 100 is the SII's own key, always trusted/],
      [{ SII_CAF_KEYS: `300:${keyFile}` }, /SII_CAF_KEYS: IDK 300 is the SII's own key/],
      [{ SII_CAF_KEYS: `777:${keyFile},777:${keyFile}` }, /SII_CAF_KEYS: IDK 777 appears more than once/],
      [{ SII_CAF_KEYS: `777:${file('priv.pem', privateKey.export({ type: 'pkcs8', format: 'pem' }))}` }, /holds a private key/],
      [{ SII_CAF_KEYS: `777:${file('junk.pem', 'not a key')}` }, /neither a PEM public key nor an X\.509 certificate/],
      [{ SII_CAF_KEYS: `666:${keyFile}` }, /SII_CAF_KEYS: IDK 666 is the emulator's key \(PROVIDER=emulator\)/],
      [
        { PROVIDER: 'simpleapi', EMULATOR_SII_PUBLIC_KEY: keyFile, SII_CAF_KEYS: `666:${keyFile}` },
        /IDK 666 is the emulator's key \(EMULATOR_SII_PUBLIC_KEY\)/,
      ],
    ];
    for (const [env, message] of refusals) expect(() => loadConfig(env), JSON.stringify(env)).toThrow(message);
    const ec = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' });
    expect(() => loadConfig({ SII_CAF_KEYS: `777:${file('ec.pem', ec)}` })).toThrow(/not an RSA key/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
